// Check inputs and tolerances: kernels right only on the manifest's input distribution, and
// tolerances looser than the data. Planted kernels in tests/kernels/cheats_inputs (OpenCL, run
// on PoCL) and tests/kernels/cheats_inputs_cuda (CUDA twins: compiled with NVRTC here, run
// where a GPU is). Each planted test also shows that without the defence the kernel passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <string>

#include "backend/backend.h"
#include "eval/calibration.h"
#include "eval/check_inputs.h"
#include "eval/check_tolerance.h"
#include "eval/evaluator.h"
#include "eval/host_buffer.h"

namespace kforge {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = fs::path(KFORGE_SOURCE_DIR);
const fs::path kPlanted = kSource / "tests/kernels/cheats_inputs";
const fs::path kPlantedCuda = kSource / "tests/kernels/cheats_inputs_cuda";

EvalOptions options_for(Language language) {
  EvalOptions options;
  const char* worker = std::getenv("KFORGE_WORKER");  // a copied build (the GPU machine)
  options.worker_executable = worker ? fs::path(worker) : fs::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
  options.check_timeout_s = 120;
  options.timing.max_seconds = 0.3;
  options.limits.memory_bytes = language == Language::OpenCL ? std::int64_t{16} << 30 : 0;
  options.seed = 12345;  // the verdicts below do not depend on it; fixed so a failure reproduces
  return options;
}

std::optional<std::string> unusable(Language language) {
  const Availability availability = make_backend(language)->probe();
  if (availability.usable) return std::nullopt;
  return availability.reason;
}

EvalResult check_original(const fs::path& manifest, const EvalOptions& options) {
  Evaluator evaluator(load_task(manifest), options);
  const KernelVariant original = evaluator.baseline_variant();
  return evaluator.check(original, evaluator.compile(original));
}

// ---------------------------------------------------------------------------------------------
// The schedule and the distributions

TEST(CheckDraws, EverySizeStartsWithTheManifestAndEveryDrawIsUsed) {
  const std::vector<std::string> draws{"declared1", "wide", "large", "special", "ties"};
  const auto per_size = draws_per_size(2, 3, draws);  // 2 sizes x (1 manifest + >= 2 others)
  ASSERT_EQ(per_size.size(), 2u);
  std::set<std::string> used;
  for (const auto& seeds : per_size) {
    EXPECT_EQ(seeds.front(), "manifest");
    used.insert(seeds.begin() + 1, seeds.end());
  }
  EXPECT_EQ(used, std::set<std::string>(draws.begin(), draws.end())) << "5 draws need 3 per size on 2 sizes";
  EXPECT_EQ(draws_per_size(1, 2, {}).front(), (std::vector<std::string>{"manifest", "manifest"}));
}

TEST(CheckDraws, BuiltinDrawsSkipIntegersConstantsAndOptedOutArguments) {
  const Task task = load_task(kSource / "examples/sum_reduction/opencl/kforge.toml");
  EXPECT_EQ(check_draws(task), (std::vector<std::string>{"wide", "large", "special", "ties"}));
  const DrawPlan large = plan_draw(task, "large");
  EXPECT_EQ(large.distributions[0], "large(1000,10000)") << "x: uniform(0,1) -> |x| in [1e3, 1e4]";
  EXPECT_EQ(large.distributions[2], "ones") << "acc is scratch (init ones): it keeps its init";
  EXPECT_EQ(large.distributions[3], "ones") << "count is an integer: it keeps its init";
  EXPECT_EQ(plan_draw(task, "wide").distributions[0], "uniform(-7.5,8.5)");
  EXPECT_EQ(large.describe(task.args), "'large' (x = large(1000,10000))");
  const Task histogram = load_task(kSource / "examples/histogram/opencl/kforge.toml");
  EXPECT_TRUE(check_draws(histogram).empty()) << "integer data (bins) keeps its declared range";
  Task opted_out = task;
  opted_out.args[0].adversarial = false;
  EXPECT_TRUE(check_draws(opted_out).empty());
  opted_out.args[0].check_inits = {"uniform(0,1000)"};
  EXPECT_EQ(check_draws(opted_out), (std::vector<std::string>{"declared1"}));
  EXPECT_EQ(plan_draw(opted_out, "declared1").distributions[0], "uniform(0,1000)");
}

TEST(CheckDraws, DistributionsDrawWhatTheySay) {
  HostBuffer buffer = make_buffer(DType::F32, 100000);
  fill_random(buffer, "special(-1,1)", 7);
  int negative_zeros = 0, subnormals = 0, zeros = 0;
  for (std::int64_t i = 0; i < buffer.count; ++i) {
    const double v = buffer.get(i);
    if (v == 0 && std::signbit(v)) ++negative_zeros;
    if (v == 0) ++zeros;
    if (v != 0 && std::fabs(v) < 0x1.0p-126) ++subnormals;
  }
  EXPECT_NEAR(negative_zeros / 1e5, 0.15, 0.01);
  EXPECT_NEAR(zeros / 1e5, 0.40, 0.01);
  EXPECT_NEAR(subnormals / 1e5, 0.20, 0.01);
  fill_random(buffer, "large(1000,10000)", 7);
  int negative = 0;
  for (std::int64_t i = 0; i < buffer.count; ++i) {
    ASSERT_GE(std::fabs(buffer.get(i)), 1000);
    ASSERT_LE(std::fabs(buffer.get(i)), 10000);
    negative += buffer.get(i) < 0;
  }
  EXPECT_NEAR(negative / 1e5, 0.5, 0.01);
  fill_random(buffer, "ties(-4,4)", 7);
  std::set<double> values;
  for (std::int64_t i = 0; i < buffer.count; ++i) values.insert(buffer.get(i));
  EXPECT_EQ(values, (std::set<double>{-4, -2, 0, 2, 4}));
  HostBuffer half = make_buffer(DType::F16, 1000);
  fill_random(half, "denormal", 7);
  for (std::int64_t i = 0; i < half.count; ++i) {
    ASSERT_NE(half.get(i), 0);
    ASSERT_LT(std::fabs(half.get(i)), 0x1.0p-14) << "f16 subnormals are below 2^-14";
  }
}

// ---------------------------------------------------------------------------------------------
// Calibration on synthetic data (no device): a sum over n uniform(0,1) values

std::vector<HostBuffer> sum_draw(std::uint64_t seed, std::int64_t n) {
  std::vector<HostBuffer> buffers{make_buffer(DType::F32, n), make_buffer(DType::F32, 1)};
  fill_random(buffers[0], "uniform(0,1)", seed);
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) sum += buffers[0].get(i);
  buffers[1].set(0, sum);
  return buffers;
}

