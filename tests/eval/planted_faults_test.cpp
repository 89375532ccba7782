// Planted faulty kernels run for real on OpenCL (PoCL on the CPU in CI): each must get its
// own verdict, and the evaluator must keep working after every one of them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "backend/backend.h"
#include "eval/evaluator.h"
#include "util/files.h"

namespace kforge {
namespace {

const std::filesystem::path kFaulty = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/faulty";

EvalOptions test_options() {
  EvalOptions options;
  // $KFORGE_WORKER where the tests run from a copied build (the GPU machine).
  const char* worker = std::getenv("KFORGE_WORKER");
  options.worker_executable = worker ? std::filesystem::path(worker)
                                     : std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
  options.check_timeout_s = 5;  // the infinite loop costs this much
  options.timing.max_seconds = 0.3;
  options.limits.memory_bytes = std::int64_t{16} << 30;
  return options;
}

bool opencl_usable(std::string& why) {
  const Availability availability = make_backend(Language::OpenCL)->probe();
  why = availability.reason;
  return availability.usable;
}

EvalResult evaluate_planted(const std::string& fault) {
  Evaluator evaluator(load_task(kFaulty / (fault + ".kforge.toml")), test_options());
  return evaluator.evaluate(evaluator.baseline_variant());
}

class PlantedFault : public ::testing::TestWithParam<std::pair<const char*, CandidateStatus>> {};

TEST_P(PlantedFault, IsClassified) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  const auto& [fault, expected] = GetParam();
  const EvalResult result = evaluate_planted(fault);
  EXPECT_EQ(to_string(result.status), to_string(expected)) << result.message;
  EXPECT_FALSE(result.message.empty());
}

INSTANTIATE_TEST_SUITE_P(
    OpenCL, PlantedFault,
    ::testing::Values(std::make_pair("correct", CandidateStatus::Correct),
                      std::make_pair("segfault", CandidateStatus::RuntimeError),
                      std::make_pair("infinite_loop", CandidateStatus::Timeout),
                      std::make_pair("wrong_result", CandidateStatus::Incorrect),
                      std::make_pair("unwritten_output", CandidateStatus::Incorrect),
                      std::make_pair("out_of_bounds_write", CandidateStatus::RuntimeError),
                      std::make_pair("input_mutation", CandidateStatus::Incorrect)),
    [](const auto& param_info) { return std::string(param_info.param.first); });

TEST(PlantedFaults, MessagesSayWhatWentWrong) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  EXPECT_NE(evaluate_planted("segfault").message.find("signal"), std::string::npos);
  EXPECT_NE(evaluate_planted("input_mutation").message.find("input 'b' was modified"), std::string::npos);
  EXPECT_NE(evaluate_planted("out_of_bounds_write").message.find("out-of-bounds"), std::string::npos);
  EXPECT_NE(evaluate_planted("unwritten_output").message.find("output 'c'"), std::string::npos);
}

TEST(PlantedFaults, EvaluatorSurvivesACrashAndACompileError) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  EvalOptions options = test_options();
  // No hang is planted here: a worker restarted after the crash rebuilds its kernels, which on
  // a loaded 2-core machine can take longer than the 5 s the infinite-loop test needs.
  options.check_timeout_s = 60;
  Evaluator evaluator(load_task(kFaulty / "correct.kforge.toml"), options);
  KernelVariant crashing = evaluator.baseline_variant();
  crashing.source = read_file(kFaulty / "segfault.cl");
  EXPECT_EQ(evaluator.evaluate(crashing).status, CandidateStatus::RuntimeError);
  KernelVariant broken = evaluator.baseline_variant();
  broken.source += "\nthis is not OpenCL;\n";
  const EvalResult compile_error = evaluator.evaluate(broken);
  EXPECT_EQ(compile_error.status, CandidateStatus::CompileError);
  EXPECT_FALSE(compile_error.compile.log.empty());
  // The same evaluator, with a fresh worker behind it, still measures the good kernel.
  const EvalResult good = evaluator.evaluate(evaluator.baseline_variant());
  ASSERT_EQ(good.status, CandidateStatus::Correct) << good.message;
  ASSERT_TRUE(good.timing.has_value());
  EXPECT_GT(good.timing->median_ms, 0);
  EXPECT_GT(good.speedup, 0.5);
  EXPECT_LT(good.speedup, 2.0);
}

}  // namespace
}  // namespace kforge

namespace kforge {
namespace {

// The same planted faults in CUDA; these run on the GPU machine (scripts/gpu_check.sh).
const std::filesystem::path kFaultyCuda = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/faulty_cuda";

class PlantedCudaFault : public ::testing::TestWithParam<std::pair<const char*, CandidateStatus>> {};

TEST_P(PlantedCudaFault, IsClassified) {
  const Availability availability = make_backend(Language::Cuda)->probe();
  if (!availability.usable) GTEST_SKIP() << "no CUDA device: " << availability.reason;
  const auto& [fault, expected] = GetParam();
  EvalOptions options = test_options();
  options.limits.memory_bytes = 0;  // CUDA reserves large address ranges
  Evaluator evaluator(load_task(kFaultyCuda / (std::string(fault) + ".kforge.toml")), options);
  const EvalResult result = evaluator.evaluate(evaluator.baseline_variant());
  EXPECT_EQ(to_string(result.status), to_string(expected)) << result.message;
  // After an illegal address the context is gone: the next evaluation needs a fresh worker.
  const EvalResult again = evaluator.evaluate(evaluator.baseline_variant());
  EXPECT_EQ(to_string(again.status), to_string(expected)) << again.message;
}

INSTANTIATE_TEST_SUITE_P(
    Cuda, PlantedCudaFault,
    ::testing::Values(std::make_pair("correct", CandidateStatus::Correct),
                      std::make_pair("segfault", CandidateStatus::RuntimeError),
                      std::make_pair("infinite_loop", CandidateStatus::Timeout),
                      std::make_pair("wrong_result", CandidateStatus::Incorrect),
                      std::make_pair("unwritten_output", CandidateStatus::Incorrect),
                      std::make_pair("out_of_bounds_write", CandidateStatus::RuntimeError),
                      std::make_pair("input_mutation", CandidateStatus::Incorrect)),
    [](const auto& param_info) { return std::string(param_info.param.first); });

}  // namespace
}  // namespace kforge
