// The orchestrator's evaluator: compiles variants (in parallel, cached), then checks and
// times them in a sandboxed worker process, classifying every failure instead of failing.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "eval/candidate_evaluator.h"
#include "eval/compiler_pool.h"
#include "eval/result.h"
#include "eval/timing.h"
#include "eval/worker_process.h"
#include "protocol/worker_protocol.h"
#include "task/task.h"

namespace kforge {

struct EvalOptions {
  std::filesystem::path worker_executable = WorkerProcess::default_executable();
  int device_index = 0;
  int check_seeds = 2;            // fresh random inputs per seed, on every problem size
  // Native tasks: seeds after the first draw adversarial inputs, one extra seed per size is
  // added, and tolerances are calibrated against the data (check_inputs.h, calibration.h).
  // Off only to show in tests what each defence catches.
  bool adversarial_draws = true;
  bool calibrate_tolerances = true;
  std::uint64_t seed = 0;         // of the check and timing seeds; 0: a random one per evaluator
  double check_timeout_s = 30;    // per problem size
  double time_timeout_s = 120;
  TimingConfig timing;
  // Verify the outputs of timed launches against the reference (native kernels). Off only to
  // measure what it costs, or to show what the re-check after timing catches on its own.
  bool verify_timed_outputs = true;
  WorkerLimits limits;
  unsigned compile_threads = 0;   // 0 = all cores
  CompilerLimits compile_limits = compiler_limits_from_env();  // per compile, in the sandboxed compiler (compiler_pool.h)
};

struct DeviceSummary {
  nlohmann::json info;        // what the worker reports about its device
  double copy_gbps = 0;       // measured device-to-device copy bandwidth
};

// One variant's share of a `time` request.
struct TimedVariant {
  std::optional<TimingStats> stats;
  std::vector<double> samples_ms;     // event times in round order: index i of every variant is round i
  int launches = 0;                   // warm-up, timed and wall-time launches
  bool verified = false;              // the worker verified its timed outputs
  bool verification_passed = true;
  bool out_of_bounds = false;
  std::string verification_message;   // why not, in one line
};

struct TimedRun {
  std::vector<TimedVariant> variants;  // in request order
  std::string error;                   // the request failed: nothing was timed
  WorkerReply::Kind failure = WorkerReply::Kind::Ok;  // how it failed (TimedOut: a Timeout)
  int sets = 0;                        // buffer sets rotated (0: an older or Python worker)
  nlohmann::json overhead;             // worker-side cost of the sets and verification, ms
};

class Evaluator : public CandidateEvaluator {
 public:
  Evaluator(Task task, EvalOptions options);
  ~Evaluator() override;

  const Task& task() const override { return task_; }
  Backend& backend() { return *backend_; }
  const EvalOptions& options() const { return options_; }

  KernelVariant baseline_variant() const override;  // the original source with default params
  KernelVariant reference_variant() const;   // [reference], else the baseline

  // Compiles generated code in the sandboxed compiler (never in this process), through the
  // compile cache, after the include policy (backend/include_policy.h). A compiler crash,
  // timeout or memory limit is a failed result; a broken environment throws EnvironmentError.
  CompileResult compile(const KernelVariant& variant);
  std::vector<CompileResult> compile_all(const std::vector<KernelVariant>& variants) override;

  // Correctness on every problem size with fresh random inputs. Returns status Correct,
  // Incorrect, RuntimeError, Timeout or CompileError, with checks and a one-line message.
  // `seeds_per_size` 0: options().check_seeds.
  EvalResult check(const KernelVariant& variant, const CompileResult& compiled, int seeds_per_size = 0);
  // Times several variants in one worker session, interleaved in random order, rotating
  // buffer sets whose outputs are re-poisoned before each launch; for native kernels the
  // timed outputs are verified against the reference (`verify`).
  TimedRun time_variants(const std::vector<std::pair<const KernelVariant*, const CompileResult*>>& variants,
                         const std::string& size_name = "", bool verify = true);
  // time_variants without the details. An entry is empty if timing failed or its timed
  // outputs were wrong; `error` then says why.
  std::vector<std::optional<TimingStats>> time_together(
      const std::vector<std::pair<const KernelVariant*, const CompileResult*>>& variants, std::string& error,
      const std::string& size_name = "");
  // compile + check + time against the baseline in the same session.
  EvalResult evaluate(const KernelVariant& candidate);
  EvalResult evaluate_compiled(const KernelVariant& candidate, const CompileResult& compiled) override;

  DeviceSummary device();
  // What calibration found (per size: output tolerances, notes) and its warnings; filled by the
  // first check (empty for Python tasks).
  const nlohmann::json& calibration() const { return calibration_; }
  const std::vector<std::string>& calibration_warnings() const { return calibration_warnings_; }
  // Throughput figures of a timing on the timing size.
  void fill_throughput(EvalResult& result, const ParamValues& params) const;

 private:
  // A compiled variant as the worker loads it, with its launch resolved at `size` (throws
  // TaskError when the variant's parameters make an expression of the manifest invalid).
  VariantSpec variant_spec(const KernelVariant& variant, const CompileResult& compiled, const std::string& id,
                           const ProblemSize& size);
  std::string stage_binary(const CompileResult& compiled);
  const CompileResult& compiled_reference();
  const CompileResult& compiled_baseline();
  bool native_task() const;
  // Once per task, under worker_mutex_: memory limits of every size against the device, then
  // the tolerance calibration of every size. Throws TaskError for a manifest that cannot run.
  void prepare_checks();
  // Times baseline and candidate and fills `result` (timings, paired speedup and its CI,
  // throughput); false with `result` failed when timing or the timed-output check failed.
  bool time_against_baseline(EvalResult& result, const KernelVariant& candidate, const CompileResult& compiled,
                             int& launches);
  // Device-to-device copy bandwidth measured now, in the worker (not the cached figure); 0 on failure.
  double measure_copy_bandwidth_now();
  // The toolchain's target, initialised once (before compile threads start).
  CompileTarget compile_target();

  Task task_;
  EvalOptions options_;
  std::unique_ptr<Backend> backend_;
  WorkerProcess worker_;
  std::mutex worker_mutex_;
  CompilerPool compilers_;
  std::mutex target_mutex_;
  std::optional<CompileTarget> target_;
  std::optional<CompileResult> reference_compiled_;
  std::optional<CompileResult> baseline_compiled_;
  std::optional<DeviceSummary> device_;
  std::mt19937_64 seeds_;
  bool checks_prepared_ = false;
  TaskPlan plan_;  // the task as workers see it (protocol/plan.h)
  nlohmann::json calibration_ = nlohmann::json::object();  // size name -> {"tolerances": {...}, "outputs": [...]}
  std::map<std::string, std::map<std::string, OutputTolerance>> calibrated_;  // size -> output -> tolerance
  std::vector<std::string> calibration_warnings_;
};

std::string first_error_line(const std::string& compile_log);

}  // namespace kforge