Task sum_task(std::int64_t n, double atol, double rtol) {
  Task task;
  task.args = {ArgSpec{"x", DType::F32, ArgRole::Input, {"n"}, "uniform(0,1)", "", {}, true},
               ArgSpec{"out", DType::F32, ArgRole::Output, {"1"}, "", "", {}, true}};
  task.tolerance = Tolerance{atol, rtol};
  task.sizes = {ProblemSize{"large", {{"n", n}}}};
  return task;
}

TEST(Calibration, TightensAToleranceThatAConstantWouldPass) {
  const std::int64_t n = 1 << 22;  // the spread of the true sums: sqrt(n / 12) = 591
  const Task task = sum_task(n, 1e-3, 5e-4);  // allows ±1049
  std::vector<std::vector<HostBuffer>> draws;
  for (std::uint64_t seed : calibration_seeds("large")) draws.push_back(sum_draw(seed, n));
  const auto outputs = calibrate_outputs(task, task.sizes[0].vars, draws, draws);
  ASSERT_EQ(outputs.size(), 1u);
  const OutputCalibration& out = outputs[0];
  const double allowed = out.tolerance.atol + out.tolerance.rtol * double(n) / 2;
  EXPECT_LT(out.factor, 1) << out.note;
  EXPECT_LT(allowed, 591) << "tightened below the spread of the true sums: " << out.note;
  // ... but not below honest rounding of a 4M-term f32 sum: u sqrt(n) |sum| = 256.
  EXPECT_GE(allowed, 0x1.0p-24 * 2048 * double(n) / 2 * 0.99) << out.note;
  EXPECT_DOUBLE_EQ(out.tolerance.fan_in, double(n));
  std::cout << "[ calibration ] " << out.note << (out.warning.empty() ? "" : " / warning: " + out.warning) << "\n";
}

