// Plain records that RunStore reads and writes: one struct per table row.
// JSON-valued columns are nlohmann::json (null when absent) so callers can evolve their
// contents (profiles, compile stats) without a schema change; metrics are typed
// (core/candidate_metrics.h) and stored as their JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/candidate_metrics.h"
#include "core/llm_exchange.h"

namespace kforge {

// Same type as task.h's ParamValues; repeated so the store needs no task code to link.
using StoreParams = std::map<std::string, std::int64_t>;

struct CandidateRecord {
  std::int64_t id = 0;  // assigned by insert_candidate
  int generation = 0;
  std::string operator_name;  // "seed", "tune", "crossover", "restrict", "llm-mutate", ...
  std::vector<std::int64_t> parent_ids;  // first parent is the primary one (lineage follows it)
  std::string source;
  std::string source_hash;  // dedup key; insert_candidate fills it when empty
  StoreParams params;
  std::vector<std::string> compile_options;
  std::string strategy;   // short label of the idea, e.g. "vectorize loads"
  std::string rationale;  // why the operator/LLM proposed it
  CandidateStatus status = CandidateStatus::Pending;
  std::string status_message;
  std::string compile_log;
  nlohmann::json compile_stats;  // registers, shared memory, spills...
  CandidateMetrics metrics;  // empty until a result is recorded
  nlohmann::json profile;  // bound, arithmetic_intensity, achieved_gflops, achieved_gbps, peak_*
  std::string analysis;
  std::string created_at;    // ISO 8601 UTC, set by the store
  std::string evaluated_at;  // empty until a result is recorded

  std::optional<double> median_ms() const;
  std::optional<double> speedup() const;
};

// What an evaluation produced; update_candidate_result writes every field.
struct CandidateResult {
  CandidateStatus status = CandidateStatus::Correct;
  std::string status_message;
  std::string compile_log;
  nlohmann::json compile_stats;
  CandidateMetrics metrics;
  nlohmann::json profile;
  std::string analysis;
};

struct CandidateFilter {
  std::optional<int> generation;
  std::vector<CandidateStatus> statuses;  // empty: any
  bool fastest_first = false;             // order by median_ms (missing last), else by id
  std::optional<std::size_t> limit;
};

struct EvaluationRecord {
  std::int64_t id = 0;
  std::int64_t candidate_id = 0;
  std::string kind;  // "check", "time", "final"
  std::string size_name;
  nlohmann::json result;
  std::string created_at;
};

struct LlmTotals {
  std::int64_t exchanges = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  double cost_usd = 0;
};

struct GenerationRecord {
  int generation = 0;
  std::string started_at;
  std::string finished_at;  // empty while the generation runs
  std::optional<std::int64_t> best_candidate_id;  // best so far, over the whole run
  std::optional<double> best_median_ms;
  int evaluated = 0;  // candidates evaluated in this generation
  int correct = 0;
  double wall_s = 0;  // finish minus start
};

struct EventRecord {
  std::int64_t id = 0;
  std::string time;
  std::optional<int> generation;
  std::string message;
};

// The run's configuration, stored as individual keys of the settings table.
struct RunSettings {
  std::string task_manifest;  // absolute path of kforge.toml
  std::string task_name;
  int generations = 0;
  int population = 0;
  std::string target;  // e.g. "cuda:0"
  double time_budget_s = 0;
  std::uint64_t seed = 0;
  std::string llm;  // provider:model spec, empty when off
  std::string kforge_version;
  std::string started_at;  // filled by write_settings when empty
  std::string status = "running";  // running | finished | interrupted
};

// One line of `kforge runs`.
struct RunSummary {
  std::filesystem::path path;
  std::string task_name;
  std::string status;
  std::string started_at;
  std::optional<int> last_generation;
  std::int64_t candidates = 0;
  std::int64_t correct = 0;
  std::optional<double> best_median_ms;
  std::optional<double> best_speedup;
  std::string error;  // non-empty when the folder could not be read; other fields are empty
};

}  // namespace kforge
