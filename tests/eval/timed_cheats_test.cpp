// Timing-phase cheats (tests/kernels/cheats, cheats_cuda): kernels that are honest on the
// check's fresh inputs and do less work in the timing loop, and figures that cannot be true.
// Each is either rejected with a one-line reason (launch counters, impossible throughput) or
// neutralised (memoising on the output's content: re-poisoned outputs make it do the work, so
// it is not faster than the honest kernel). The OpenCL ones run on PoCL in CI; the CUDA twins
// compile with NVRTC here and run where a CUDA device exists (scripts/gpu_check.sh runs *Cuda*).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "backend/backend.h"
#include "eval/evaluator.h"
#include "eval/timing.h"
#include "util/files.h"

namespace kforge {
namespace {

const std::filesystem::path kCheats = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/cheats";
const std::filesystem::path kCheatsCuda = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/cheats_cuda";

EvalOptions options_for(Language language) {
  EvalOptions options;
  const char* worker = std::getenv("KFORGE_WORKER");  // a copied build (the GPU machine)
  options.worker_executable = worker ? std::filesystem::path(worker)
                                     : std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
  options.timing.max_seconds = 0.3;
  options.limits.memory_bytes = language == Language::Cuda ? 0 : std::int64_t{16} << 30;
  // Each test here shows one timing-phase defence: the adversarial check draws (which catch
  // some of these cheats first, when a draw full of zeros or ties collides with their caches)
  // are off, so the defence under test is the one that answers.
  options.adversarial_draws = false;
  return options;
}

std::string skip_reason(Language language) {
  const Availability availability = make_backend(language)->probe();
  return availability.usable ? "" : "no " + to_string(language) + " device: " + availability.reason;
}

const std::filesystem::path& folder(Language language) { return language == Language::Cuda ? kCheatsCuda : kCheats; }
std::string ext(Language language) { return language == Language::Cuda ? ".cu" : ".cl"; }

struct Rejected {
  const char* name;
  CandidateStatus expected;
  const char* message_part;  // the one-line reason must say this
  double max_seconds = 0.3;  // timing budget: a cache must first fill before its figures show
};
void PrintTo(const Rejected& cheat, std::ostream* os) { *os << cheat.name; }

// Cheats that must be rejected, with the words their verdict must carry.
const Rejected kRejected[] = {
    {"launch_count", CandidateStatus::Incorrect, "timed launches: buffer set"},
    {"overstated_flops", CandidateStatus::Incorrect, "impossible throughput"},
    {"overstated_bytes", CandidateStatus::Incorrect, "impossible throughput"},
    {"cached_sgemm", CandidateStatus::Incorrect, "impossible throughput", 2.0},
};

void expect_rejected(Language language, const Rejected& cheat) {
  EvalOptions options = options_for(language);
  options.timing.max_seconds = cheat.max_seconds;
  Evaluator evaluator(load_task(folder(language) / (std::string(cheat.name) + ".kforge.toml")), options);
  const EvalResult result = evaluator.evaluate(evaluator.baseline_variant());
  EXPECT_EQ(to_string(result.status), to_string(cheat.expected)) << cheat.name << ": " << result.message;
  EXPECT_NE(result.message.find(cheat.message_part), std::string::npos)
      << cheat.name << ": the message does not say '" << cheat.message_part << "': " << result.message;
  EXPECT_EQ(result.message.find('\n'), std::string::npos) << "one line: " << result.message;
  std::cout << "[ verdict ] " << cheat.name << ": " << to_string(result.status) << ": " << result.message << "\n";
}

class OpenClTimedCheat : public ::testing::TestWithParam<Rejected> {};
TEST_P(OpenClTimedCheat, IsRejected) {
  if (const auto why = skip_reason(Language::OpenCL); !why.empty()) GTEST_SKIP() << why;
  expect_rejected(Language::OpenCL, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Planted, OpenClTimedCheat, ::testing::ValuesIn(kRejected),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

class CudaTimedCheat : public ::testing::TestWithParam<Rejected> {};
TEST_P(CudaTimedCheat, IsRejected) {
  if (const auto why = skip_reason(Language::Cuda); !why.empty()) GTEST_SKIP() << why;
  expect_rejected(Language::Cuda, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Planted, CudaTimedCheat, ::testing::ValuesIn(kRejected),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// Without the timed-output verification the re-check after timing still catches the launch
// counter: the program-scope state carries over in the same worker.
void expect_recheck_catches_launch_count(Language language) {
  EvalOptions options = options_for(language);
  options.verify_timed_outputs = false;
  Evaluator evaluator(load_task(folder(language) / "launch_count.kforge.toml"), options);
  const EvalResult result = evaluator.evaluate(evaluator.baseline_variant());
  EXPECT_EQ(to_string(result.status), "incorrect") << result.message;
  EXPECT_NE(result.message.find("correct before timing, wrong after"), std::string::npos) << result.message;
  std::cout << "[ verdict ] launch_count (timed outputs not verified): " << result.message << "\n";
}
TEST(TimedCheats, OpenClRecheckAfterTimingCatchesALaunchCounter) {
  if (const auto why = skip_reason(Language::OpenCL); !why.empty()) GTEST_SKIP() << why;
  expect_recheck_catches_launch_count(Language::OpenCL);
}
TEST(TimedCheats, CudaRecheckAfterTimingCatchesALaunchCounter) {
  if (const auto why = skip_reason(Language::Cuda); !why.empty()) GTEST_SKIP() << why;
  expect_recheck_catches_launch_count(Language::Cuda);
}

struct Neutralised {
  const char* name;
  const char* honest;  // the honest kernel it is timed against, in the same folder
};
void PrintTo(const Neutralised& cheat, std::ostream* os) { *os << cheat.name; }

// Cheats that depend on their output surviving from one launch to the next: with outputs
// re-poisoned before every timed launch they do all their work, so they are correct and no
// faster than the honest kernel (each was 9x to 140x faster on unchanged buffers), or they are
// caught by a later check.
const Neutralised kNeutralised[] = {
    {"memo_output", "correct"},
    {"launch_count_mantissa", "correct"},
    {"memo_sgemm", "sgemm_honest"},
};

void expect_neutralised(Language language, const Neutralised& cheat) {
  Evaluator evaluator(load_task(folder(language) / (std::string(cheat.name) + ".kforge.toml")), options_for(language));
  const KernelVariant memo = evaluator.baseline_variant();
  const EvalResult result = evaluator.evaluate(memo);
  // Neutralised means no win: it is correct and no faster, or caught outright (the re-check's
  // tie and zero draws can make a sampled output element match by chance, and the stale rest
  // of the output then fails) - never a verified speedup.
  const std::string status = to_string(result.status);
  EXPECT_TRUE(status == "correct" || status == "incorrect") << cheat.name << ": " << status << ": " << result.message;
  KernelVariant honest = memo;
  honest.source = read_file(folder(language) / (std::string(cheat.honest) + ext(language)));
  const CompileResult honest_compiled = evaluator.compile(honest);
  const CompileResult memo_compiled = evaluator.compile(memo);
  ASSERT_TRUE(honest_compiled.ok && memo_compiled.ok) << honest_compiled.log << memo_compiled.log;
  // On a loaded machine one timing may get too few rounds for an interval (ci_low 0): a median
  // of a handful of ratios judges nothing, so the timing is repeated until it has one.
  TimedRun run;
  SpeedupEstimate speedup;
  for (int attempt = 0; attempt < 3; ++attempt) {
    run = evaluator.time_variants({{&honest, &honest_compiled}, {&memo, &memo_compiled}});
    ASSERT_TRUE(run.error.empty()) << run.error;
    speedup = paired_speedup(run.variants[0].samples_ms, run.variants[1].samples_ms);
    if (speedup.ci_low > 0) break;
  }
  EXPECT_TRUE(run.variants[1].verified && run.variants[1].verification_passed) << run.variants[1].verification_message;
  EXPECT_LT(speedup.median, 1.5) << cheat.name << " is still faster than the honest kernel when timed";
  std::cout << "[ verdict ] " << cheat.name << ": " << to_string(result.status) << "; vs the honest kernel "
            << speedup.median << "x (95% CI " << speedup.ci_low << "-" << speedup.ci_high << ", " << run.sets
            << " buffer sets)\n";
}

class OpenClNeutralisedCheat : public ::testing::TestWithParam<Neutralised> {};
TEST_P(OpenClNeutralisedCheat, GainsNothing) {
  if (const auto why = skip_reason(Language::OpenCL); !why.empty()) GTEST_SKIP() << why;
  expect_neutralised(Language::OpenCL, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Planted, OpenClNeutralisedCheat, ::testing::ValuesIn(kNeutralised),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

class CudaNeutralisedCheat : public ::testing::TestWithParam<Neutralised> {};
TEST_P(CudaNeutralisedCheat, GainsNothing) {
  if (const auto why = skip_reason(Language::Cuda); !why.empty()) GTEST_SKIP() << why;
  expect_neutralised(Language::Cuda, GetParam());
}
INSTANTIATE_TEST_SUITE_P(Planted, CudaNeutralisedCheat, ::testing::ValuesIn(kNeutralised),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// Without a GPU the CUDA twins are at least compiled with NVRTC. Skips where NVRTC is absent.
TEST(CudaTimedCheatSources, CompileWithNvrtc) {
  std::vector<std::string> names;
  for (const auto& cheat : kRejected) names.push_back(cheat.name);
  for (const auto& cheat : kNeutralised) names.push_back(cheat.name);
  for (const auto& name : names) {
    Evaluator evaluator(load_task(kCheatsCuda / (name + ".kforge.toml")), options_for(Language::Cuda));
    std::vector<KernelVariant> variants{evaluator.baseline_variant(), evaluator.reference_variant()};
    for (const auto& cheat : kNeutralised)
      if (name == cheat.name) {
        variants.push_back(evaluator.baseline_variant());
        variants.back().source = read_file(kCheatsCuda / (std::string(cheat.honest) + ".cu"));
      }
    for (const KernelVariant& variant : variants) {
      const CompileResult compiled = evaluator.compile(variant);
      if (!compiled.ok && compiled.log.find("nvrtc") != std::string::npos && compiled.log.find("error:") == std::string::npos)
        GTEST_SKIP() << "NVRTC not usable: " << compiled.log;
      EXPECT_TRUE(compiled.ok) << name << ": " << compiled.log;
    }
  }
}

// A candidate as fast as the baseline (the same kernel, textually different so it is not the
// original itself) must not count as faster: its speedup's CI must include 1. The CI is at
// 95%, so about 1 evaluation in 40 excludes 1 by chance; counting a same-speed candidate as
// faster whenever its median ratio is above 1 would do so about half the time.
TEST(WinsInsideTheNoise, ASameSpeedCandidateIsNotCountedAsFaster) {
  if (const auto why = skip_reason(Language::OpenCL); !why.empty()) GTEST_SKIP() << why;
  Evaluator evaluator(load_task(kCheats / "correct.kforge.toml"), options_for(Language::OpenCL));
  KernelVariant twin = evaluator.baseline_variant();
  twin.source += "\n// the same kernel, one comment longer\n";
  const CompileResult compiled = evaluator.compile(twin);
  constexpr int kEvaluations = 10;
  int significant = 0, median_above_one = 0;
  for (int i = 0; i < kEvaluations; ++i) {
    const EvalResult result = evaluator.evaluate_compiled(twin, compiled);
    ASSERT_EQ(to_string(result.status), "correct") << result.message;
    ASSERT_GT(result.speedup_rounds, 0);
    EXPECT_LE(result.speedup_ci_low, result.speedup);
    EXPECT_GE(result.speedup_ci_high, result.speedup);
    significant += result.speedup_ci_low > 1 ? 1 : 0;
    median_above_one += result.speedup > 1 ? 1 : 0;
  }
  std::cout << "[ verdict ] same-speed twin: faster by the CI rule in " << significant << " of " << kEvaluations
            << " evaluations; median ratio above 1 in " << median_above_one << "\n";
  EXPECT_LE(significant, 2) << "a same-speed candidate counted as faster";
}

}  // namespace
}  // namespace kforge

namespace kforge {
namespace {

// What the timing-phase verification costs on the bundled examples (the figures in
// docs/RELIABILITY.md). A measurement, not a check: run it with
// `test_eval --gtest_also_run_disabled_tests --gtest_filter='*MeasureTimingVerificationCost*'`.
TEST(TimedCheats, DISABLED_MeasureTimingVerificationCost) {
  if (const auto why = skip_reason(Language::OpenCL); !why.empty()) GTEST_SKIP() << why;
  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  for (const char* example : {"vector_add", "sgemm"}) {
    const auto manifest = std::filesystem::path(KFORGE_SOURCE_DIR) / "examples" / example / "opencl/kforge.toml";
    for (bool verify : {false, true}) {
      EvalOptions options = options_for(Language::OpenCL);
      options.timing = TimingConfig{};  // the defaults kforge runs with
      options.verify_timed_outputs = verify;
      Evaluator evaluator(load_task(manifest), options);
      const KernelVariant variant = evaluator.baseline_variant();
      const CompileResult compiled = evaluator.compile(variant);
      evaluator.evaluate_compiled(variant, compiled);  // warm: worker, device cache, kernels
      constexpr int kRepeats = 3;
      double time_ms = 0, recheck_ms = 0, prepare_ms = 0, reset_ms = 0, verify_ms = 0;
      int sets = 0;
      for (int i = 0; i < kRepeats; ++i) {
        auto start = Clock::now();
        const TimedRun run = evaluator.time_variants({{&variant, &compiled}, {&variant, &compiled}});
        time_ms += ms_since(start) / kRepeats;
        sets = run.sets;
        prepare_ms += run.overhead.value("prepare_ms", 0.0) / kRepeats;
        reset_ms += run.overhead.value("reset_ms", 0.0) / kRepeats;
        verify_ms += run.overhead.value("verify_ms", 0.0) / kRepeats;
        start = Clock::now();
        evaluator.check(variant, compiled, 1);
        recheck_ms += ms_since(start) / kRepeats;
      }
      std::cout << "[ cost ] " << example << (verify ? " verified" : " unverified") << ": time request " << time_ms
                << " ms (sets " << sets << ", prepare " << prepare_ms << " ms, re-poison " << reset_ms
                << " ms, verify " << verify_ms << " ms); re-check after timing " << recheck_ms << " ms\n";
    }
  }
}

}  // namespace
}  // namespace kforge
