// `kforge profile TASK [--candidate ID --run RUN_DIR]`: verifies and times the baseline (or a
// stored candidate), profiles it with the best tool available and prints the profile with
// its diagnosis. With --save the profile goes into the run, where the report's roofline
// shows the baseline and the best candidate side by side.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <optional>

#include "cli/commands.h"
#include "cli/eval_flag_options.h"
#include "optimize/profiling.h"
#include "profile/profiler.h"
#include "store/run_store.h"

namespace kforge::cli {
namespace {
using optimize::ProfiledVariant;
using optimize::profile_variant;

struct ProfileArgs {
  std::string path;
  std::vector<std::string> params;
  std::optional<std::int64_t> candidate;
  std::string run_dir;
  std::string ncu;
  bool no_counters = false;
  bool save = false;
  bool json = false;
  EvalFlags eval;
};

// Times the FP32 probe through the ordinary evaluator and worker, like any task.
KernelVariant variant_to_profile(const Task& task, const Evaluator& evaluator, const ProfileArgs& args,
                                 std::string& label) {
  KernelVariant variant = evaluator.baseline_variant();
  variant.params = parse_param_overrides(task, args.params);
  label = "baseline";
  if (!args.candidate) return variant;
  if (args.run_dir.empty()) throw std::runtime_error("--candidate needs --run RUN_DIR: the run that stores it");
  const RunStore store = RunStore::open_read_only(args.run_dir);
  const auto record = store.get_candidate(*args.candidate);
  if (!record) throw std::runtime_error(fmt::format("{}: no candidate {}", args.run_dir, *args.candidate));
  variant.source = record->source;
  variant.params = ParamValues(record->params.begin(), record->params.end());
  variant.options = record->compile_options;
  label = fmt::format("candidate {} ({})", record->id, record->strategy.empty() ? record->operator_name : record->strategy);
  return variant;
}

void save_profile(const ProfileArgs& args, const nlohmann::json& profile) {
  RunStore store = RunStore::open(args.run_dir);
  if (args.candidate) {
    store.set_candidate_profile(*args.candidate, profile);
    return;
  }
  CandidateMetrics metrics = store.baseline().value_or(CandidateMetrics{});
  metrics.profile = profile;
  store.set_baseline(metrics);
}

void print_device(const DeviceCharacterization& device) {
  fmt::print("device: {} ({}, {} compute units, {} MHz, L2 {:.1f} MiB)\n", device.info.name, device.info.arch,
             device.info.compute_units, device.info.clock_mhz, static_cast<double>(device.info.l2_bytes) / (1 << 20));
  fmt::print("peaks: {:.1f} GB/s (measured copy), {:.0f} GFLOP/s FP32 ({}){}\n", device.copy_gbps,
             device.fp32_gflops(), device.fp32_source(),
             device.tensor_fp16_gflops ? fmt::format(", {:.0f} GFLOP/s FP16 tensor (table)", *device.tensor_fp16_gflops)
                                       : std::string());
}

int profile_task(Task& task, const ProfileArgs& args, nlohmann::json& all) {
  Evaluator evaluator(task, eval_options(args.eval, task.kernel.language));
  std::string label;
  const KernelVariant variant = variant_to_profile(task, evaluator, args, label);
  const CompileResult compiled = evaluator.compile(variant);
  const EvalResult result = evaluator.evaluate_compiled(variant, compiled);
  if (result.status != CandidateStatus::Correct) {
    fmt::print("{}: {} is not profiled: {}: {}\n", task.name, label, to_string(result.status), result.message);
    return 1;
  }
  const ProfiledVariant profiled = profile_variant(evaluator, args.eval, variant, compiled, result.timing->median_ms,
                                                   {!args.no_counters, args.ncu});
  const DeviceCharacterization& device = profiled.device;
  const KernelProfile& profile = profiled.profile;
  const nlohmann::json profile_json = to_json(profile);
  if (args.save) save_profile(args, profile_json);
  const std::string& text = profiled.diagnosis;
  if (args.json) {
    all.push_back({{"task", task.name}, {"variant", label}, {"device", to_json(device)},
                   {"median_ms", result.timing->median_ms}, {"profile", profile_json}, {"diagnosis", text}});
    return 0;
  }
  fmt::print("task: {} ({}), {}\n", task.name, to_string(task.kernel.language), label);
  print_device(device);
  fmt::print("{}", text);
  if (auto seconds = profile.metrics.find("profiler_seconds"); seconds != profile.metrics.end())
    fmt::print("profiling took {:.2f} s\n", seconds->second);
  return 0;
}
}  // namespace

Action setup_profile(CLI::App& sub) {
  auto args = std::make_shared<ProfileArgs>();
  sub.add_option("task", args->path, "Manifest, task folder or kernel file")->required();
  sub.add_option("-p,--param", args->params, "Tunable value NAME=VALUE (repeatable)");
  sub.add_option("--candidate", args->candidate, "Profile this candidate of --run instead of the baseline");
  sub.add_option("--run", args->run_dir, "Run folder holding --candidate");
  sub.add_option("--ncu", args->ncu, "Nsight Compute executable (default: ncu on PATH or in /usr/local/cuda/bin)");
  sub.add_flag("--no-counters", args->no_counters, "Analytic roofline only; do not run a hardware profiler");
  sub.add_flag("--save", args->save, "Store the profile in --run (the baseline's, or --candidate's)");
  sub.add_flag("--json", args->json, "Machine-readable output");
  add_eval_flags(sub, args->eval);
  return [args] {
    if (args->save && args->run_dir.empty()) throw std::runtime_error("--save needs --run RUN_DIR");
    int failures = 0;
    nlohmann::json all = nlohmann::json::array();
    for (Task& task : load_tasks(args->path)) failures += profile_task(task, *args, all);
    if (args->json) fmt::print("{}\n", all.dump(2));
    return failures == 0 ? 0 : 1;
  };
}

}  // namespace kforge::cli
