// RunStore lifecycle, settings, evaluations, LLM exchanges, generations and events.
// Candidates live in candidates.cpp, folder listing in run_list.cpp.
#include "store/run_store.h"

#include "store/run_store_impl.h"
#include "store/schema.h"

#include <SQLiteCpp/Transaction.h>

#include <sqlite3.h>

namespace kforge {

using store_sql::bind_json;
using store_sql::column_json;
using store_sql::kNow;

namespace {

// WAL lets `kforge report` read a live run; synchronous=FULL makes each commit durable
// even across power loss, which costs little at our write rate (a few rows per second).
void configure(SQLite::Database& db, bool read_only) {
  db.exec("PRAGMA foreign_keys = ON");
  if (read_only) return;
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
}

constexpr int kBusyTimeoutMs = 5000;

}  // namespace

RunStore::RunStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RunStore::RunStore(RunStore&&) noexcept = default;
RunStore& RunStore::operator=(RunStore&&) noexcept = default;
RunStore::~RunStore() = default;

int RunStore::schema_version() { return store_schema::kVersion; }
const std::filesystem::path& RunStore::run_dir() const { return impl_->run_dir; }
std::filesystem::path RunStore::database_path() const { return impl_->database; }

RunStore RunStore::create(const std::filesystem::path& run_dir) {
  const auto db_path = run_dir / kDatabaseName;
  std::error_code ec;
  std::filesystem::create_directories(run_dir, ec);
  if (ec) throw StoreError(run_dir.string() + ": cannot create the run folder (" + ec.message() + ")");
  if (std::filesystem::exists(db_path))
    throw StoreError(run_dir.string() + ": already holds a run.db; resume it or pick a new folder");
  auto lock = std::make_unique<RunLock>(run_dir);
  try {
    auto impl = std::make_unique<Impl>(run_dir, db_path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE,
                                       std::move(lock));
    impl->db.setBusyTimeout(kBusyTimeoutMs);
    configure(impl->db, false);
    store_schema::create(impl->db);
    return RunStore(std::move(impl));
  } catch (const SQLite::Exception& e) {
    throw StoreError(describe_sqlite_failure(e.getExtendedErrorCode(), e.getErrorStr(), db_path,
                                             "creating"));
  }
}

RunStore RunStore::open(const std::filesystem::path& run_dir) { return open_with(run_dir, false); }

RunStore RunStore::open_read_only(const std::filesystem::path& run_dir) {
  return open_with(run_dir, true);
}

RunStore RunStore::open_with(const std::filesystem::path& run_dir, bool read_only) {
  const auto db_path = run_dir / kDatabaseName;
  if (!std::filesystem::is_directory(run_dir))
    throw StoreError(run_dir.string() + ": not a kforge run folder (no such folder); "
                     "pass a folder made by kforge optimize");
  if (!std::filesystem::is_regular_file(db_path))
    throw StoreError(run_dir.string() + ": not a kforge run folder (no run.db); "
                     "pass a folder made by kforge optimize");
  // One writer at a time: a second resume of this folder is refused here, before any write.
  auto lock = read_only ? nullptr : std::make_unique<RunLock>(run_dir);
  try {
    auto impl = std::make_unique<Impl>(run_dir, db_path, read_only ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE,
                                       std::move(lock));
    impl->db.setBusyTimeout(kBusyTimeoutMs);
    // Verify before configuring: switching a foreign file to WAL would modify it.
    store_schema::verify(impl->db, run_dir);
    configure(impl->db, read_only);
    return RunStore(std::move(impl));
  } catch (const SQLite::Exception& e) {
    throw StoreError(describe_sqlite_failure(e.getExtendedErrorCode(), e.getErrorStr(), db_path,
                                             "opening"));
  }
}

void RunStore::limit_size_for_testing(std::int64_t pages) {
  impl_->locked("configuring", [&] {
    impl_->db.exec("PRAGMA max_page_count = " + std::to_string(pages));
  });
}

// --- settings ---

namespace {
void put_setting(SQLite::Database& db, const std::string& key, const nlohmann::json& value) {
  SQLite::Statement insert(db, "INSERT INTO settings(key, value) VALUES (?, ?) "
                               "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  insert.bind(1, key);
  insert.bind(2, redact_secrets_json(value).dump());  // never NULL: "null" is a value
  insert.exec();
}
}  // namespace

void RunStore::set_setting(const std::string& key, const nlohmann::json& value) {
  impl_->locked("writing", [&] { put_setting(impl_->db, key, value); });
}

std::optional<nlohmann::json> RunStore::get_setting(const std::string& key) const {
  return impl_->locked("reading", [&]() -> std::optional<nlohmann::json> {
    SQLite::Statement query(impl_->db, "SELECT value FROM settings WHERE key = ?");
    query.bind(1, key);
    if (!query.executeStep()) return std::nullopt;
    return nlohmann::json::parse(query.getColumn(0).getString());
  });
}

nlohmann::json RunStore::all_settings() const {
  return impl_->locked("reading", [&] {
    nlohmann::json all = nlohmann::json::object();
    SQLite::Statement query(impl_->db, "SELECT key, value FROM settings ORDER BY key");
    while (query.executeStep())
      all[query.getColumn(0).getString()] = nlohmann::json::parse(query.getColumn(1).getString());
    return all;
  });
}

void RunStore::write_settings(const RunSettings& s) {
  impl_->locked("writing", [&] {
    std::string started_at = s.started_at;
    if (started_at.empty())
      started_at = impl_->db.execAndGet(std::string("SELECT ") + kNow).getString();
    SQLite::Transaction transaction(impl_->db);
    put_setting(impl_->db, "task_manifest", s.task_manifest);
    put_setting(impl_->db, "task_name", s.task_name);
    put_setting(impl_->db, "generations", s.generations);
    put_setting(impl_->db, "population", s.population);
    put_setting(impl_->db, "target", s.target);
    put_setting(impl_->db, "time_budget_s", s.time_budget_s);
    put_setting(impl_->db, "seed", s.seed);
    put_setting(impl_->db, "llm", s.llm);
    put_setting(impl_->db, "kforge_version", s.kforge_version);
    put_setting(impl_->db, "started_at", started_at);
    put_setting(impl_->db, "status", s.status);
    transaction.commit();
  });
}

RunSettings RunStore::read_settings() const {
  const nlohmann::json all = all_settings();
  RunSettings s;
  auto take = [&](const char* key, auto& field) {
    if (auto it = all.find(key); it != all.end() && !it->is_null())
      field = it->get<std::decay_t<decltype(field)>>();
  };
  take("task_manifest", s.task_manifest);
  take("task_name", s.task_name);
  take("generations", s.generations);
  take("population", s.population);
  take("target", s.target);
  take("time_budget_s", s.time_budget_s);
  take("seed", s.seed);
  take("llm", s.llm);
  take("kforge_version", s.kforge_version);
  take("started_at", s.started_at);
  take("status", s.status);
  return s;
}

void RunStore::set_status(const std::string& status) { set_setting("status", status); }

void RunStore::mark_interrupted_and_hold() {
  // Taken and never given back: no thread writes after this (the process is about to exit,
  // and an interrupted evaluation must not be recorded as the candidate's crash).
  impl_->mutex.lock();
  try {
    put_setting(impl_->db, "status", "interrupted");
  } catch (const std::exception&) {
    // Nothing better to do on the way out: the run still resumes (status is only a label).
  }
}

std::string RunStore::status() const {
  auto value = get_setting("status");
  return value && value->is_string() ? value->get<std::string>() : "";
}

void RunStore::set_baseline(const CandidateMetrics& metrics) { set_setting("baseline", to_json(metrics)); }
std::optional<CandidateMetrics> RunStore::baseline() const {
  const auto stored = get_setting("baseline");
  if (!stored || !stored->is_object()) return std::nullopt;
  return metrics_from_json(*stored);
}

// --- evaluations ---

std::int64_t RunStore::add_evaluation(const EvaluationRecord& r) {
  return impl_->locked("writing", [&] {
    SQLite::Statement insert(impl_->db, std::string("INSERT INTO evaluations(candidate_id, kind, "
                                                    "size_name, result, created_at) VALUES (?,?,?,?,") +
                                            kNow + ")");
    insert.bind(1, r.candidate_id);
    insert.bind(2, r.kind);
    insert.bind(3, r.size_name);
    bind_json(insert, 4, r.result);
    insert.exec();
    return impl_->db.getLastInsertRowid();
  });
}

std::vector<EvaluationRecord> RunStore::list_evaluations(std::int64_t candidate_id) const {
  return impl_->locked("reading", [&] {
    std::vector<EvaluationRecord> out;
    SQLite::Statement query(impl_->db, "SELECT id, candidate_id, kind, size_name, result, created_at "
                                       "FROM evaluations WHERE candidate_id = ? ORDER BY id");
    query.bind(1, candidate_id);
    while (query.executeStep()) {
      EvaluationRecord r;
      r.id = query.getColumn(0).getInt64();
      r.candidate_id = query.getColumn(1).getInt64();
      r.kind = query.getColumn(2).getString();
      r.size_name = query.getColumn(3).getString();
      r.result = column_json(query.getColumn(4));
      r.created_at = query.getColumn(5).getString();
      out.push_back(std::move(r));
    }
    return out;
  });
}

// --- LLM exchanges ---

namespace {
// The request column holds the body as JSON, or as a JSON string when it does not parse.
nlohmann::json request_column(const std::string& request_json) {
  nlohmann::json request = nlohmann::json::parse(request_json, nullptr, false);
  return request.is_discarded() ? nlohmann::json(request_json) : request;
}
}  // namespace

// One row per exchange: the response column keeps LlmExchange::stored_response(), latency is
// in seconds, created_at is the time of the insert.
std::int64_t RunStore::add_llm_exchange(const LlmExchange& r) {
  return impl_->locked("writing", [&] {
    SQLite::Statement insert(
        impl_->db,
        std::string("INSERT INTO llm_exchanges(candidate_id, provider, model, purpose, request, "
                    "response, status, input_tokens, output_tokens, cost_usd, latency_s, attempts, "
                    "error, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,") + kNow + ")");
    store_sql::bind_optional(insert, 1, r.stored_candidate_id());
    insert.bind(2, r.provider);
    insert.bind(3, r.model);
    insert.bind(4, r.purpose);
    bind_json(insert, 5, request_column(r.request_json));
    store_sql::bind_text(insert, 6, r.stored_response());
    insert.bind(7, r.outcome());
    insert.bind(8, r.input_tokens);
    insert.bind(9, r.output_tokens);
    insert.bind(10, r.cost_usd);
    insert.bind(11, r.latency_ms / 1000.0);
    insert.bind(12, r.attempts);
    store_sql::bind_text(insert, 13, r.error);
    insert.exec();
    return impl_->db.getLastInsertRowid();
  });
}

std::vector<LlmExchange> RunStore::list_llm_exchanges(
    std::optional<std::int64_t> candidate_id) const {
  return impl_->locked("reading", [&] {
    std::string sql =
        "SELECT id, candidate_id, provider, model, purpose, request, response, status, "
        "input_tokens, output_tokens, cost_usd, latency_s, attempts, error, created_at "
        "FROM llm_exchanges";
    if (candidate_id) sql += " WHERE candidate_id = ?";
    sql += " ORDER BY id";
    SQLite::Statement query(impl_->db, sql);
    if (candidate_id) query.bind(1, *candidate_id);
    std::vector<LlmExchange> out;
    while (query.executeStep()) {
      LlmExchange r;
      r.id = query.getColumn(0).getInt64();
      if (!query.getColumn(1).isNull()) r.candidate_id = std::to_string(query.getColumn(1).getInt64());
      r.provider = query.getColumn(2).getString();
      r.model = query.getColumn(3).getString();
      r.purpose = query.getColumn(4).getString();
      const nlohmann::json request = column_json(query.getColumn(5));
      r.request_json = request.is_null() ? "" : request.is_string() ? request.get<std::string>() : request.dump();
      r.status = query.getColumn(7).getString();
      // The row keeps one response: the text when the call worked, else the raw body.
      (r.status == "error" ? r.response_body : r.text) = query.getColumn(6).getString();
      r.input_tokens = query.getColumn(8).getInt64();
      r.output_tokens = query.getColumn(9).getInt64();
      r.cost_usd = query.getColumn(10).getDouble();
      r.latency_ms = query.getColumn(11).getDouble() * 1000.0;
      r.attempts = query.getColumn(12).getInt();
      r.error = query.getColumn(13).getString();
      r.timestamp = query.getColumn(14).getString();
      out.push_back(std::move(r));
    }
    return out;
  });
}

LlmTotals RunStore::llm_totals() const {
  return impl_->locked("reading", [&] {
    SQLite::Statement query(impl_->db,
                            "SELECT COUNT(*), COALESCE(SUM(input_tokens),0), "
                            "COALESCE(SUM(output_tokens),0), COALESCE(SUM(cost_usd),0) "
                            "FROM llm_exchanges");
    query.executeStep();
    LlmTotals t;
    t.exchanges = query.getColumn(0).getInt64();
    t.input_tokens = query.getColumn(1).getInt64();
    t.output_tokens = query.getColumn(2).getInt64();
    t.cost_usd = query.getColumn(3).getDouble();
    return t;
  });
}

// --- generations and events ---

void RunStore::begin_generation(int generation) {
  impl_->locked("writing", [&] {
    SQLite::Statement upsert(
        impl_->db, std::string("INSERT INTO generations(generation, started_at) VALUES (?, ") +
                       kNow + ") ON CONFLICT(generation) DO UPDATE SET started_at = excluded.started_at, "
                              "finished_at = ''");
    upsert.bind(1, generation);
    upsert.exec();
  });
}

void RunStore::finish_generation(const GenerationRecord& r) {
  impl_->locked("writing", [&] {
    // A generation finished without begin_generation (should not happen) still gets a row.
    SQLite::Statement upsert(
        impl_->db,
        std::string("INSERT INTO generations(generation, started_at, finished_at, best_candidate_id, "
                    "best_median_ms, evaluated, correct, wall_s) VALUES (?1, ") + kNow + ", " + kNow +
            ", ?2, ?3, ?4, ?5, 0) ON CONFLICT(generation) DO UPDATE SET finished_at = " + kNow +
            ", best_candidate_id = ?2, best_median_ms = ?3, evaluated = ?4, correct = ?5, "
            "wall_s = (julianday(" + kNow + ") - julianday(started_at)) * 86400.0");
    upsert.bind(1, r.generation);
    store_sql::bind_optional(upsert, 2, r.best_candidate_id);
    store_sql::bind_optional(upsert, 3, r.best_median_ms);
    upsert.bind(4, r.evaluated);
    upsert.bind(5, r.correct);
    upsert.exec();
  });
}

std::optional<int> RunStore::last_completed_generation() const {
  return impl_->locked("reading", [&]() -> std::optional<int> {
    SQLite::Statement query(impl_->db,
                            "SELECT MAX(generation) FROM generations WHERE finished_at != ''");
    query.executeStep();
    if (query.getColumn(0).isNull()) return std::nullopt;
    return query.getColumn(0).getInt();
  });
}

std::vector<GenerationRecord> RunStore::list_generations() const {
  return impl_->locked("reading", [&] {
    SQLite::Statement query(impl_->db,
                            "SELECT generation, started_at, finished_at, best_candidate_id, "
                            "best_median_ms, evaluated, correct, wall_s FROM generations "
                            "ORDER BY generation");
    std::vector<GenerationRecord> out;
    while (query.executeStep()) {
      GenerationRecord r;
      r.generation = query.getColumn(0).getInt();
      r.started_at = query.getColumn(1).getString();
      r.finished_at = query.getColumn(2).getString();
      if (!query.getColumn(3).isNull()) r.best_candidate_id = query.getColumn(3).getInt64();
      if (!query.getColumn(4).isNull()) r.best_median_ms = query.getColumn(4).getDouble();
      r.evaluated = query.getColumn(5).getInt();
      r.correct = query.getColumn(6).getInt();
      r.wall_s = query.getColumn(7).getDouble();
      out.push_back(std::move(r));
    }
    return out;
  });
}

std::int64_t RunStore::add_event(const std::string& message, std::optional<int> generation) {
  return impl_->locked("writing", [&] {
    SQLite::Statement insert(impl_->db, std::string("INSERT INTO events(time, generation, message) "
                                                    "VALUES (") + kNow + ", ?, ?)");
    if (generation) insert.bind(1, *generation); else insert.bind(1);
    store_sql::bind_text(insert, 2, message);
    insert.exec();
    return impl_->db.getLastInsertRowid();
  });
}

std::vector<EventRecord> RunStore::list_events() const {
  return impl_->locked("reading", [&] {
    SQLite::Statement query(impl_->db, "SELECT id, time, generation, message FROM events ORDER BY id");
    std::vector<EventRecord> out;
    while (query.executeStep()) {
      EventRecord r;
      r.id = query.getColumn(0).getInt64();
      r.time = query.getColumn(1).getString();
      if (!query.getColumn(2).isNull()) r.generation = query.getColumn(2).getInt();
      r.message = query.getColumn(3).getString();
      out.push_back(std::move(r));
    }
    return out;
  });
}

}  // namespace kforge
