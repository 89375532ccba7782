// RunStore: the durable record of one `kforge optimize` run, kept in <run folder>/run.db.
//
// Every state change is its own committed transaction (WAL, synchronous=FULL), so a run
// killed at any moment - SIGKILL included - loses nothing but the candidates that were
// being evaluated; those stay `pending`/`compiling` and in_flight_candidates() returns them.
// All methods are safe to call from several threads at once (one mutex around the
// connection). Failures throw StoreError with a one-line message naming the file.
#pragma once

#include "store/records.h"
#include "store/store_error.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kforge {

// Run setting holding the id of the best candidate as chosen by the final verification.
inline constexpr const char* kVerifiedBestSetting = "verified_best_id";


class RunStore {
 public:
  static constexpr const char* kDatabaseName = "run.db";

  // Writers (create, open) hold <run folder>/run.lock (store/run_lock.h) while they live: a
  // second writer on the same folder throws StoreError naming the folder and the holder's PID.
  // Makes the folder (if needed) and a fresh run.db; throws if a run.db is already there.
  static RunStore create(const std::filesystem::path& run_dir);
  // Opens an existing run for resume or reporting; throws StoreError when the folder is
  // not a kforge run ("runs/x: not a kforge run folder (no run.db); ...").
  static RunStore open(const std::filesystem::path& run_dir);
  // Same checks, but read-only: for `kforge runs` and `kforge report` on a live run.
  static RunStore open_read_only(const std::filesystem::path& run_dir);

  // runs_root/<YYYYmmdd-HHMMSS>-<task>, with "-2", "-3"... appended if that name is taken.
  // Only picks the name; create() makes the folder.
  static std::filesystem::path new_run_dir(const std::filesystem::path& runs_root,
                                           const std::string& task_name);
  // Every run folder directly under runs_root, newest first. Unreadable folders that
  // contain a run.db are listed with `error` set rather than failing the whole listing.
  static std::vector<RunSummary> list_runs(const std::filesystem::path& runs_root);

  RunStore(RunStore&&) noexcept;
  RunStore& operator=(RunStore&&) noexcept;
  ~RunStore();

  const std::filesystem::path& run_dir() const;
  std::filesystem::path database_path() const;
  static int schema_version();

  // --- settings: key -> JSON value ---
  void set_setting(const std::string& key, const nlohmann::json& value);
  std::optional<nlohmann::json> get_setting(const std::string& key) const;
  nlohmann::json all_settings() const;  // object of every key
  void write_settings(const RunSettings& settings);  // one transaction for all keys
  RunSettings read_settings() const;                 // missing keys keep their defaults
  void set_status(const std::string& status);        // running | finished | interrupted
  // For SIGINT/SIGTERM: waits for the write in progress, sets status "interrupted" and keeps
  // the store locked so that no other thread records anything more. Call only before exiting.
  void mark_interrupted_and_hold();
  std::string status() const;
  // The original kernel's metrics (its profile too, once profiled).
  void set_baseline(const CandidateMetrics& metrics);
  std::optional<CandidateMetrics> baseline() const;

  // --- candidates ---
  // Stores the record with status pending (whatever record.status says); returns the id.
  std::int64_t insert_candidate(const CandidateRecord& record);
  void update_candidate_status(std::int64_t id, CandidateStatus status,
                               const std::string& message = "");
  // Records a finished evaluation and stamps evaluated_at.
  void update_candidate_result(std::int64_t id, const CandidateResult& result);
  void set_candidate_profile(std::int64_t id, const nlohmann::json& profile);
  void set_candidate_analysis(std::int64_t id, const std::string& analysis);
  // Removes a candidate and its evaluations (resume discarding an in-flight one).
  void delete_candidate(std::int64_t id);

  std::optional<CandidateRecord> get_candidate(std::int64_t id) const;
  std::vector<CandidateRecord> list_candidates(const CandidateFilter& filter = {}) const;
  std::int64_t count_candidates(const CandidateFilter& filter = {}) const;
  // The candidate the final verification chose (setting kVerifiedBestSetting; it may be the
  // baseline when nothing was verifiably faster); before that, the lowest median_ms among
  // correct candidates (ties: lowest id).
  std::optional<CandidateRecord> best_candidate() const;
  // Earliest candidate with this hash.
  std::optional<CandidateRecord> find_by_source_hash(const std::string& source_hash) const;
  // Root first, `id` last, following each candidate's first parent. Throws if id is unknown.
  std::vector<CandidateRecord> lineage(std::int64_t id) const;
  // Candidates whose evaluation never finished (pending or compiling), by id.
  std::vector<CandidateRecord> in_flight_candidates() const;
  // Status name -> count, over all candidates.
  std::map<std::string, std::int64_t> status_counts() const;

  // --- evaluations ---
  std::int64_t add_evaluation(const EvaluationRecord& record);
  std::vector<EvaluationRecord> list_evaluations(std::int64_t candidate_id) const;

  // --- LLM exchanges ---
  std::int64_t add_llm_exchange(const LlmExchange& exchange);
  // All exchanges, or only those of one candidate, by id.
  std::vector<LlmExchange> list_llm_exchanges(
      std::optional<std::int64_t> candidate_id = std::nullopt) const;
  LlmTotals llm_totals() const;

  // --- generations and events ---
  // Starts (or restarts, after a resume) generation n: clears finished_at, stamps started_at.
  void begin_generation(int generation);
  // Marks it finished with the given summary; started_at comes from begin_generation.
  void finish_generation(const GenerationRecord& record);
  std::optional<int> last_completed_generation() const;
  std::vector<GenerationRecord> list_generations() const;
  std::int64_t add_event(const std::string& message, std::optional<int> generation = {});
  std::vector<EventRecord> list_events() const;

  // Caps run.db at `pages` pages so that writes fail with SQLITE_FULL; tests use it to
  // check that a full disk surfaces as an error.
  void limit_size_for_testing(std::int64_t pages);

 private:
  struct Impl;
  explicit RunStore(std::unique_ptr<Impl> impl);
  static RunStore open_with(const std::filesystem::path& run_dir, bool read_only);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kforge
