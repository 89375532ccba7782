// RunStore's candidate table: insert, status/result updates and the queries the search
// and the report need.
#include "store/run_store.h"

#include "store/run_store_impl.h"
#include "store/store_error.h"
#include "util/hash.h"

#include <SQLiteCpp/Transaction.h>

#include <set>

namespace kforge {

using store_sql::bind_json;
using store_sql::column_json;
using store_sql::kNow;

namespace {

constexpr const char* kColumns =
    "id, generation, operator, parent_ids, source, source_hash, params, compile_options, "
    "strategy, rationale, status, status_message, compile_log, compile_stats, metrics, profile, "
    "analysis, created_at, evaluated_at";

CandidateRecord read_candidate(SQLite::Statement& q) {
  CandidateRecord r;
  r.id = q.getColumn(0).getInt64();
  r.generation = q.getColumn(1).getInt();
  r.operator_name = q.getColumn(2).getString();
  r.parent_ids = nlohmann::json::parse(q.getColumn(3).getString()).get<std::vector<std::int64_t>>();
  r.source = q.getColumn(4).getString();
  r.source_hash = q.getColumn(5).getString();
  r.params = nlohmann::json::parse(q.getColumn(6).getString()).get<StoreParams>();
  r.compile_options =
      nlohmann::json::parse(q.getColumn(7).getString()).get<std::vector<std::string>>();
  r.strategy = q.getColumn(8).getString();
  r.rationale = q.getColumn(9).getString();
  const std::string status = q.getColumn(10).getString();
  const auto parsed = parse_candidate_status(status);
  if (!parsed) throw StoreError("unknown candidate status '" + status + "' in run.db (written by a newer kforge?)");
  r.status = *parsed;
  r.status_message = q.getColumn(11).getString();
  r.compile_log = q.getColumn(12).getString();
  r.compile_stats = column_json(q.getColumn(13));
  r.metrics = metrics_from_json(column_json(q.getColumn(14)));
  r.profile = column_json(q.getColumn(15));
  r.analysis = q.getColumn(16).getString();
  r.created_at = q.getColumn(17).getString();
  r.evaluated_at = q.getColumn(18).getString();
  return r;
}

std::vector<CandidateRecord> read_all(SQLite::Statement& q) {
  std::vector<CandidateRecord> out;
  while (q.executeStep()) out.push_back(read_candidate(q));
  return out;
}

// WHERE clause for a filter; binds follow in the same order from index 1.
std::string where_clause(const CandidateFilter& filter) {
  std::string where;
  auto add = [&](const std::string& condition) {
    where += where.empty() ? " WHERE " : " AND ";
    where += condition;
  };
  if (filter.generation) add("generation = ?");
  if (!filter.statuses.empty()) {
    std::string in = "status IN (";
    for (std::size_t i = 0; i < filter.statuses.size(); ++i) in += i ? ",?" : "?";
    add(in + ")");
  }
  return where;
}

void bind_filter(SQLite::Statement& q, const CandidateFilter& filter) {
  int index = 1;
  if (filter.generation) q.bind(index++, *filter.generation);
  for (auto status : filter.statuses) q.bind(index++, to_string(status));
}

void expect_one_row(SQLite::Database& db, std::int64_t id) {
  if (db.getChanges() != 1)
    throw StoreError("run.db has no candidate #" + std::to_string(id));
}

}  // namespace

std::int64_t RunStore::insert_candidate(const CandidateRecord& r) {
  std::string hash = r.source_hash;
  if (hash.empty()) {  // exact-content key; callers wanting normalisation use dedup_hash()
    std::vector<std::string> parts{r.source, nlohmann::json(r.params).dump(),
                                   nlohmann::json(r.compile_options).dump()};
    hash = content_hash(parts);
  }
  return impl_->locked("writing", [&] {
    SQLite::Statement insert(
        impl_->db,
        std::string("INSERT INTO candidates(generation, operator, parent_ids, source, source_hash, "
                    "params, compile_options, strategy, rationale, status, status_message, "
                    "created_at) VALUES (?,?,?,?,?,?,?,?,?,'pending','',") + kNow + ")");
    insert.bind(1, r.generation);
    insert.bind(2, r.operator_name);
    insert.bind(3, nlohmann::json(r.parent_ids).dump());
    store_sql::bind_text(insert, 4, r.source);
    insert.bind(5, hash);
    insert.bind(6, nlohmann::json(r.params).dump());
    insert.bind(7, nlohmann::json(r.compile_options).dump());
    store_sql::bind_text(insert, 8, r.strategy);
    store_sql::bind_text(insert, 9, r.rationale);
    insert.exec();
    return impl_->db.getLastInsertRowid();
  });
}

void RunStore::update_candidate_status(std::int64_t id, CandidateStatus status,
                                       const std::string& message) {
  impl_->locked("writing", [&] {
    SQLite::Statement update(impl_->db,
                             "UPDATE candidates SET status = ?, status_message = ? WHERE id = ?");
    update.bind(1, to_string(status));
    store_sql::bind_text(update, 2, message);
    update.bind(3, id);
    update.exec();
    expect_one_row(impl_->db, id);
  });
}

void RunStore::update_candidate_result(std::int64_t id, const CandidateResult& r) {
  impl_->locked("writing", [&] {
    SQLite::Statement update(
        impl_->db,
        std::string("UPDATE candidates SET status = ?, status_message = ?, compile_log = ?, "
                    "compile_stats = ?, metrics = ?, median_ms = ?, profile = ?, analysis = ?, "
                    "evaluated_at = ") + kNow + " WHERE id = ?");
    update.bind(1, to_string(r.status));
    store_sql::bind_text(update, 2, r.status_message);
    store_sql::bind_text(update, 3, r.compile_log);
    bind_json(update, 4, r.compile_stats);
    bind_json(update, 5, to_json(r.metrics));
    store_sql::bind_optional(update, 6, r.metrics.median_ms);
    bind_json(update, 7, r.profile);
    store_sql::bind_text(update, 8, r.analysis);
    update.bind(9, id);
    update.exec();
    expect_one_row(impl_->db, id);
  });
}

void RunStore::set_candidate_profile(std::int64_t id, const nlohmann::json& profile) {
  impl_->locked("writing", [&] {
    SQLite::Statement update(impl_->db, "UPDATE candidates SET profile = ? WHERE id = ?");
    bind_json(update, 1, profile);
    update.bind(2, id);
    update.exec();
    expect_one_row(impl_->db, id);
  });
}

void RunStore::set_candidate_analysis(std::int64_t id, const std::string& analysis) {
  impl_->locked("writing", [&] {
    SQLite::Statement update(impl_->db, "UPDATE candidates SET analysis = ? WHERE id = ?");
    store_sql::bind_text(update, 1, analysis);
    update.bind(2, id);
    update.exec();
    expect_one_row(impl_->db, id);
  });
}

void RunStore::delete_candidate(std::int64_t id) {
  impl_->locked("writing", [&] {
    SQLite::Transaction transaction(impl_->db);
    SQLite::Statement evaluations(impl_->db, "DELETE FROM evaluations WHERE candidate_id = ?");
    evaluations.bind(1, id);
    evaluations.exec();
    SQLite::Statement candidate(impl_->db, "DELETE FROM candidates WHERE id = ?");
    candidate.bind(1, id);
    candidate.exec();
    transaction.commit();
  });
}

std::optional<CandidateRecord> RunStore::get_candidate(std::int64_t id) const {
  return impl_->locked("reading", [&]() -> std::optional<CandidateRecord> {
    SQLite::Statement q(impl_->db, std::string("SELECT ") + kColumns + " FROM candidates WHERE id = ?");
    q.bind(1, id);
    if (!q.executeStep()) return std::nullopt;
    return read_candidate(q);
  });
}

std::vector<CandidateRecord> RunStore::list_candidates(const CandidateFilter& filter) const {
  return impl_->locked("reading", [&] {
    std::string sql = std::string("SELECT ") + kColumns + " FROM candidates" + where_clause(filter);
    sql += filter.fastest_first ? " ORDER BY median_ms IS NULL, median_ms, id" : " ORDER BY id";
    if (filter.limit) sql += " LIMIT " + std::to_string(*filter.limit);
    SQLite::Statement q(impl_->db, sql);
    bind_filter(q, filter);
    return read_all(q);
  });
}

std::int64_t RunStore::count_candidates(const CandidateFilter& filter) const {
  return impl_->locked("reading", [&] {
    SQLite::Statement q(impl_->db, "SELECT COUNT(*) FROM candidates" + where_clause(filter));
    bind_filter(q, filter);
    q.executeStep();
    return q.getColumn(0).getInt64();
  });
}

std::optional<CandidateRecord> RunStore::best_candidate() const {
  // Once the final verification has spoken, its choice is the best: a candidate that failed it
  // is incorrect, and one that was not measurably faster leaves the original as the best.
  if (const auto verified = get_setting(kVerifiedBestSetting); verified && verified->is_number_integer())
    if (auto chosen = get_candidate(verified->get<std::int64_t>()); chosen && chosen->status == CandidateStatus::Correct)
      return chosen;
  CandidateFilter filter;
  filter.statuses = {CandidateStatus::Correct};
  filter.fastest_first = true;
  filter.limit = 1;
  auto best = list_candidates(filter);
  if (best.empty() || !best.front().median_ms()) return std::nullopt;
  return best.front();
}

std::optional<CandidateRecord> RunStore::find_by_source_hash(const std::string& source_hash) const {
  return impl_->locked("reading", [&]() -> std::optional<CandidateRecord> {
    SQLite::Statement q(impl_->db, std::string("SELECT ") + kColumns +
                                       " FROM candidates WHERE source_hash = ? ORDER BY id LIMIT 1");
    q.bind(1, source_hash);
    if (!q.executeStep()) return std::nullopt;
    return read_candidate(q);
  });
}

std::vector<CandidateRecord> RunStore::lineage(std::int64_t id) const {
  std::vector<CandidateRecord> chain;
  std::set<std::int64_t> seen;  // a damaged database must not loop forever
  std::optional<std::int64_t> next = id;
  while (next && seen.insert(*next).second) {
    auto candidate = get_candidate(*next);
    if (!candidate) {
      if (chain.empty()) throw StoreError("run.db has no candidate #" + std::to_string(id));
      break;  // a parent that was discarded: the chain ends here
    }
    next = candidate->parent_ids.empty() ? std::nullopt
                                         : std::optional<std::int64_t>(candidate->parent_ids.front());
    chain.push_back(std::move(*candidate));
  }
  return {chain.rbegin(), chain.rend()};
}

std::vector<CandidateRecord> RunStore::in_flight_candidates() const {
  CandidateFilter filter;
  filter.statuses = {CandidateStatus::Pending, CandidateStatus::Compiling};
  return list_candidates(filter);
}

std::map<std::string, std::int64_t> RunStore::status_counts() const {
  return impl_->locked("reading", [&] {
    std::map<std::string, std::int64_t> counts;
    SQLite::Statement q(impl_->db, "SELECT status, COUNT(*) FROM candidates GROUP BY status");
    while (q.executeStep()) counts[q.getColumn(0).getString()] = q.getColumn(1).getInt64();
    return counts;
  });
}

}  // namespace kforge