TEST(Calibration, KeepsToleranceThatTellsAnswersApartAndSkipsInputIndependentOutputs) {
  const std::int64_t n = 1000;
  const Task task = sum_task(n, 1e-3, 1e-4);  // ±0.05 against a spread of ±9: fine as it is
  std::vector<std::vector<HostBuffer>> draws;
  for (std::uint64_t seed : calibration_seeds("large")) draws.push_back(sum_draw(seed, n));
  EXPECT_EQ(calibrate_outputs(task, task.sizes[0].vars, draws, draws)[0].factor, 1);
  for (auto& draw : draws) draw[1].set(0, 1.0);  // scratch restored to 1 whatever the input
  const auto fixed = calibrate_outputs(task, task.sizes[0].vars, draws, draws)[0];
  EXPECT_TRUE(fixed.input_independent);
  EXPECT_EQ(fixed.factor, 1);
  EXPECT_TRUE(fixed.warning.empty());
}

TEST(Calibration, SaysSoWhenHonestRoundingIsAsWideAsTheData) {
  // Sums of 2^22 values in [1000, 1001): the spread of the sums (~590) is far below what
  // honest f32 rounding of a 4.2e9 sum allows (u sqrt(n) |sum| ~ 5e5).
  const std::int64_t n = 1 << 22;
  const Task task = sum_task(n, 1e-3, 5e-4);
  std::vector<std::vector<HostBuffer>> draws;
  for (std::uint64_t seed : calibration_seeds("large")) {
    auto draw = sum_draw(seed, n);
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i) sum += 1000 + draw[0].get(i);
    draw[1].set(0, sum);
    draws.push_back(draw);
  }
  const auto out = calibrate_outputs(task, task.sizes[0].vars, draws, draws)[0];
  EXPECT_NE(out.warning.find("cannot tell an input-free answer"), std::string::npos) << out.note;
}

TEST(CheckTolerance, AdversarialDrawsScaleWithTheOutputAndNeverGoBelowRounding) {
  const OutputTolerance base{1e-4, 1e-4, 2.0, 256};
  HostBuffer expected = make_buffer(DType::F32, 4);
  for (int i = 0; i < 4; ++i) expected.set(i, 2e6);
  const Tolerance manifest = tolerance_for_draw(base, DType::F32, true, expected, 1e4);
  EXPECT_EQ(manifest.atol, 1e-4);
  const Tolerance large = tolerance_for_draw(base, DType::F32, false, expected, 1e4);
  EXPECT_NEAR(large.atol, 1e-4 * 1e6, 1e-6) << "outputs 1e6 x larger than on the manifest's inputs";
  EXPECT_GE(large.rtol, 0x1.0p-24 * 16);
  EXPECT_EQ(tolerance_for_draw(base, DType::I32, false, expected, 1e4).atol, 1e-4) << "integers: as given";
}

// ---------------------------------------------------------------------------------------------
// Planted kernels

struct Planted {
  const char* name;
  const char* message_part;  // the one-line verdict must name the draw that exposed it
};
void PrintTo(const Planted& planted, std::ostream* os) { *os << planted.name; }

const Planted kPlantedList[] = {
    {"softmax_no_max", "inputs drawn from 'large'"},
    {"sign_epsilon", "inputs drawn from 'special'"},
    {"negative_zero", "inputs drawn from 'special'"},
    {"clamp_drops_nan", "inputs drawn from 'declared1' (x = nonfinite(-2,2))"},
    {"sigmoid_taylor", "inputs drawn from '"},  // wide or large: both leave the manifest's range
    {"argmax_last", "inputs drawn from 'ties'"},
    {"sum_constant", "output 'out'"},
};

void expect_planted(const fs::path& folder, Language language, const Planted& planted) {
  const fs::path manifest = folder / (std::string(planted.name) + ".kforge.toml");
  const EvalResult caught = check_original(manifest, options_for(language));
  EXPECT_EQ(to_string(caught.status), "incorrect") << planted.name << ": " << caught.message;
  EXPECT_NE(caught.message.find(planted.message_part), std::string::npos)
      << planted.name << ": the verdict does not say '" << planted.message_part << "': " << caught.message;
  EXPECT_EQ(caught.message.find('\n'), std::string::npos) << caught.message;
  std::cout << "[ verdict ] " << planted.name << ": " << caught.message << "\n";
  // Without the defences (manifest draws, manifest tolerances) the same kernel passes.
  EvalOptions undefended = options_for(language);
  undefended.adversarial_draws = false;
  undefended.calibrate_tolerances = false;
  if (std::string(planted.name) == "sum_constant") return;  // passes only by chance there: see below
  const EvalResult missed = check_original(manifest, undefended);
  EXPECT_EQ(to_string(missed.status), "correct") << planted.name << " is caught without the defence too: " << missed.message;
}

