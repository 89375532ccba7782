// The profiler's choice of tool and its fallbacks, driven through fake ncu executables, plus
// the device characterisation cache and the diagnosis text.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>

#include "profile/profiler.h"
#include "profile/subprocess.h"
#include "test_support.h"
#include "util/files.h"

namespace kforge {
namespace {
using test::TempDir;

std::filesystem::path example(const std::string& relative) {
  return std::filesystem::path(KFORGE_SOURCE_DIR) / "examples" / relative;
}

void write_script(const std::filesystem::path& path, const std::string& body) {
  write_file(path, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
}

DeviceCharacterization fake_h100() {
  DeviceCharacterization device;
  device.info.backend = "cuda";
  device.info.name = "NVIDIA H100 80GB HBM3";
  device.info.arch = "sm_90";
  device.info.compute_units = 132;
  device.info.clock_mhz = 1980;
  device.copy_gbps = 3000;
  device.estimated_fp32_gflops = estimated_fp32_gflops(device.info);
  return device;
}

struct CudaTarget {
  Task task = load_task(example("vector_add/cuda/kforge.toml"));
  ProfileTarget target;
  CudaTarget() {
    target.task = &task;
    target.params = task.default_params();
    target.compiled.ok = true;
    target.compiled.binary = "not a real cubin: the fake ncu never runs it";
    target.compiled.binary_format = "cubin";
    target.median_ms = 0.32;
  }
};

// Restores an environment variable when the test ends.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Subprocess, OutputExitCodeAndTimeout) {
  const CommandResult echo = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10);
  EXPECT_TRUE(echo.started);
  EXPECT_EQ(echo.exit_code, 3);
  EXPECT_NE(echo.output.find("out"), std::string::npos);
  EXPECT_NE(echo.output.find("err"), std::string::npos);
  const CommandResult slow = run_command({"sh", "-c", "sleep 30"}, 0.3);
  EXPECT_TRUE(slow.timed_out);
  const CommandResult missing = run_command({"/nonexistent/kforge-no-such-tool"}, 5);
  EXPECT_FALSE(missing.started);
  EXPECT_FALSE(missing.error.empty());
  EXPECT_TRUE(find_executable("sh"));
  EXPECT_FALSE(find_executable("kforge-no-such-tool-anywhere"));
}

TEST(Profiler, WithoutNcuFallsBackToTheAnalyticRoofline) {
  TempDir empty_path;
  const ScopedEnv path("PATH", empty_path.path().string());
  CudaTarget cuda;
  ProfilerOptions options;
  options.ncu = "/nonexistent/ncu";  // and not on PATH either
  const KernelProfile profile = profile_candidate(cuda.target, fake_h100(), options);
  EXPECT_EQ(profile.source, ProfileSource::Analytic);
  EXPECT_NE(profile.source_note.find("ncu not found"), std::string::npos);
  EXPECT_EQ(profile.bound, Bound::Memory);  // 805 MB in 0.32 ms = 2.5 TB/s of 3 TB/s
  EXPECT_NEAR(profile.achieved_gbps, 3 * 4 * 67108864 / 0.32e-3 / 1e9, 1e-6);
  EXPECT_NEAR(profile.peak_gflops, 66908.16, 1e-6);
}

TEST(Profiler, CountersSwitchedOffOrOpenClAreAnalytic) {
  CudaTarget cuda;
  ProfilerOptions options;
  options.use_counters = false;
  EXPECT_EQ(profile_candidate(cuda.target, fake_h100(), options).source_note, "hardware counters switched off");

  const Task opencl = load_task(example("vector_add/opencl/kforge.toml"));
  ProfileTarget target = cuda.target;
  target.task = &opencl;
  const KernelProfile profile = profile_candidate(target, fake_h100(), ProfilerOptions{});
  EXPECT_EQ(profile.source, ProfileSource::Analytic);
  EXPECT_EQ(profile.source_note, "no hardware counters for OpenCL on this device");
}

TEST(Profiler, RunsNcuOnTheOneShotWorkerAndParsesItsReport) {
  TempDir dir;
  const auto args_file = dir.path() / "args.txt";
  const std::string fixture = test::fixture("ncu_details_vector_add_synthetic.csv").string();
  // Stands in for ncu: records its arguments, "writes" the report, and on --import prints
  // the recorded CSV page.
  write_script(dir.path() / "ncu",
               "for a in \"$@\"; do [ \"$a\" = --import ] && { cat '" + fixture + "'; exit 0; }; done\n"
               "printf '%s\\n' \"$@\" > '" + args_file.string() + "'\n"
               "prev=; for a in \"$@\"; do [ \"$prev\" = -o ] && : > \"$a.ncu-rep\"; prev=$a; done\n"
               "echo '==PROF== Disconnected from process 1'\n");
  CudaTarget cuda;
  ProfilerOptions options;
  options.ncu = dir.path() / "ncu";
  options.worker_executable = "/opt/kforge/bin/kforge-worker";
  options.device_index = 1;
  const KernelProfile profile = profile_candidate(cuda.target, fake_h100(), options);
  EXPECT_EQ(profile.source, ProfileSource::Ncu) << profile.source_note;
  EXPECT_EQ(profile.bound, Bound::Memory);
  EXPECT_TRUE(profile.dram_throughput_pct);
  EXPECT_GT(profile.metrics.at("profiler_seconds"), 0);

  const std::string args = read_file(args_file);
  for (const char* expected : {"SpeedOfLight", "--launch-skip", "/opt/kforge/bin/kforge-worker", "--oneshot",
                               "--backend\ncuda\n--device\n1\n"})
    EXPECT_NE(args.find(expected), std::string::npos) << expected;
}

TEST(Profiler, CounterPermissionRefusalIsRememberedAndReported) {
  TempDir dir;
  const auto ncu = dir.path() / "ncu";
  const auto marker = dir.path() / "ran-again";
  write_script(ncu, "echo '==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
                    "Performance Counters on the target device 0.'\nexit 1\n");
  CudaTarget cuda;
  ProfilerOptions options;
  options.ncu = ncu;
  const KernelProfile first = profile_candidate(cuda.target, fake_h100(), options);
  EXPECT_EQ(first.source, ProfileSource::Analytic);
  EXPECT_NE(first.source_note.find("ERR_NVGPUCTRPERM"), std::string::npos);

  write_script(ncu, ": > '" + marker.string() + "'\nexit 1\n");
  const KernelProfile second = profile_candidate(cuda.target, fake_h100(), options);
  EXPECT_NE(second.source_note.find("ERR_NVGPUCTRPERM"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "ncu ran again after refusing counters";
}

TEST(Profiler, BrokenNcuRunsEndInTheAnalyticProfileWithTheReason) {
  TempDir dir;
  CudaTarget cuda;
  ProfilerOptions options;
  options.ncu = dir.path() / "ncu";
  write_script(options.ncu, "echo '==ERROR== LibraryNotLoaded: libnvperf_host.so'\nexit 1\n");
  EXPECT_NE(profile_candidate(cuda.target, fake_h100(), options).source_note.find("could not load"),
            std::string::npos);
  write_script(options.ncu, "echo '{\"error\":\"illegal address\",\"ok\":false}'\nexit 1\n");
  EXPECT_NE(profile_candidate(cuda.target, fake_h100(), options).source_note.find("illegal address"),
            std::string::npos);
  write_script(options.ncu, "sleep 30\n");
  options.timeout_s = 0.5;
  EXPECT_NE(profile_candidate(cuda.target, fake_h100(), options).source_note.find("timed out"), std::string::npos);
}

TEST(DeviceCharacterization, ProbesOnceAndKeepsTheEvaluatorsKeys) {
  TempDir cache;
  const ScopedEnv env("KFORGE_CACHE_DIR", cache.path().string());
  const nlohmann::json info = {{"backend", "opencl"}, {"name", "pthread-skylake-avx512-test"}, {"arch", "OpenCL 3.0"},
                               {"compute_units", 2}, {"l2_bytes", 1 << 20}, {"clock_mhz", 2000}, {"is_gpu", false}};
  // What Evaluator::device() leaves behind.
  write_file(device_cache_file(info), nlohmann::json{{"device", info}, {"copy_gbps", 12.5}}.dump());
  int calls = 0;
  double probe_flops = 0;
  const ProbeTimer timer = [&](const std::filesystem::path& manifest, std::string&) -> std::optional<double> {
    ++calls;
    const Task probe = load_task(manifest);  // the probe is a valid task
    probe_flops = *flops(probe, bindings_for(probe, probe.sizes.front(), probe.default_params()));
    return 2.0;
  };
  const DeviceCharacterization first = characterize_device(info, 0, timer);
  EXPECT_EQ(calls, 1);
  EXPECT_DOUBLE_EQ(first.copy_gbps, 12.5);
  ASSERT_TRUE(first.measured_fp32_gflops);
  EXPECT_NEAR(*first.measured_fp32_gflops, probe_flops / 2e-3 / 1e9, 1e-9);
  EXPECT_EQ(first.fp32_source(), "measured FMA chain");
  EXPECT_EQ(first.peaks().gbps, 12.5);

  const DeviceCharacterization second = characterize_device(info, 0, timer);
  EXPECT_EQ(calls, 1);  // cached
  EXPECT_DOUBLE_EQ(*second.measured_fp32_gflops, *first.measured_fp32_gflops);
  const auto record = nlohmann::json::parse(read_file(device_cache_file(info)));
  EXPECT_EQ(record["copy_gbps"], 12.5);
  EXPECT_EQ(record["device"], info);
}

TEST(DeviceCharacterization, AFailedProbeFallsBackToTheEstimate) {
  TempDir cache;
  const ScopedEnv env("KFORGE_CACHE_DIR", cache.path().string());
  const nlohmann::json info = {{"backend", "cuda"}, {"name", "NVIDIA H100 80GB HBM3"}, {"arch", "sm_90"},
                               {"compute_units", 132}, {"clock_mhz", 1980}, {"is_gpu", true}};
  const DeviceCharacterization device = characterize_device(
      info, 3000, [](const std::filesystem::path&, std::string& error) -> std::optional<double> {
        error = "no device";
        return std::nullopt;
      });
  EXPECT_FALSE(device.measured_fp32_gflops);
  EXPECT_EQ(device.probe_error, "no device");
  EXPECT_NEAR(device.fp32_gflops(), 66908.16, 1e-6);
  EXPECT_NE(device.fp32_source().find("estimate"), std::string::npos);
  EXPECT_TRUE(device.tensor_fp16_gflops);
  EXPECT_TRUE(nlohmann::json::parse(read_file(device_cache_file(info))).contains("fp32_probe"));
}

TEST(Diagnosis, NamesBoundSourceResourcesAndSuggestions) {
  KernelProfile profile = analytic_profile(12e6, 1e6, 1.0, {20, 400, std::nullopt, "", ""}, "ncu not found");
  CompileResult compiled;
  compiled.registers = 168;
  compiled.shared_bytes = 8192;
  compiled.spill_bytes = 48;
  const std::string text = diagnosis(profile, compiled);
  for (const char* expected : {"bound: memory", "source: analytic (ncu not found)", "roofline: ", "ridge at 20",
                               "168 registers/thread", "8192 B static shared", "48 B spilled", "register spills",
                               "try: "})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
}

}  // namespace
}  // namespace kforge
