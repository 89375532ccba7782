// The orchestrator's evaluator: compiles variants (in parallel, cached), then checks and
// times them in a sandboxed worker process, classifying every failure instead of failing.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "eval/compiler_pool.h"
#include "eval/result.h"
#include "eval/timing.h"
#include "eval/worker_process.h"
#include "task/task.h"

namespace kforge {

struct EvalOptions {
  std::filesystem::path worker_executable = WorkerProcess::default_executable();
  int device_index = 0;
  int check_seeds = 2;            // fresh random inputs per seed, on every problem size
  double check_timeout_s = 30;    // per problem size
  double time_timeout_s = 120;
  TimingConfig timing;
  WorkerLimits limits;
  unsigned compile_threads = 0;   // 0 = all cores
  CompilerLimits compile_limits = compiler_limits_from_env();  // per compile, in the sandboxed compiler (compiler_pool.h)
};

struct DeviceSummary {
  nlohmann::json info;        // what the worker reports about its device
  double copy_gbps = 0;       // measured device-to-device copy bandwidth
};

class Evaluator {
 public:
  Evaluator(Task task, EvalOptions options);
  ~Evaluator();

  const Task& task() const { return task_; }
  Backend& backend() { return *backend_; }
  const EvalOptions& options() const { return options_; }

  KernelVariant baseline_variant() const;    // the original source with default params
  KernelVariant reference_variant() const;   // [reference], else the baseline

  // Compiles generated code in the sandboxed compiler (never in this process), through the
  // compile cache, after the include policy (backend/include_policy.h). A compiler crash,
  // timeout or memory limit is a failed result; a broken environment throws EnvironmentError.
  CompileResult compile(const KernelVariant& variant);
  std::vector<CompileResult> compile_all(const std::vector<KernelVariant>& variants);

  // Correctness on every problem size with fresh random inputs. Returns status Correct,
  // Incorrect, RuntimeError, Timeout or CompileError, with checks and a one-line message.
  EvalResult check(const KernelVariant& variant, const CompileResult& compiled);
  // Times several variants in one worker session, interleaved in random order. An entry is
  // empty if timing failed; `error` then says why.
  std::vector<std::optional<TimingStats>> time_together(
      const std::vector<std::pair<const KernelVariant*, const CompileResult*>>& variants, std::string& error,
      const std::string& size_name = "");
  // compile + check + time against the baseline in the same session.
  EvalResult evaluate(const KernelVariant& candidate);
  EvalResult evaluate_compiled(const KernelVariant& candidate, const CompileResult& compiled);

  DeviceSummary device();
  // Throughput figures of a timing on the timing size.
  void fill_throughput(EvalResult& result, const ParamValues& params) const;

 private:
  nlohmann::json variant_json(const KernelVariant& variant, const CompileResult& compiled,
                              const std::string& id);
  std::string stage_binary(const CompileResult& compiled);
  const CompileResult& compiled_reference();
  const CompileResult& compiled_baseline();
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
};

std::string first_error_line(const std::string& compile_log);

}  // namespace kforge
