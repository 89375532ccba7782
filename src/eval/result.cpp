#include "eval/result.h"

#include <array>
#include <utility>

namespace kforge {
namespace {
constexpr std::array<std::pair<EvalStatus, const char*>, 6> kStatusNames{{
    {EvalStatus::Pending, "pending"},
    {EvalStatus::CompileError, "compile_error"},
    {EvalStatus::RuntimeError, "runtime_error"},
    {EvalStatus::Timeout, "timeout"},
    {EvalStatus::Incorrect, "incorrect"},
    {EvalStatus::Correct, "correct"},
}};
}  // namespace

std::string to_string(EvalStatus status) {
  for (const auto& [value, name] : kStatusNames)
    if (value == status) return name;
  return "unknown";
}

std::optional<EvalStatus> parse_eval_status(const std::string& text) {
  for (const auto& [value, name] : kStatusNames)
    if (text == name) return value;
  return std::nullopt;
}

nlohmann::json compile_stats_json(const CompileResult& compiled) {
  return {{"ok", compiled.ok},
          {"seconds", compiled.seconds},
          {"cache_hit", compiled.cache_hit},
          {"registers", compiled.registers},
          {"shared_bytes", compiled.shared_bytes},
          {"local_bytes", compiled.local_bytes},
          {"spill_bytes", compiled.spill_bytes},
          {"max_threads_per_block", compiled.max_threads_per_block},
          {"key", compiled.key}};
}

nlohmann::json metrics_json(const EvalResult& result) {
  nlohmann::json json = {{"status", to_string(result.status)},
                         {"message", result.message},
                         {metric_keys::kSpeedup, result.speedup},
                         {"gbps", result.gbps},
                         {"gflops", result.gflops},
                         {"max_abs_err", result.max_abs_err},
                         {"max_rel_err", result.max_rel_err}};
  if (result.speedup_rounds > 0) {
    json[metric_keys::kSpeedupCiLow] = result.speedup_ci_low;
    json[metric_keys::kSpeedupCiHigh] = result.speedup_ci_high;
    json[metric_keys::kSpeedupRounds] = result.speedup_rounds;
    json[metric_keys::kSpeedupSignificant] = result.speedup_ci_low > 1;
  }
  if (result.timing) {
    json["timing"] = to_json(*result.timing);
    json["median_ms"] = result.timing->median_ms;
  }
  if (result.baseline_timing) json["baseline_timing"] = to_json(*result.baseline_timing);
  if (!result.warnings.empty()) json["warnings"] = result.warnings;
  json["checks"] = nlohmann::json::array();
  for (const auto& check : result.checks) json["checks"].push_back(to_json(check));
  return json;
}

EvalResult eval_result_from_metrics(const nlohmann::json& metrics) {
  EvalResult result;
  result.status = parse_eval_status(metrics.value("status", "")).value_or(EvalStatus::RuntimeError);
  result.message = metrics.value("message", "");
  result.speedup = metrics.value(metric_keys::kSpeedup, 0.0);
  result.speedup_ci_low = metrics.value(metric_keys::kSpeedupCiLow, 0.0);
  result.speedup_ci_high = metrics.value(metric_keys::kSpeedupCiHigh, 0.0);
  result.speedup_rounds = metrics.value(metric_keys::kSpeedupRounds, 0);
  result.gbps = metrics.value("gbps", 0.0);
  result.gflops = metrics.value("gflops", 0.0);
  result.max_abs_err = metrics.value("max_abs_err", 0.0);
  result.max_rel_err = metrics.value("max_rel_err", 0.0);
  if (metrics.contains("timing")) result.timing = timing_from_json(metrics.at("timing"));
  if (metrics.contains("baseline_timing")) result.baseline_timing = timing_from_json(metrics.at("baseline_timing"));
  if (metrics.contains("checks"))
    for (const auto& check : metrics.at("checks")) result.checks.push_back(size_check_from_json(check));
  return result;
}

}  // namespace kforge
