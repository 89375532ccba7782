#include "optimize/profiling.h"

namespace kforge::optimize {

ProbeTimer probe_timer(const EvalFlags& flags) {
  return [flags](const std::filesystem::path& manifest, std::string& error) -> std::optional<double> {
    try {
      const Task probe = load_task(manifest);
      Evaluator evaluator(probe, eval_options(flags, probe.kernel.language));
      const KernelVariant variant = evaluator.baseline_variant();
      const CompileResult compiled = evaluator.compile(variant);
      if (!compiled.ok) {
        error = "the FMA probe does not compile: " + first_error_line(compiled.log);
        return std::nullopt;
      }
      const auto timings = evaluator.time_together({{&variant, &compiled}}, error);
      if (!timings[0]) return std::nullopt;
      return timings[0]->min_ms;  // a peak is the best case, not the typical one
    } catch (const std::exception& e) {
      error = e.what();
      return std::nullopt;
    }
  };
}

ProfiledVariant profile_variant(Evaluator& evaluator, const EvalFlags& flags, const KernelVariant& variant,
                                const CompileResult& compiled, double median_ms, const ProfileRequest& request) {
  const DeviceSummary summary = evaluator.device();
  ProfiledVariant result;
  result.device = characterize_device(summary.info, summary.copy_gbps, probe_timer(flags));
  ProfilerOptions options;
  options.worker_executable = evaluator.options().worker_executable;
  options.device_index = evaluator.options().device_index;
  options.use_counters = request.use_counters;
  options.ncu = request.ncu;
  const ProfileTarget target{&evaluator.task(), variant.params, compiled, median_ms, ""};
  result.profile = profile_candidate(target, result.device, options);
  result.diagnosis = diagnosis(result.profile, compiled);
  return result;
}

}  // namespace kforge::optimize
