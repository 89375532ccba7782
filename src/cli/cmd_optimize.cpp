// `kforge optimize PATH` and `kforge optimize --resume RUN_DIR`.
#include <fmt/format.h>

#include <random>

#include "cli/commands.h"
#include "cli/interrupts.h"
#include "optimize/optimize_pipeline.h"
#include "optimize/pipeline_steps.h"
#include "cli/eval_flag_options.h"
#include "task/detect.h"
#include "task/manifest_search.h"
#include "util/log.h"
#include "util/version.h"
#include "util/secrets.h"

namespace kforge::cli {
namespace {
using optimize::OptimizeOptions;
using optimize::optimize_task;


struct OptimizeArgs {
  std::string path;
  std::string resume;
  std::string runs_dir = "runs";
  int generations = 8;
  int population = 8;
  double target = 0;
  double time_budget = 0;
  std::uint64_t seed = 0;
  std::string llm;
  double llm_budget_usd = 0;
  std::int64_t llm_budget_tokens = 0;
  bool llm_only = false;
  bool json = false;
  bool no_counters = false;
  EvalFlags eval;
};

// The detect step: every kernel under the path; those with a manifest become tasks.
std::vector<Task> detect_tasks(const std::filesystem::path& path) {
  optimize::announce_step(optimize::PipelineStep::Detect);
  std::vector<DetectedKernel> kernels;
  try {
    kernels = detect_kernels(path);
  } catch (const std::exception& e) {
    log::verbose("  detection: {}", e.what());  // a manifest path is not a kernel file
  }
  std::vector<Task> tasks = load_tasks(path);
  for (const auto& kernel : kernels) {
    const bool has_task = std::any_of(tasks.begin(), tasks.end(), [&](const Task& t) {
      return t.kernel.kernel == kernel.name && std::filesystem::equivalent(t.kernel.source, kernel.file);
    });
    log::info("  {:<22} {:<7} {}:{}{}", kernel.name, to_string(kernel.language), kernel.file.string(), kernel.line,
              has_task ? "" : "  (no manifest: run `kforge init` on it to include it)");
  }
  log::info("  {} kernel{} found, {} task{} with a manifest", kernels.size(), kernels.size() == 1 ? "" : "s",
            tasks.size(), tasks.size() == 1 ? "" : "s");
  return tasks;
}

OptimizeOptions options_from(const OptimizeArgs& args, const Task& task, std::uint64_t seed) {
  OptimizeOptions options;
  options.evolution.generations = args.generations;
  options.evolution.population = args.population;
  options.evolution.target_speedup = args.target;
  options.evolution.time_budget_s = args.time_budget;
  options.evolution.seed = seed;
  options.eval = eval_options(args.eval, task.kernel.language);
  options.llm_spec = args.llm;
  options.llm_budget_usd = args.llm_budget_usd;
  options.llm_budget_tokens = args.llm_budget_tokens;
  options.llm_only = args.llm_only;
  options.flags = args.eval;
  options.profile_counters = !args.no_counters;
  return options;
}

RunSettings settings_from(const OptimizeArgs& args, const Task& task, std::uint64_t seed) {
  RunSettings settings;
  settings.task_manifest = task.manifest_path.string();
  settings.task_name = task.name;
  settings.generations = args.generations;
  settings.population = args.population;
  settings.target = fmt::format("{}:{}", to_string(task.kernel.language), args.eval.device);
  settings.time_budget_s = args.time_budget;
  settings.seed = seed;
  settings.llm = args.llm;
  settings.kforge_version = kVersion;
  return settings;
}

int resume(const OptimizeArgs& args) {
  RunStore store = RunStore::open(args.resume);
  const RunSettings settings = store.read_settings();
  log::info("resuming {} ({}), after generation {}", store.run_dir().string(), settings.task_name,
            store.last_completed_generation().value_or(-1));
  const Task task = load_task(settings.task_manifest);
  OptimizeArgs resumed = args;
  resumed.generations = settings.generations;
  resumed.population = settings.population;
  resumed.time_budget = settings.time_budget_s;
  resumed.llm = settings.llm;
  // The LLM budget and mode are the run's, not the session's: a resume keeps them unless given anew.
  const nlohmann::json llm_options = store.get_setting("llm_options").value_or(nlohmann::json::object());
  if (resumed.llm_budget_usd <= 0) resumed.llm_budget_usd = llm_options.value("usd", 0.0);
  if (resumed.llm_budget_tokens <= 0) resumed.llm_budget_tokens = llm_options.value("tokens", std::int64_t{0});
  resumed.llm_only = resumed.llm_only || llm_options.value("llm_only", false);
  store.set_status("running");
  const InterruptibleRun interruptible(store);
  const auto summary = optimize_task(task, store, options_from(resumed, task, settings.seed));
  if (args.json) fmt::print("{}\n", redact_secrets(summary.dump(2)));
  return 0;
}

}  // namespace

Action setup_optimize(CLI::App& sub) {
  auto args = std::make_shared<OptimizeArgs>();
  sub.add_option("path", args->path, "Kernel file, manifest or folder");
  sub.add_option("--resume", args->resume, "Continue the run in this folder");
  sub.add_option("-g,--generations", args->generations, "Generations to evolve")->capture_default_str();
  sub.add_option("-p,--population", args->population, "Candidates per generation")->capture_default_str();
  sub.add_option("--target", args->target, "Stop at this speedup over the original");
  sub.add_option("--time-budget", args->time_budget, "Stop after this many seconds");
  sub.add_option("--runs-dir", args->runs_dir, "Where run folders go")->capture_default_str();
  sub.add_option("--seed", args->seed, "Random seed (default: random)");
  sub.add_option("--llm", args->llm, "LLM as openai:MODEL, anthropic:MODEL, replay:RUN_DIR or none");
  sub.add_option("--llm-budget-usd", args->llm_budget_usd, "Stop using the LLM after this many US dollars");
  sub.add_option("--llm-budget-tokens", args->llm_budget_tokens, "Stop using the LLM after this many tokens");
  sub.add_flag("--llm-only", args->llm_only, "Use only the LLM operators (no built-in ones)");
  sub.add_flag("--json", args->json, "Print a JSON summary on stdout");
  sub.add_flag("--no-counters", args->no_counters, "Profile with the analytic roofline only (no ncu)");
  add_eval_flags(sub, args->eval);
  return [args] {
    install_interrupt_handling();  // before any thread: Ctrl-C leaves no worker behind
    if (!args->resume.empty()) return resume(*args);
    if (args->path.empty()) throw std::runtime_error("optimize: give a kernel file or folder, or --resume RUN_DIR");
    const std::uint64_t seed = args->seed ? args->seed : std::random_device{}();
    nlohmann::json summaries = nlohmann::json::array();
    for (const Task& task : detect_tasks(args->path)) {
      RunStore store = RunStore::create(RunStore::new_run_dir(args->runs_dir, task.name));
      store.write_settings(settings_from(*args, task, seed));
      store.set_setting("llm_options", {{"usd", args->llm_budget_usd},
                                       {"tokens", args->llm_budget_tokens},
                                       {"llm_only", args->llm_only}});
      log::info("task {} -> {}", task.name, store.run_dir().string());
      const InterruptibleRun interruptible(store);
      try {
        summaries.push_back(optimize_task(task, store, options_from(*args, task, seed)));
      } catch (const std::exception& e) {
        // One task failing (e.g. a baseline that does not compile) does not stop the others.
        store.set_status("failed");
        log::error("{}: {}", task.name, e.what());
        summaries.push_back({{"task", task.name}, {"error", e.what()}, {"run_dir", store.run_dir().string()}});
      }
    }
    if (args->json) fmt::print("{}\n", redact_secrets(summaries.dump(2)));
    return std::all_of(summaries.begin(), summaries.end(), [](const auto& s) { return !s.contains("error"); }) ? 0 : 1;
  };
}

}  // namespace kforge::cli
