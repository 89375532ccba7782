#include "profile/profiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "profile/csv.h"
#include "profile/ncu.h"
#include "profile/rocprof.h"
#include "profile/subprocess.h"
#include "protocol/plan_resolve.h"
#include "protocol/worker_protocol.h"
#include "util/files.h"

namespace kforge {
namespace {
using nlohmann::json;
using Clock = std::chrono::steady_clock;

// A refusal to read counters (ERR_NVGPUCTRPERM) lasts as long as the driver setting, so
// after the first one every later candidate goes straight to the analytic roofline.
// Remembered per ncu executable, the only thing a process could change between calls.
std::mutex refusal_mutex;
std::map<std::string, std::string> counters_refused;

std::string remembered_refusal(const std::filesystem::path& ncu) {
  std::lock_guard lock(refusal_mutex);
  const auto it = counters_refused.find(ncu.string());
  return it == counters_refused.end() ? "" : it->second;
}

void remember_refusal(const std::filesystem::path& ncu, const std::string& reason) {
  std::lock_guard lock(refusal_mutex);
  counters_refused[ncu.string()] = reason;
}

// A private folder for the request, the binary and the profiler's files; removed on exit.
class ScratchDir {
 public:
  ScratchDir() {
    char pattern[] = "/tmp/kforge-profile-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("cannot create a temp folder in /tmp");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

const ProblemSize& size_of(const ProfileTarget& target) {
  for (const auto& size : target.task->sizes)
    if (size.name == target.size_name) return size;
  return target.task->sizes.front();
}

TaskWork task_work(const ProfileTarget& target) {
  const Bindings bindings = bindings_for(*target.task, size_of(target), target.params);
  return {bytes_moved(*target.task, bindings), flops(*target.task, bindings)};
}

// The worker's one-shot request: a "time" with one sample, so the kernel runs a few warm-up
// launches and then once more; the profiler picks a warm launch by its launch-skip.
json oneshot_request(const ProfileTarget& target, const std::filesystem::path& binary) {
  const std::string entry = target.compiled.lowered_name.empty() ? target.task->kernel.kernel
                                                                 : target.compiled.lowered_name;
  TimeRequest request;
  request.task = plan_task(*target.task);
  request.size = size_of(target).name;
  request.variants.push_back({"0", binary.string(), target.compiled.binary_format, entry, target.params,
                              plan_launch(*target.task, size_of(target), target.params)});
  request.seed = 1;
  request.timing = {0.0, 1, 1, 1.0, 1.0, false};  // warmup_ms, min/max samples, max_seconds, rel_ci, flush
  return to_json(request);
}

std::vector<std::string> worker_command(const ProfileTarget& target, const ProfilerOptions& options,
                                        const std::filesystem::path& request_file) {
  return {options.worker_executable.string(), "--backend", to_string(target.task->kernel.language), "--device",
          std::to_string(options.device_index), "--oneshot", request_file.string()};
}

std::filesystem::path write_request(const ProfileTarget& target, const ScratchDir& scratch) {
  const auto binary = scratch.path() / "kernel.bin";
  write_file(binary, target.compiled.binary);
  const auto request = scratch.path() / "request.json";
  write_file(request, oneshot_request(target, binary).dump());
  return request;
}

// The worker answers {"ok": false, ...} on stdout when the kernel itself failed.
std::string worker_error(const std::string& output) {
  for (const auto& line : csv::split_lines(output)) {
    if (line.empty() || line.front() != '{' || line.find("\"ok\":false") == std::string::npos) continue;
    try {
      return "the worker failed: " + json::parse(line).value("error", std::string("unknown error"));
    } catch (const std::exception&) {
      return "the worker failed";
    }
  }
  return "";
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Attempt {
  std::optional<KernelProfile> profile;
  std::string failure;
};

// KFORGE_KEEP_PROFILE=DIR keeps ncu's report and its CSV (to record parser fixtures).
void keep_for_inspection(const std::filesystem::path& report, const std::string& csv) {
  const char* keep = std::getenv("KFORGE_KEEP_PROFILE");
  if (keep == nullptr || *keep == 0) return;
  std::error_code ignored;
  std::filesystem::create_directories(keep, ignored);
  const auto stem = std::filesystem::path(keep) / std::to_string(::getpid());
  std::filesystem::copy_file(report, stem.string() + ".ncu-rep", std::filesystem::copy_options::overwrite_existing, ignored);
  std::ofstream(stem.string() + ".csv") << csv;
}

Attempt run_ncu(const ProfileTarget& target, const DevicePeaks& peaks, const ProfilerOptions& options,
                const std::filesystem::path& ncu) {
  const auto start = Clock::now();
  ScratchDir scratch;
  NcuInvocation invocation;
  invocation.ncu = ncu;
  invocation.kernel = target.task->kernel.kernel;
  invocation.report = scratch.path() / "profile";
  invocation.target = worker_command(target, options, write_request(target, scratch));
  const CommandResult run = run_command(ncu_profile_command(invocation), options.timeout_s);
  if (run.timed_out) return {std::nullopt, fmt::format("ncu timed out after {:.0f} s", options.timeout_s)};
  if (!run.started) return {std::nullopt, run.error};
  const NcuFailure failure = diagnose_ncu_failure(run.exit_code, run.output);
  if (failure.counters_forbidden) remember_refusal(ncu, failure.reason);
  if (const std::string worker = worker_error(run.output); !worker.empty()) return {std::nullopt, worker};
  const auto report = scratch.path() / "profile.ncu-rep";
  if (!std::filesystem::exists(report))
    return {std::nullopt, failure.reason.empty() ? "ncu wrote no report" : failure.reason};
  const CommandResult import = run_command(ncu_import_command(ncu, report), options.timeout_s);
  keep_for_inspection(report, import.output);
  const NcuParse parsed = parse_ncu_csv(import.output);
  if (parsed.kernels.empty())
    return {std::nullopt, failure.reason.empty() ? "ncu's report holds no kernel" : failure.reason};
  const NcuKernel& kernel = parsed.kernels.front();
  // Without a duration every rate would read 0: better the analytic roofline, saying why.
  if (!kernel.get("Duration") && !kernel.get("gpu__time_duration.sum"))
    return {std::nullopt, fmt::format("ncu's CSV gave no duration for {} ({} of its lines unreadable)", kernel.name,
                                      parsed.skipped_lines)};
  KernelProfile profile = profile_from_ncu(kernel, task_work(target), peaks);
  profile.metrics["profiler_seconds"] = seconds_since(start);
  return {profile, ""};
}

Attempt run_rocprofv3(const ProfileTarget& target, const DevicePeaks& peaks, const ProfilerOptions& options,
                      const std::filesystem::path& rocprofv3) {
  const auto start = Clock::now();
  ScratchDir scratch;
  const auto out_dir = scratch.path() / "rocprof";
  const std::vector<std::string> counters = {"FETCH_SIZE", "WRITE_SIZE"};
  const CommandResult run = run_command(
      rocprofv3_command(rocprofv3, out_dir, counters, worker_command(target, options, write_request(target, scratch))),
      options.timeout_s);
  if (run.timed_out) return {std::nullopt, fmt::format("rocprofv3 timed out after {:.0f} s", options.timeout_s)};
  if (!run.started) return {std::nullopt, run.error};
  if (const std::string worker = worker_error(run.output); !worker.empty()) return {std::nullopt, worker};
  std::vector<RocDispatch> dispatches;
  for (const auto& file : find_outputs(out_dir, "kernel_trace.csv")) {
    auto more = parse_rocprofv3_kernel_trace(read_file(file));
    dispatches.insert(dispatches.end(), more.begin(), more.end());
  }
  const auto dispatch = find_dispatch(dispatches, target.task->kernel.kernel);
  if (!dispatch) return {std::nullopt, fmt::format("rocprofv3 recorded no dispatch of {} (exit status {})",
                                                   target.task->kernel.kernel, run.exit_code)};
  std::vector<RocCounterDispatch> counted;
  for (const auto& file : find_outputs(out_dir, "counter_collection.csv")) {
    auto more = parse_rocprofv3_counters(read_file(file));
    counted.insert(counted.end(), more.begin(), more.end());
  }
  const RocCounterDispatch* counters_of_kernel = nullptr;
  for (const auto& entry : counted)
    if (entry.kernel_name == dispatch->kernel_name) counters_of_kernel = &entry;
  KernelProfile profile = profile_from_rocprofv3(*dispatch, counters_of_kernel, task_work(target), peaks);
  profile.metrics["profiler_seconds"] = seconds_since(start);
  return {profile, ""};
}

// Which hardware profiler applies, or why none does.
Attempt try_counters(const ProfileTarget& target, const DeviceCharacterization& device, const ProfilerOptions& options) {
  if (!options.use_counters) return {std::nullopt, "hardware counters switched off"};
  const LanguageFacts& language = language_facts(target.task->kernel.language);
  if (language.profiler == HardwareProfiler::Ncu) {
    const auto ncu = find_ncu(options.ncu);
    if (!ncu) return {std::nullopt, "ncu not found (searched $PATH and /usr/local/cuda/bin)"};
    if (const std::string refused = remembered_refusal(*ncu); !refused.empty()) return {std::nullopt, refused};
    return run_ncu(target, device.peaks(), options, *ncu);
  }
  if (language.profiler == HardwareProfiler::Rocprofv3) {
    const auto rocprofv3 = find_rocprofv3(options.rocprofv3);
    if (!rocprofv3) return {std::nullopt, "rocprofv3 not found (searched $PATH and /opt/rocm/bin)"};
    return run_rocprofv3(target, device.peaks(), options, *rocprofv3);
  }
  return {std::nullopt, language.no_profiler_reason};
}

std::string pct(const std::optional<double>& value) { return value ? fmt::format("{:.0f}%", *value) : "-"; }

std::string counters_line(const KernelProfile& p) {
  if (!p.sm_throughput_pct && !p.memory_throughput_pct) return "";
  std::string line = fmt::format("counters: SM {}, memory {}, DRAM {}", pct(p.sm_throughput_pct),
                                 pct(p.memory_throughput_pct), pct(p.dram_throughput_pct));
  if (p.achieved_occupancy_pct)
    line += fmt::format(", occupancy {} of {} theoretical", pct(p.achieved_occupancy_pct),
                        pct(p.theoretical_occupancy_pct));
  if (p.l1_hit_rate_pct) line += fmt::format(", L1 hit {}", pct(p.l1_hit_rate_pct));
  if (p.l2_hit_rate_pct) line += fmt::format(", L2 hit {}", pct(p.l2_hit_rate_pct));
  return line + "\n";
}

std::string resources_line(const KernelProfile& p, const CompileResult& c) {
  const int registers = c.registers >= 0 ? c.registers : p.registers_per_thread.value_or(-1);
  if (registers < 0 && c.shared_bytes < 0 && c.spill_bytes < 0) return "";
  std::string line = "resources:";
  if (registers >= 0) line += fmt::format(" {} registers/thread,", registers);
  if (c.shared_bytes >= 0) line += fmt::format(" {} B static shared,", c.shared_bytes);
  if (c.spill_bytes >= 0) line += fmt::format(" {} B spilled,", c.spill_bytes);
  line.pop_back();
  return line + "\n";
}

std::vector<Limiter> compile_limiters(const CompileResult& c) {
  std::vector<Limiter> limiters;
  if (c.spill_bytes > 0)
    limiters.push_back({fmt::format("{} bytes of register spills go through local memory", c.spill_bytes),
                        "keep fewer values live: smaller per-thread tiles, less unrolling, or a register cap that "
                        "does not force spills"});
  if (c.registers > 128)
    limiters.push_back({fmt::format("{} registers per thread allow few warps per SM", c.registers),
                        "trade some per-thread reuse for occupancy: smaller register tiles"});
  return limiters;
}
}  // namespace

std::optional<std::filesystem::path> find_ncu(const std::filesystem::path& preferred) {
  if (!preferred.empty()) return find_executable(preferred.string());
  return find_executable("ncu", {"/usr/local/cuda/bin"});
}

std::optional<std::filesystem::path> find_rocprofv3(const std::filesystem::path& preferred) {
  if (!preferred.empty()) return find_executable(preferred.string());
  return find_executable("rocprofv3", {"/opt/rocm/bin"});
}

KernelProfile profile_candidate(const ProfileTarget& target, const DeviceCharacterization& device,
                                const ProfilerOptions& options) {
  if (!target.task || target.task->sizes.empty()) throw std::invalid_argument("profile_candidate: no task");
  Attempt attempt;
  try {
    attempt = try_counters(target, device, options);
  } catch (const std::exception& e) {
    attempt = {std::nullopt, std::string("profiler failed: ") + e.what()};
  }
  if (attempt.profile) return *attempt.profile;
  const TaskWork work = task_work(target);
  return analytic_profile(work.bytes, work.flops, target.median_ms, device.peaks(), attempt.failure);
}

std::string diagnosis(const KernelProfile& p, const CompileResult& compiled) {
  std::string text = fmt::format("bound: {}\n", to_string(p.bound));
  text += fmt::format("source: {}{}\n", to_string(p.source), p.source_note.empty() ? "" : " (" + p.source_note + ")");
  text += fmt::format("roofline: {:.3g} FLOP/B; {:.1f} GB/s = {:.0f}% of {:.1f} GB/s; {:.1f} GFLOP/s = {:.1f}% of "
                      "{:.0f} GFLOP/s",
                      p.arithmetic_intensity, p.achieved_gbps, p.bandwidth_pct, p.peak_gbps, p.achieved_gflops,
                      p.compute_pct, p.peak_gflops);
  if (p.peak_gbps > 0 && p.peak_gflops > 0)
    text += fmt::format("; ridge at {:.3g} FLOP/B", p.peak_gflops / p.peak_gbps);
  text += fmt::format("\nlatency: {:.4f} ms\n", p.duration_ms);
  text += counters_line(p);
  text += resources_line(p, compiled);
  std::vector<Limiter> limiters = p.limiters;
  for (auto& limiter : compile_limiters(compiled)) limiters.push_back(std::move(limiter));
  if (!limiters.empty()) text += "limiters:\n";
  for (std::size_t i = 0; i < limiters.size() && i < 5; ++i)
    text += fmt::format("  {}. {}\n     try: {}\n", i + 1, limiters[i].finding, limiters[i].suggestion);
  return text;
}

}  // namespace kforge
