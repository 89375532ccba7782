#include "core/candidate_metrics.h"

#include <set>

namespace kforge {
namespace {

using nlohmann::json;

// The keys of each object, spelled once.
namespace key {
constexpr const char* kStatus = "status";
constexpr const char* kMessage = "message";
constexpr const char* kSpeedup = "speedup";
constexpr const char* kSpeedupCiLow = "speedup_ci_low";
constexpr const char* kSpeedupCiHigh = "speedup_ci_high";
constexpr const char* kSpeedupRounds = "speedup_rounds";
constexpr const char* kSpeedupSignificant = "speedup_significant";  // written, never read
constexpr const char* kGbps = "gbps";
constexpr const char* kGflops = "gflops";
constexpr const char* kMaxAbsErr = "max_abs_err";
constexpr const char* kMaxRelErr = "max_rel_err";
constexpr const char* kMedianMs = "median_ms";
constexpr const char* kMeasuredMedianMs = "measured_median_ms";
constexpr const char* kTiming = "timing";
constexpr const char* kBaselineTiming = "baseline_timing";
constexpr const char* kWarnings = "warnings";
constexpr const char* kChecks = "checks";
constexpr const char* kSizes = "sizes";
constexpr const char* kSearchSpeedup = "search_speedup";
constexpr const char* kSearchMedianMs = "search_median_ms";
constexpr const char* kFinalCheck = "final_check";
constexpr const char* kProfile = "profile";
constexpr const char* kName = "name";
constexpr const char* kBaselineMs = "baseline_ms";
constexpr const char* kBestMs = "best_ms";
constexpr const char* kSessions = "sessions";
constexpr const char* kSpread = "spread";
constexpr const char* kCiLowMs = "ci_low_ms";
constexpr const char* kCiHighMs = "ci_high_ms";
}  // namespace key

// A field of the wrong type keeps its default rather than losing the whole record.
template <typename T>
void read(const json& object, const char* name, T& target) {
  const auto found = object.find(name);
  if (found == object.end() || found->is_null()) return;
  try {
    target = found->get<T>();
  } catch (const json::exception&) {
  }
}

template <typename T>
void read(const json& object, const char* name, std::optional<T>& target) {
  T value{};
  const auto found = object.find(name);
  if (found == object.end() || found->is_null()) return;
  try {
    value = found->get<T>();
    target = value;
  } catch (const json::exception&) {
  }
}

template <typename T>
void write(json& object, const char* name, const std::optional<T>& value) {
  if (value) object[name] = *value;
}

// Every key of `object` not in `known`.
json unknown_keys(const json& object, const std::set<std::string>& known) {
  json extra = json::object();
  for (auto it = object.begin(); it != object.end(); ++it)
    if (!known.count(it.key())) extra[it.key()] = *it;
  return extra;
}

void merge_extra(json& object, const json& extra) {
  if (!extra.is_object()) return;
  for (auto it = extra.begin(); it != extra.end(); ++it)
    if (!object.contains(it.key())) object[it.key()] = *it;
}

}  // namespace

nlohmann::json to_json(const TimingStats& stats) {
  return {{key::kMedianMs, stats.median_ms}, {"min_ms", stats.min_ms},   {"mean_ms", stats.mean_ms},
          {key::kSpread, stats.spread},      {"rel_ci", stats.rel_ci},   {"samples", stats.samples},
          {"wall_ms", stats.wall_ms},        {key::kCiLowMs, stats.ci_low_ms},
          {key::kCiHighMs, stats.ci_high_ms}};
}

TimingStats timing_from_json(const nlohmann::json& object) {
  TimingStats stats;
  if (!object.is_object()) return stats;
  read(object, key::kMedianMs, stats.median_ms);
  read(object, "min_ms", stats.min_ms);
  read(object, "mean_ms", stats.mean_ms);
  read(object, key::kSpread, stats.spread);
  read(object, "rel_ci", stats.rel_ci);
  read(object, "samples", stats.samples);
  read(object, "wall_ms", stats.wall_ms);
  read(object, key::kCiLowMs, stats.ci_low_ms);
  read(object, key::kCiHighMs, stats.ci_high_ms);
  if (stats.ci_high_ms <= 0 && stats.median_ms > 0) {  // a worker that reports only rel_ci (Python)
    stats.ci_low_ms = stats.median_ms * (1 - stats.rel_ci);
    stats.ci_high_ms = stats.median_ms * (1 + stats.rel_ci);
  }
  return stats;
}

nlohmann::json to_json(const SizeCheck& check) {
  json object = {{"size", check.size},
                 {"seed", check.seed},
                 {"passed", check.passed},
                 {key::kMaxAbsErr, check.max_abs_err},
                 {key::kMaxRelErr, check.max_rel_err},
                 {"mismatches", check.mismatches},
                 {key::kMessage, check.message},
                 {"draw", check.draw}};
  if (!check.inputs.empty()) object["inputs"] = check.inputs;
  if (check.out_of_bounds) object["fault"] = "out_of_bounds";
  return object;
}

SizeCheck size_check_from_json(const nlohmann::json& object) {
  SizeCheck check;
  if (!object.is_object()) return check;
  read(object, "size", check.size);
  read(object, "seed", check.seed);
  read(object, "passed", check.passed);
  read(object, key::kMaxAbsErr, check.max_abs_err);
  read(object, key::kMaxRelErr, check.max_rel_err);
  read(object, "mismatches", check.mismatches);
  read(object, key::kMessage, check.message);
  read(object, "draw", check.draw);
  read(object, "inputs", check.inputs);
  std::string fault;
  read(object, "fault", fault);
  check.out_of_bounds = fault == "out_of_bounds";
  return check;
}

nlohmann::json to_json(const SizeResult& size) {
  json object = {{key::kName, size.name}};
  write(object, key::kBaselineMs, size.baseline_ms);
  write(object, key::kBestMs, size.best_ms);
  write(object, key::kSpeedup, size.speedup);
  write(object, key::kSpeedupCiLow, size.speedup_ci_low);
  write(object, key::kSpeedupCiHigh, size.speedup_ci_high);
  if (size.speedup_ci_low) object[key::kSpeedupSignificant] = *size.speedup_ci_low > 1;
  write(object, key::kSessions, size.sessions);
  write(object, key::kSpread, size.spread);
  merge_extra(object, size.extra);
  return object;
}

SizeResult size_result_from_json(const nlohmann::json& object, const std::string& fallback_name) {
  SizeResult size;
  size.name = fallback_name;
  if (!object.is_object()) return size;
  read(object, key::kName, size.name);
  read(object, key::kBaselineMs, size.baseline_ms);
  read(object, key::kBestMs, size.best_ms);
  read(object, key::kSpeedup, size.speedup);
  read(object, key::kSpeedupCiLow, size.speedup_ci_low);
  read(object, key::kSpeedupCiHigh, size.speedup_ci_high);
  read(object, key::kSessions, size.sessions);
  read(object, key::kSpread, size.spread);
  size.extra = unknown_keys(object, {key::kName, key::kBaselineMs, key::kBestMs, key::kSpeedup, key::kSpeedupCiLow,
                                     key::kSpeedupCiHigh, key::kSpeedupSignificant, key::kSessions, key::kSpread});
  return size;
}

bool CandidateMetrics::empty() const {
  return !status && message.empty() && !speedup && !speedup_ci_low && !speedup_ci_high && gbps == 0 &&
         gflops == 0 && max_abs_err == 0 && max_rel_err == 0 && !median_ms && !measured_median_ms && !timing &&
         !baseline_timing && warnings.empty() && checks.empty() && sizes.empty() && !search_speedup &&
         !search_median_ms && !final_check && profile.is_null() && (!extra.is_object() || extra.empty());
}

nlohmann::json to_json(const CandidateMetrics& m) {
  if (m.empty()) return nullptr;
  json object = json::object();
  // An evaluation result always carries its status, message, figures and checks.
  const bool evaluated = m.status.has_value();
  if (evaluated) object[key::kStatus] = to_string(*m.status);
  if (evaluated || !m.message.empty()) object[key::kMessage] = m.message;
  write(object, key::kSpeedup, m.speedup);
  if (evaluated || m.gbps != 0) object[key::kGbps] = m.gbps;
  if (evaluated || m.gflops != 0) object[key::kGflops] = m.gflops;
  if (evaluated || m.max_abs_err != 0) object[key::kMaxAbsErr] = m.max_abs_err;
  if (evaluated || m.max_rel_err != 0) object[key::kMaxRelErr] = m.max_rel_err;
  write(object, key::kSpeedupCiLow, m.speedup_ci_low);
  write(object, key::kSpeedupCiHigh, m.speedup_ci_high);
  if (m.speedup_rounds > 0) object[key::kSpeedupRounds] = m.speedup_rounds;
  if (m.speedup_ci_low) object[key::kSpeedupSignificant] = *m.speedup_ci_low > 1;
  if (m.timing) object[key::kTiming] = to_json(*m.timing);
  write(object, key::kMedianMs, m.median_ms);
  write(object, key::kMeasuredMedianMs, m.measured_median_ms);
  if (m.baseline_timing) object[key::kBaselineTiming] = to_json(*m.baseline_timing);
  if (!m.warnings.empty()) object[key::kWarnings] = m.warnings;
  if (evaluated || !m.checks.empty()) {
    object[key::kChecks] = json::array();
    for (const auto& check : m.checks) object[key::kChecks].push_back(to_json(check));
  }
  if (!m.sizes.empty()) {
    object[key::kSizes] = json::array();
    for (const auto& size : m.sizes) object[key::kSizes].push_back(to_json(size));
  }
  write(object, key::kSearchSpeedup, m.search_speedup);
  write(object, key::kSearchMedianMs, m.search_median_ms);
  if (m.final_check) {
    object[key::kFinalCheck] = {{key::kStatus, m.final_check->passed ? "correct" : "incorrect"}};
    if (!m.final_check->message.empty()) object[key::kFinalCheck][key::kMessage] = m.final_check->message;
  }
  if (!m.profile.is_null()) object[key::kProfile] = m.profile;
  merge_extra(object, m.extra);
  return object;
}

CandidateMetrics metrics_from_json(const nlohmann::json& object) {
  CandidateMetrics m;
  if (!object.is_object()) return m;
  std::string status;
  read(object, key::kStatus, status);
  m.status = parse_candidate_status(status);
  if (object.contains(key::kStatus) && !m.status) m.status = CandidateStatus::RuntimeError;  // unknown name
  read(object, key::kMessage, m.message);
  read(object, key::kSpeedup, m.speedup);
  read(object, key::kSpeedupCiLow, m.speedup_ci_low);
  read(object, key::kSpeedupCiHigh, m.speedup_ci_high);
  read(object, key::kSpeedupRounds, m.speedup_rounds);
  read(object, key::kGbps, m.gbps);
  read(object, key::kGflops, m.gflops);
  read(object, key::kMaxAbsErr, m.max_abs_err);
  read(object, key::kMaxRelErr, m.max_rel_err);
  read(object, key::kMedianMs, m.median_ms);
  read(object, key::kMeasuredMedianMs, m.measured_median_ms);
  if (const auto it = object.find(key::kTiming); it != object.end() && it->is_object())
    m.timing = timing_from_json(*it);
  if (const auto it = object.find(key::kBaselineTiming); it != object.end() && it->is_object())
    m.baseline_timing = timing_from_json(*it);
  read(object, key::kWarnings, m.warnings);
  if (const auto it = object.find(key::kChecks); it != object.end() && it->is_array())
    for (const auto& check : *it) m.checks.push_back(size_check_from_json(check));
  if (const auto it = object.find(key::kSizes); it != object.end()) {
    if (it->is_array()) {
      for (std::size_t i = 0; i < it->size(); ++i)
        m.sizes.push_back(size_result_from_json((*it)[i], "size" + std::to_string(i)));
    } else if (it->is_object()) {
      for (auto size = it->begin(); size != it->end(); ++size)
        m.sizes.push_back(size_result_from_json(*size, size.key()));
    }
  }
  read(object, key::kSearchSpeedup, m.search_speedup);
  read(object, key::kSearchMedianMs, m.search_median_ms);
  if (const auto it = object.find(key::kFinalCheck); it != object.end() && it->is_object()) {
    FinalCheck check;
    std::string verdict;
    read(*it, key::kStatus, verdict);
    check.passed = verdict == "correct";
    read(*it, key::kMessage, check.message);
    m.final_check = check;
  }
  if (const auto it = object.find(key::kProfile); it != object.end()) m.profile = *it;
  m.extra = unknown_keys(object, {key::kStatus, key::kMessage, key::kSpeedup, key::kSpeedupCiLow, key::kSpeedupCiHigh,
                                  key::kSpeedupRounds, key::kSpeedupSignificant, key::kGbps, key::kGflops,
                                  key::kMaxAbsErr, key::kMaxRelErr, key::kMedianMs, key::kMeasuredMedianMs,
                                  key::kTiming, key::kBaselineTiming, key::kWarnings, key::kChecks, key::kSizes,
                                  key::kSearchSpeedup, key::kSearchMedianMs, key::kFinalCheck, key::kProfile});
  return m;
}

}  // namespace kforge
