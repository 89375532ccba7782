// The final verification has the last word: candidates the search took for correct and fast
// (as a fooled search would) are re-checked on the real PoCL device; one that fails becomes
// `incorrect` with the reason, is never the best, and the next candidate takes its place.
#include <gtest/gtest.h>

#include "backend/backend.h"
#include "optimize/final_verification.h"
#include "cli_runner.h"
#include "eval/evaluator.h"
#include "store/run_store.h"
#include "util/files.h"

namespace kforge {
namespace {
using testing::make_temp_dir;
using testing::source_dir;

// Records a candidate as the search would have after a (fooled) evaluation.
std::int64_t add_evaluated(RunStore& store, const std::string& operator_name, const KernelVariant& variant,
                           double median_ms) {
  CandidateRecord record;
  record.operator_name = operator_name;
  record.source = variant.source;
  record.params = variant.params;
  const std::int64_t id = store.insert_candidate(record);
  CandidateResult result;
  result.status = CandidateStatus::Correct;
  result.metrics = metrics_from_json({{"median_ms", median_ms}, {"speedup", 1.0 / median_ms}});
  store.update_candidate_result(id, result);
  return id;
}

EvalOptions quick_options(double max_seconds) {
  EvalOptions options;
  const char* worker = std::getenv("KFORGE_WORKER");  // set where tests run from a copied build
  options.worker_executable = worker ? std::filesystem::path(worker)
                                     : std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
  options.timing.max_seconds = max_seconds;
  return options;
}

class FinalVerification : public ::testing::Test {
 protected:
  void SetUp() override {
    const Availability availability = make_backend(Language::OpenCL)->probe();
    if (!availability.usable) GTEST_SKIP() << "no OpenCL device: " << availability.reason;
  }
};

TEST_F(FinalVerification, AFailingBestIsMarkedIncorrectAndNeverReported) {
  const Task task = load_task(source_dir() / "tests/kernels/tunable_vadd/kforge.toml");
  Evaluator evaluator(task, quick_options(0.1));
  const auto run_dir = make_temp_dir("kforge-final") / "run";
  RunStore store = RunStore::create(run_dir);

  const KernelVariant original = evaluator.baseline_variant();
  const std::int64_t baseline_id = add_evaluated(store, "baseline", original, 1.0);
  // Subtracts instead of adding: wrong on every input, "10x faster" according to the search.
  KernelVariant wrong = original;
  const auto plus = wrong.source.find("a[idx] + b[idx]");
  ASSERT_NE(plus, std::string::npos) << "the example kernel changed; update this test";
  wrong.source.replace(plus, 15, "a[idx] - b[idx]");
  const std::int64_t wrong_id = add_evaluated(store, "llm-mutate", wrong, 0.1);

  const optimize::FinalVerdict verdict = optimize::verify_final(evaluator, store, baseline_id, 2);

  EXPECT_EQ(verdict.rejected, 1);
  EXPECT_FALSE(verdict.best_id.has_value());
  const auto rejected = store.get_candidate(wrong_id);
  EXPECT_EQ(rejected->status, CandidateStatus::Incorrect);
  EXPECT_NE(rejected->status_message.find("final verification: "), std::string::npos) << rejected->status_message;
  EXPECT_NE(rejected->status_message.find("elements differ"), std::string::npos) << rejected->status_message;
  const auto best = store.best_candidate();
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->id, baseline_id) << "a candidate that failed the final verification was reported as best";
}

TEST_F(FinalVerification, ACorrectCandidateThatIsNotFasterLeavesTheOriginalAsBest) {
  const Task task = load_task(source_dir() / "tests/kernels/tunable_vadd/kforge.toml");
  Evaluator evaluator(task, quick_options(0.2));
  const auto run_dir = make_temp_dir("kforge-final") / "run";
  RunStore store = RunStore::create(run_dir);

  const KernelVariant original = evaluator.baseline_variant();
  const std::int64_t baseline_id = add_evaluated(store, "baseline", original, 1.0);
  // Correct, but it computes every element 8 times over: the search "measured" it 2x faster
  // (a lucky draw); the re-measurement must not stand behind that.
  KernelVariant slower = original;
  const auto store_at = slower.source.find("if (idx < n) c[idx] = a[idx] + b[idx];");
  ASSERT_NE(store_at, std::string::npos) << "the example kernel changed; update this test";
  slower.source.replace(store_at, 38,
                        "if (idx < n) { float s = 0; for (int r = 0; r < 8; ++r) s += a[idx] + b[idx] * (float)(r == 0);"
                        " c[idx] = s - 7 * a[idx]; }");
  const std::int64_t slower_id = add_evaluated(store, "tune", slower, 0.5);

  const optimize::FinalVerdict verdict = optimize::verify_final(evaluator, store, baseline_id, 1);

  EXPECT_EQ(verdict.rejected, 0) << store.get_candidate(slower_id)->status_message;
  EXPECT_FALSE(verdict.best_id.has_value()) << "a slower kernel was reported " << verdict.speedup << "x faster";
  EXPECT_EQ(store.get_candidate(slower_id)->status, CandidateStatus::Correct);
  EXPECT_EQ(store.best_candidate()->id, baseline_id);
}

}  // namespace
}  // namespace kforge