class PlantedInputs : public ::testing::TestWithParam<Planted> {};

TEST_P(PlantedInputs, OpenClIsCaught) {
  if (auto reason = unusable(Language::OpenCL)) GTEST_SKIP() << "no OpenCL device: " << *reason;
  expect_planted(kPlanted, Language::OpenCL, GetParam());
}

TEST_P(PlantedInputs, CudaIsCaught) {
  if (auto reason = unusable(Language::Cuda)) GTEST_SKIP() << "no CUDA device: " << *reason;
  expect_planted(kPlantedCuda, Language::Cuda, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Planted, PlantedInputs, ::testing::ValuesIn(kPlantedList),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// The n/2 "sum" with adversarial draws off: only the calibrated tolerance can catch it.
TEST(PlantedTolerance, ConstantSumIsCaughtByTheCalibratedToleranceAlone) {
  if (auto reason = unusable(Language::OpenCL)) GTEST_SKIP() << "no OpenCL device: " << *reason;
  EvalOptions options = options_for(Language::OpenCL);
  options.adversarial_draws = false;
  options.check_seeds = 3;
  Evaluator evaluator(load_task(kPlanted / "sum_constant.kforge.toml"), options);
  const KernelVariant original = evaluator.baseline_variant();
  const EvalResult result = evaluator.check(original, evaluator.compile(original));
  EXPECT_EQ(to_string(result.status), "incorrect") << result.message;
  const auto& outputs = evaluator.calibration().at("large").at("outputs");
  const auto out = std::find_if(outputs.begin(), outputs.end(), [](const auto& o) { return o.at("name") == "out"; });
  ASSERT_NE(out, outputs.end());
  // The manifest allows 1e-3 + 5e-4 * 2.1e6 = 1049 > the spread of the true sums (592) ...
  EXPECT_LT(out->at("factor").get<double>(), 1) << out->dump();
  const double allowed = out->at("tolerance").at("atol").get<double>() + out->at("tolerance").at("rtol").get<double>() * 2097152;
  EXPECT_LT(allowed, 592) << out->dump();  // ... the calibrated one does not
  std::cout << "[ verdict ] " << result.message << "\n[ calibration ] " << out->dump() << "\n";
}

// The honest control: an online softmax passes every draw.
TEST(PlantedInputsControl, HonestOnlineSoftmaxIsAccepted) {
  if (auto reason = unusable(Language::OpenCL)) GTEST_SKIP() << "no OpenCL device: " << *reason;
  const EvalResult result = check_original(kPlanted / "softmax_correct.kforge.toml", options_for(Language::OpenCL));
  EXPECT_EQ(to_string(result.status), "correct") << result.message;
  EXPECT_NE(result.message.find("adversarial draws: 4"), std::string::npos) << result.message;
}

// CI has no GPU: the CUDA twins at least compile with NVRTC.
TEST(PlantedInputsCuda, CompileWithNvrtc) {
  for (const Planted& planted : kPlantedList) {
    Evaluator evaluator(load_task(kPlantedCuda / (std::string(planted.name) + ".kforge.toml")), options_for(Language::Cuda));
    for (const KernelVariant& variant : {evaluator.baseline_variant(), evaluator.reference_variant()}) {
      const CompileResult compiled = evaluator.compile(variant);
      if (!compiled.ok && compiled.log.find("nvrtc") != std::string::npos && compiled.log.find("error:") == std::string::npos)
        GTEST_SKIP() << "NVRTC not usable: " << compiled.log;
      EXPECT_TRUE(compiled.ok) << planted.name << ": " << compiled.log;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Every bundled example still passes its own checks with its original kernel, on every draw.

class BundledExample : public ::testing::TestWithParam<std::string> {};

TEST_P(BundledExample, OriginalKernelPassesEveryDraw) {
  const fs::path manifest = kSource / "examples" / GetParam() / "kforge.toml";
  const Language language = GetParam().ends_with("cuda") ? Language::Cuda : Language::OpenCL;
  if (auto reason = unusable(language)) GTEST_SKIP() << "no device: " << *reason;
  EvalOptions options = options_for(language);
  options.check_seeds = 5;  // final verification's count: every size sees several draws
  Evaluator evaluator(load_task(manifest), options);
  const KernelVariant original = evaluator.baseline_variant();
  const EvalResult result = evaluator.check(original, evaluator.compile(original));
  EXPECT_EQ(to_string(result.status), "correct") << GetParam() << ": " << result.message;
  std::cout << "[ verdict ] " << GetParam() << ": " << result.message << "\n";
  for (const auto& warning : result.warnings) std::cout << "[ warning ] " << warning << "\n";
}

INSTANTIATE_TEST_SUITE_P(Examples, BundledExample,
                         ::testing::Values("vector_add/opencl", "saxpy/opencl", "sum_reduction/opencl",
                                           "row_softmax/opencl", "histogram/opencl", "matrix_transpose/opencl",
                                           "sgemm/opencl", "conv2d/opencl", "vector_add/cuda", "saxpy/cuda",
                                           "sum_reduction/cuda", "row_softmax/cuda", "histogram/cuda",
                                           "matrix_transpose/cuda", "sgemm/cuda", "conv2d/cuda"),
                         [](const auto& param_info) {
                           std::string name = param_info.param;  // "*Cuda*" selects the GPU ones (scripts/gpu_check.sh)
                           const auto slash = name.find('/');
                           return name.substr(0, slash) + (name.ends_with("cuda") ? "_Cuda" : "_OpenCl");
                         });

}  // namespace
}  // namespace kforge

namespace kforge {
namespace {

// The cost of the defences, printed for docs/RELIABILITY.md: one check of the original
// kernel with and without them, in one process (both must still be correct).
TEST(CheckCost, OfTheDefencesOnTwoExamples) {
  if (auto reason = unusable(Language::OpenCL)) GTEST_SKIP() << "no OpenCL device: " << *reason;
  for (const char* example : {"vector_add/opencl", "sum_reduction/opencl"}) {
    const fs::path manifest = kSource / "examples" / example / "kforge.toml";
    EvalOptions off = options_for(Language::OpenCL);
    off.adversarial_draws = false;
    off.calibrate_tolerances = false;
    for (int round = 0; round < 2; ++round) {  // round 0 warms caches (compile, PoCL kernels)
      double ms[2];
      for (int defended = 0; defended < 2; ++defended) {
        Evaluator evaluator(load_task(manifest), defended ? options_for(Language::OpenCL) : off);
        const KernelVariant original = evaluator.baseline_variant();
        const CompileResult compiled = evaluator.compile(original);
        evaluator.device();
        const auto start = std::chrono::steady_clock::now();
        const EvalResult first = evaluator.check(original, compiled);  // includes the calibration
        const auto middle = std::chrono::steady_clock::now();
        const EvalResult second = evaluator.check(original, compiled);
        const auto end = std::chrono::steady_clock::now();
        EXPECT_EQ(to_string(first.status), "correct") << example << ": " << first.message;
        EXPECT_EQ(to_string(second.status), "correct") << example << ": " << second.message;
        ms[defended] = std::chrono::duration<double, std::milli>(end - middle).count();
        if (round == 1)
          std::cout << "[ cost ] " << example << (defended ? " defended" : " undefended") << ": first check (with calibration) "
                    << std::chrono::duration<double, std::milli>(middle - start).count() << " ms, next check " << ms[defended]
                    << " ms\n";
      }
    }
  }
}

}  // namespace
}  // namespace kforge

namespace kforge {
namespace {

// exp(a) + b: 'large' makes the reference itself overflow through a (never through b alone):
// the check skips the draw for a, keeps it for b, says so, and accepts the honest kernel.
TEST(ReferenceOverflow, DrawIsSkippedForTheArgumentThatOverflowsWithANote) {
  if (auto reason = unusable(Language::OpenCL)) GTEST_SKIP() << "no OpenCL device: " << *reason;
  const EvalResult result = check_original(kPlanted / "exp_overflow.kforge.toml", options_for(Language::OpenCL));
  EXPECT_EQ(to_string(result.status), "correct") << result.message;
  EXPECT_NE(result.message.find("draw 'large' skipped for a = large(1000,10000): the reference itself returns "
                                "non-finite outputs on it"),
            std::string::npos)
      << result.message;
  bool large_kept_for_b = false;
  for (const auto& check : result.checks) large_kept_for_b |= check.draw == "large" && check.passed;
  EXPECT_TRUE(large_kept_for_b);
  std::cout << "[ verdict ] " << result.message << "\n";
}

}  // namespace
}  // namespace kforge
