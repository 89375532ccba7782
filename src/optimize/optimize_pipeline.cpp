#include "optimize/optimize_pipeline.h"

#include <fmt/format.h>

#include "optimize/console_observer.h"
#include "optimize/final_verification.h"
#include "optimize/pipeline_steps.h"
#include "optimize/profiling.h"
#include "optimize/pytorch_baselines.h"
#include "report/report.h"
#include "search/builtin_operators.h"
#include "search/llm_operators/llm_setup.h"
#include "util/files.h"
#include "util/log.h"

namespace kforge::optimize {
namespace {

void print_static_profile(Evaluator& evaluator) {
  const DeviceSummary device = evaluator.device();
  const CompileResult compiled = evaluator.compile(evaluator.baseline_variant());
  log::info("  device {} ({}), measured copy bandwidth {:.1f} GB/s", device.info.value("name", std::string("?")),
            device.info.value("arch", std::string("?")), device.copy_gbps);
  if (!compiled.ok) return;  // the baseline step reports the compile error
  log::info("  baseline compiles in {:.3f} s{}; registers {}, shared {} B, local {} B, spills {} B", compiled.seconds,
            compiled.cache_hit ? " (cached)" : "", compiled.registers, compiled.shared_bytes, compiled.local_bytes,
            compiled.spill_bytes);
}

ReportFiles write_run_report(const Task& task, const RunStore& store, const std::string& device_name) {
  ReportInputs inputs;
  inputs.task_name = task.name;
  inputs.language = task.kernel.language;
  inputs.original_source = read_file(task.kernel.source);
  inputs.original_file_name = task.kernel.source.filename().string();
  inputs.device_name = device_name;
  inputs.task_compile_options = task.compile_options;
  return write_report(store, store.run_dir(), inputs);
}

// Native kernels only: Python tasks have no profiler step.
bool profilable(const Task& task) { return language_facts(task.kernel.language).worker == WorkerKind::Native; }

void log_lines(const std::string& text) {
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    log::info("  {}", text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

// The original kernel's profile: printed in the profile step, kept with the baseline for the LLM's
// analysis and for the report's roofline. Profiling trouble never stops the run.
std::optional<ProfiledVariant> profile_original(Evaluator& evaluator, const RunConfig& config) {
  if (!profilable(evaluator.task())) return std::nullopt;
  try {
    const KernelVariant original = evaluator.baseline_variant();
    const CompileResult compiled = evaluator.compile(original);
    const EvalResult result = evaluator.evaluate_compiled(original, compiled);
    if (result.status != CandidateStatus::Correct || !result.timing) return std::nullopt;  // the baseline step reports why
    ProfiledVariant profiled = profile_variant(evaluator, config.eval, original, compiled, result.timing->median_ms,
                                               {config.profile_counters, {}});
    log_lines(profiled.diagnosis);
    return profiled;
  } catch (const std::exception& e) {
    log::warn("profiling the original kernel failed: {}", e.what());
    return std::nullopt;
  }
}

void profile_best(Evaluator& evaluator, RunStore& store, const RunConfig& config, const Individual& best) {
  if (!profilable(evaluator.task()) || !best.median_ms) return;
  try {
    const CompileResult compiled = evaluator.compile(best.variant);
    const ProfiledVariant profiled =
        profile_variant(evaluator, config.eval, best.variant, compiled, *best.median_ms, {config.profile_counters, {}});
    store.set_candidate_profile(best.id, to_json(profiled.profile));
    log::info("  best #{}: {}-bound ({})", best.id, to_string(profiled.profile.bound), to_string(profiled.profile.source));
  } catch (const std::exception& e) {
    log::warn("profiling the best candidate failed: {}", e.what());
  }
}

}  // namespace

nlohmann::json optimize_task(const Task& task, RunStore& store, const RunConfig& config) {
  // Declared first: the LLM session and its sinks report to it until they are destroyed.
  ConsoleObserver console;
  const EvalOptions eval = eval_options(config.eval, task.kernel.language);
  Evaluator evaluator(task, eval);
  announce_step(PipelineStep::Profile);
  print_static_profile(evaluator);
  const std::optional<ProfiledVariant> original_profile = profile_original(evaluator, config);
  const std::string device_name = evaluator.device().info.value("name", std::string());

  // The LLM operators join the built-in ones; without an LLM one line says why.
  std::vector<std::unique_ptr<Operator>> operators;
  if (!config.llm_only) operators = builtin_operators(task);
  const DeviceSummary device = evaluator.device();
  LlmSetup llm = setup_llm_operators({config.llm_spec, config.llm_budget_usd, config.llm_budget_tokens, {}, &console},
                                     task, store, {device_name, device.info, device.copy_gbps}, !operators.empty());
  if (config.llm_only && !llm.session) throw std::runtime_error("--llm-only needs an LLM: " + llm.message);
  log::info("  {}", llm.message);
  for (auto& op : llm.operators) operators.push_back(std::move(op));

  // A KernelBench problem has no tunables: LLM operators are its only mutation source. Its
  // baselines are eager PyTorch (the task's baseline) and torch.compile.
  nlohmann::json pytorch_baselines;
  switch (language_facts(task.kernel.language).pytorch_baselines) {
    case PyTorchBaselines::OfTheModel: pytorch_baselines = measure_pytorch_baselines(task, eval); break;
    case PyTorchBaselines::OfTheReference: pytorch_baselines = measure_reference_baselines(task, eval); break;
    case PyTorchBaselines::None: break;
  }
  if (operators.empty()) {
    log::info("  no operator applies: {} has no tunable parameters and no LLM is configured", task.name);
    store.set_status("finished");
    return {{"task", task.name}, {"run_dir", store.run_dir().string()}, {"stop_reason", "no operator applies"},
            {"candidates", 0}, {"baselines", pytorch_baselines}};
  }

  Evolution evolution(evaluator, store, std::move(operators), config.evolution, console);
  if (original_profile) evolution.set_baseline_profile(to_json(original_profile->profile), original_profile->diagnosis);
  const EvolutionOutcome outcome = evolution.run();  // the console shows the baseline and evolve steps

  announce_step(PipelineStep::FinalVerification);
  FinalVerdict verdict;
  if (outcome.baseline) {
    verdict = verify_final(evaluator, store, outcome.baseline->id, config.final_seeds);
    if (const auto best = store.best_candidate(); verdict.best_id && best)
      profile_best(evaluator, store, config, individual_from_record(*best));
    else
      log::info("  no improvement found: no candidate was verifiably faster than the original kernel");
  }

  announce_step(PipelineStep::Report);
  const ReportFiles files = write_run_report(task, store, device_name);
  store.set_status("finished");
  nlohmann::json summary = {{"task", task.name},
                            {"run_dir", store.run_dir().string()},
                            {"stop_reason", outcome.stop_reason},
                            {"generations", outcome.generations_completed},
                            {"candidates", store.count_candidates()},
                            {"report", files.html.string()},
                            {"compile_s", outcome.compile_s},
                            {"evaluate_s", outcome.evaluate_s},
                            {"total_s", outcome.total_s}};
  if (!pytorch_baselines.is_null()) summary["baselines"] = pytorch_baselines;
  summary["rejected_by_final_verification"] = verdict.rejected;
  if (verdict.best_id && outcome.baseline) {
    const auto best = store.get_candidate(*verdict.best_id);
    summary["best_id"] = best->id;
    summary["best_ms"] = best->median_ms().value_or(0);
    summary["baseline_ms"] = verdict.sizes[0].baseline_ms.value_or(0.0);
    // The speedup we stand behind is the final re-measurement on the timing size, with its
    // interval; the search's own figure (the maximum of many noisy draws) is kept beside it.
    summary["speedup"] = verdict.speedup;
    summary["speedup_interval"] = {verdict.speedup_low, verdict.speedup_high};
    summary["search_speedup"] = verdict.search_speedup;
    summary["sizes"] = nlohmann::json::array();
    for (const SizeResult& size : verdict.sizes) summary["sizes"].push_back(to_json(size));
    summary["strategy"] = best->strategy;
    summary["best_source"] = files.best_source.string();
    log::info("  best #{}: {:.2f}x [{:.2f}, {:.2f}] faster than the original on size '{}' (verified; {:.2f}x during "
              "search) via {}: {}",
              best->id, verdict.speedup, verdict.speedup_low, verdict.speedup_high, task.sizes.front().name,
              verdict.search_speedup, best->operator_name, best->strategy);
  } else {
    summary["speedup"] = 1.0;
    summary["result"] = "no improvement found";
  }
  log::info("  report: {}", files.html.string());
  if (!files.best_source.empty()) log::info("  best kernel: {}  diff: {}", files.best_source.string(), files.diff.string());
  return summary;
}

}  // namespace kforge::optimize
