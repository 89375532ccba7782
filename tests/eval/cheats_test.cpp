// Planted cheats (tests/kernels/cheats, cheats_cuda): kernels that would report a speedup
// under a careless harness. Each must be refused with a message that says what was wrong.
// The OpenCL ones run on PoCL in CI; the CUDA twins run where a CUDA device exists.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <tuple>

#include "backend/backend.h"
#include "eval/evaluator.h"
#include "eval/timing.h"

namespace kforge {
namespace {

const std::filesystem::path kCheats = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/cheats";
const std::filesystem::path kCheatsCuda = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/cheats_cuda";

EvalOptions cheat_options() {
  EvalOptions options;
  // $KFORGE_WORKER where the tests run from a copied build (the GPU machine).
  const char* worker = std::getenv("KFORGE_WORKER");
  options.worker_executable = worker ? std::filesystem::path(worker)
                                     : std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
  options.check_timeout_s = 30;
  options.timing.max_seconds = 0.3;
  return options;
}

struct Cheat {
  const char* name;
  CandidateStatus expected;
  const char* message_part;  // the verdict must say this
};

void PrintTo(const Cheat& cheat, std::ostream* os) { *os << cheat.name; }

// Every cheat of the issue that a kernel can express, with the words the verdict must carry.
const Cheat kCheatList[] = {
    {"correct", CandidateStatus::Correct, "correct on 2 sizes"},
    {"reused_output", CandidateStatus::Incorrect, "results reused across calls"},
    {"aliased_output", CandidateStatus::Incorrect, "input 'b' was modified"},
    {"skipped_work", CandidateStatus::Incorrect, "output 'c'"},
    {"lowered_precision", CandidateStatus::Incorrect, "output 'c'"},
    {"first_size_only", CandidateStatus::Incorrect, "size 'odd'"},
    {"stale_read", CandidateStatus::Incorrect, "output 'c'"},
};

void expect_caught(const EvalResult& result, const Cheat& cheat) {
  EXPECT_EQ(to_string(result.status), to_string(cheat.expected)) << cheat.name << ": " << result.message;
  EXPECT_NE(result.message.find(cheat.message_part), std::string::npos)
      << cheat.name << ": the message does not say '" << cheat.message_part << "': " << result.message;
}

class OpenClCheat : public ::testing::TestWithParam<Cheat> {};

TEST_P(OpenClCheat, IsCaught) {
  const Availability availability = make_backend(Language::OpenCL)->probe();
  if (!availability.usable) GTEST_SKIP() << "no OpenCL device: " << availability.reason;
  const Cheat& cheat = GetParam();
  EvalOptions options = cheat_options();
  options.limits.memory_bytes = std::int64_t{16} << 30;
  Evaluator evaluator(load_task(kCheats / (std::string(cheat.name) + ".kforge.toml")), options);
  const EvalResult result = evaluator.evaluate(evaluator.baseline_variant());
  expect_caught(result, cheat);
  std::cout << "[ verdict ] " << cheat.name << ": " << to_string(result.status) << ": " << result.message << "\n";
}

// OpenCL also gets the static-flag form of reused_output (a program-scope counter, OpenCL C
// 2.0, which the CUDA twin of reused_output already is).
INSTANTIATE_TEST_SUITE_P(Planted, OpenClCheat,
                         ::testing::Values(kCheatList[0], kCheatList[1], kCheatList[2], kCheatList[3], kCheatList[4],
                                           kCheatList[5], kCheatList[6],
                                           Cheat{"reused_output_flag", CandidateStatus::Incorrect,
                                                 "results reused across calls"}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

class CudaCheat : public ::testing::TestWithParam<Cheat> {};

TEST_P(CudaCheat, IsCaught) {
  const Availability availability = make_backend(Language::Cuda)->probe();
  if (!availability.usable) GTEST_SKIP() << "no CUDA device: " << availability.reason;
  const Cheat& cheat = GetParam();
  EvalOptions options = cheat_options();
  options.limits.memory_bytes = 0;  // CUDA reserves large address ranges
  Evaluator evaluator(load_task(kCheatsCuda / (std::string(cheat.name) + ".kforge.toml")), options);
  const EvalResult result = evaluator.evaluate(evaluator.baseline_variant());
  expect_caught(result, cheat);
  std::cout << "[ verdict ] " << cheat.name << ": " << to_string(result.status) << ": " << result.message << "\n";
}

INSTANTIATE_TEST_SUITE_P(Planted, CudaCheat, ::testing::ValuesIn(kCheatList),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// One seed per size would let a kernel that computes once and then returns early through:
// the second seed is what reruns it on its own buffers.
TEST(Cheats, ReusedOutputNeedsTheSecondSeed) {
  const Availability availability = make_backend(Language::OpenCL)->probe();
  if (!availability.usable) GTEST_SKIP() << "no OpenCL device: " << availability.reason;
  EvalOptions options = cheat_options();
  options.limits.memory_bytes = std::int64_t{16} << 30;
  ASSERT_GE(options.check_seeds, 2) << "the default must rerun every candidate";
  options.check_seeds = 1;
  options.adversarial_draws = false;  // its extra seed would be a second seed
  Evaluator evaluator(load_task(kCheats / "reused_output.kforge.toml"), options);
  const EvalResult result = evaluator.check(evaluator.baseline_variant(), evaluator.compile(evaluator.baseline_variant()));
  EXPECT_EQ(to_string(result.status), "correct") << "with one seed the cheat is invisible; " << result.message;
}

// Without a GPU (CI) the CUDA twins are at least compiled with NVRTC, so a typo in them shows
// up before the GPU run. Skips where NVRTC is not installed.
TEST(CudaCheatSources, CompileWithNvrtc) {
  for (const Cheat& cheat : kCheatList) {
    Evaluator evaluator(load_task(kCheatsCuda / (std::string(cheat.name) + ".kforge.toml")), cheat_options());
    const CompileResult compiled = evaluator.compile(evaluator.baseline_variant());
    if (!compiled.ok && compiled.log.find("nvrtc") != std::string::npos && compiled.log.find("error:") == std::string::npos)
      GTEST_SKIP() << "NVRTC not usable: " << compiled.log;
    EXPECT_TRUE(compiled.ok) << cheat.name << ": " << compiled.log;
    EXPECT_GT(compiled.registers, 0) << cheat.name << ": ptxas stats missing: " << compiled.log;
  }
}

// Hidden work (another stream, deferred work) cannot be planted as a kernel: NVRTC has no
// device-side launches without relocatable device code, OpenCL 1.2 none at all. The check
// on the worker's wall-clock numbers is tested on synthetic statistics.
TimingStats stats(double median_ms, double wall_ms) {
  TimingStats s;
  s.median_ms = median_ms;
  s.wall_ms = wall_ms;
  s.samples = 100;
  return s;
}

TEST(TimingMismatch, FlagsWallTimeFarAboveTheEvents) {
  // Events see 0.1 ms, the host waits 2 ms; the baseline's overhead is 0.02 ms.
  const auto flagged = timing_mismatch(stats(0.1, 2.0), stats(1.0, 1.02));
  ASSERT_TRUE(flagged.has_value());
  EXPECT_NE(flagged->find("timing mismatch: work outside the timed stream"), std::string::npos) << *flagged;
}

TEST(TimingMismatch, AcceptsHonestKernels) {
  EXPECT_FALSE(timing_mismatch(stats(1.0, 1.05), stats(2.0, 2.05)));   // wall close to events
  EXPECT_FALSE(timing_mismatch(stats(0.002, 0.02), stats(0.004, 0.022)));  // tiny kernel: launch overhead
  // A host (PoCL) with a large launch overhead that the baseline shows too.
  EXPECT_FALSE(timing_mismatch(stats(0.05, 0.45), stats(0.2, 0.6)));
  EXPECT_FALSE(timing_mismatch(stats(0.05, 0), stats(0.2, 0)));  // no wall time measured
  EXPECT_FALSE(timing_mismatch(stats(0, 5), stats(0.2, 0.3)));
}

TEST(TimingMismatch, NeedsBothRatioAndAbsoluteExcess) {
  EXPECT_FALSE(timing_mismatch(stats(0.01, 0.055), stats(0.01, 0.011)));  // 5.5x but only 45 us extra
  EXPECT_TRUE(timing_mismatch(stats(0.01, 0.07), stats(0.01, 0.011)));    // 7x and 60 us extra
  EXPECT_FALSE(timing_mismatch(stats(1.0, 2.9), stats(1.0, 1.0)));        // under 3x
}

}  // namespace
}  // namespace kforge
