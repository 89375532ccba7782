#include "search/replay_evaluator.h"

#include "search/param_space.h"
#include "util/files.h"
#include "util/hash.h"

namespace kforge {

ReplayEvaluator::ReplayEvaluator(Task task, std::map<std::string, EvalResult> recorded)
    : task_(std::move(task)), original_source_(read_file(task_.kernel.source)), recorded_(std::move(recorded)) {}

std::string ReplayEvaluator::key(const KernelVariant& variant) {
  std::vector<std::string> parts{content_hash(variant.source)};
  for (const auto& [name, value] : variant.params) parts.push_back(name + "=" + std::to_string(value));
  parts.push_back("--");
  parts.insert(parts.end(), variant.options.begin(), variant.options.end());
  return content_hash(parts);
}

ReplayEvaluator ReplayEvaluator::from_sweep(Task task, const nlohmann::json& sweep) {
  const nlohmann::json& entry = sweep.is_array() ? sweep.at(0) : sweep;
  std::map<std::string, const nlohmann::json*> by_config;
  for (const auto& configuration : entry.at("configurations"))
    by_config[configuration.at("config").get<std::string>()] = &configuration;
  const ParamSpace space(task);
  KernelVariant variant;
  variant.source = read_file(task.kernel.source);
  std::map<std::string, EvalResult> recorded;
  for (const ParamValues& params : space.enumerate()) {
    const auto found = by_config.find(space.key(params));
    if (found == by_config.end()) continue;
    variant.params = params;
    recorded[key(variant)] = eval_result_from_metrics(metrics_from_json(*found->second));
  }
  if (recorded.empty())
    throw TaskError("the sweep recording has no configuration of " + task.manifest_path.string() +
                    "; record it with `kforge sweep --json` on this task");
  return ReplayEvaluator(std::move(task), std::move(recorded));
}

ReplayEvaluator ReplayEvaluator::from_run(Task task, const RunStore& store) {
  std::map<std::string, EvalResult> recorded;
  for (const CandidateRecord& record : store.list_candidates()) {
    if (is_in_flight(record.status)) continue;
    KernelVariant variant;
    variant.source = record.source;
    variant.params = record.params;
    variant.options = record.compile_options;
    EvalResult result = eval_result_from_metrics(record.metrics);
    result.message = record.status_message;
    recorded.emplace(key(variant), std::move(result));
  }
  return ReplayEvaluator(std::move(task), std::move(recorded));
}

KernelVariant ReplayEvaluator::baseline_variant() const {
  KernelVariant variant;
  variant.source = original_source_;
  variant.params = task_.default_params();
  variant.kernel = task_.kernel.kernel;
  return variant;
}

std::vector<CompileResult> ReplayEvaluator::compile_all(const std::vector<KernelVariant>& variants) {
  std::vector<CompileResult> compiled(variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    compiled[i].ok = true;  // a recorded compile error comes back from evaluate_compiled
    compiled[i].cache_hit = true;
    compiled[i].key = key(variants[i]);
  }
  return compiled;
}

EvalResult ReplayEvaluator::evaluate_compiled(const KernelVariant& candidate, const CompileResult& compiled) {
  ++evaluations_;
  const auto found = recorded_.find(compiled.key.empty() ? key(candidate) : compiled.key);
  if (found != recorded_.end()) return found->second;
  ++misses_;
  EvalResult missing;
  missing.status = CandidateStatus::RuntimeError;
  missing.message = "not in the recording";
  return missing;
}

const EvalResult* ReplayEvaluator::recorded_result(const KernelVariant& variant) const {
  const auto found = recorded_.find(key(variant));
  return found == recorded_.end() ? nullptr : &found->second;
}

std::optional<double> ReplayEvaluator::best_recorded_ms() const {
  std::optional<double> best;
  for (const auto& [key_text, result] : recorded_)
    if (result.status == CandidateStatus::Correct && result.timing && (!best || result.timing->median_ms < *best))
      best = result.timing->median_ms;
  return best;
}

}  // namespace kforge
