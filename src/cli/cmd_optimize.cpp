// `kforge optimize PATH` and `kforge optimize --resume RUN_DIR`.
#include <fmt/format.h>

#include <random>

#include "cli/commands.h"
#include "cli/interrupts.h"
#include "cli/optimize_flags.h"
#include "cli/eval_flag_options.h"
#include "optimize/optimize_pipeline.h"
#include "optimize/pipeline_steps.h"
#include "task/detect.h"
#include "task/manifest_search.h"
#include "util/log.h"
#include "util/secrets.h"
#include "util/version.h"

namespace kforge::cli {
namespace {
using optimize::optimize_task;

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

// The target a run is recorded against, e.g. "cuda:0".
std::string target_of(const Task& task, const optimize::RunConfig& config) {
  return fmt::format("{}:{}", to_string(task.kernel.language), config.eval.device);
}

int resume(const OptimizeFlags& flags, const CLI::App& sub) {
  RunStore store = RunStore::open(flags.resume);
  const optimize::RunConfig config = resumed_config(optimize::load_run_config(store), flags, sub);
  log::info("resuming {} ({}), after generation {}", store.run_dir().string(), config.task_name,
            store.last_completed_generation().value_or(-1));
  const Task task = load_task(config.task_manifest);
  optimize::store_run_config(store, config, target_of(task, config));  // a later resume continues with it
  store.set_status("running");
  const InterruptibleRun interruptible(store);
  const auto summary = optimize_task(task, store, config);
  if (flags.json) fmt::print("{}\n", redact_secrets(summary.dump(2)));
  return 0;
}

}  // namespace

Action setup_optimize(CLI::App& sub) {
  auto flags = std::make_shared<OptimizeFlags>();
  add_optimize_flags(sub, *flags);
  return [flags, &sub] {
    install_interrupt_handling();  // before any thread: Ctrl-C leaves no worker behind
    if (!flags->resume.empty()) return resume(*flags, sub);
    if (flags->path.empty()) throw std::runtime_error("optimize: give a kernel file or folder, or --resume RUN_DIR");
    optimize::RunConfig config = new_run_config(*flags, sub, std::random_device{}());
    config.kforge_version = kVersion;
    nlohmann::json summaries = nlohmann::json::array();
    for (const Task& task : detect_tasks(flags->path)) {
      RunStore store = RunStore::create(RunStore::new_run_dir(flags->runs_dir, task.name));
      config.task_manifest = task.manifest_path.string();
      config.task_name = task.name;
      optimize::store_run_config(store, config, target_of(task, config));
      log::info("task {} -> {}", task.name, store.run_dir().string());
      const InterruptibleRun interruptible(store);
      try {
        summaries.push_back(optimize_task(task, store, config));
      } catch (const std::exception& e) {
        // One task failing (e.g. a baseline that does not compile) does not stop the others.
        store.set_status("failed");
        log::error("{}: {}", task.name, e.what());
        summaries.push_back({{"task", task.name}, {"error", e.what()}, {"run_dir", store.run_dir().string()}});
      }
    }
    if (flags->json) fmt::print("{}\n", redact_secrets(summaries.dump(2)));
    return std::all_of(summaries.begin(), summaries.end(), [](const auto& s) { return !s.contains("error"); }) ? 0 : 1;
  };
}

}  // namespace kforge::cli
