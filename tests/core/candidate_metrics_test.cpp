// The metrics struct and its one JSON mapping: a full round trip, an object written by an
// older kforge (missing keys, sizes keyed by name, wrong types), and unknown keys kept.
#include <gtest/gtest.h>

#include "core/candidate_metrics.h"

namespace kforge {
namespace {

using nlohmann::json;

CandidateMetrics full_metrics() {
  CandidateMetrics m;
  m.status = CandidateStatus::Correct;
  m.message = "ok";
  m.speedup = 1.8;
  m.speedup_ci_low = 1.5;
  m.speedup_ci_high = 2.1;
  m.speedup_rounds = 40;
  m.gbps = 900;
  m.gflops = 12;
  m.max_abs_err = 1e-6;
  m.max_rel_err = 2e-6;
  m.median_ms = 0.5;
  m.measured_median_ms = 0.55;
  TimingStats timing;
  timing.median_ms = 0.55;
  timing.min_ms = 0.5;
  timing.samples = 100;
  timing.ci_low_ms = 0.54;
  timing.ci_high_ms = 0.56;
  m.timing = timing;
  m.baseline_timing = timing;
  m.warnings = {"loose tolerance"};
  SizeCheck check;
  check.size = "small";
  check.seed = 7;
  check.passed = true;
  check.draw = "manifest";
  m.checks = {check};
  SizeResult size;
  size.name = "large";
  size.baseline_ms = 1.0;
  size.best_ms = 0.5;
  size.speedup = 2.0;
  size.speedup_ci_low = 1.9;
  size.speedup_ci_high = 2.1;
  size.sessions = 3;
  size.spread = 0.01;
  m.sizes = {size};
  m.search_speedup = 1.7;
  m.search_median_ms = 0.6;
  m.final_check = FinalCheck{true, ""};
  m.profile = {{"bound", "memory"}};
  return m;
}

TEST(CandidateMetrics, AFullRecordRoundTrips) {
  const json written = to_json(full_metrics());
  EXPECT_EQ(written["status"], "correct");
  EXPECT_EQ(written["speedup_significant"], true);  // derived from the interval
  EXPECT_EQ(written["sizes"][0]["speedup_significant"], true);
  EXPECT_EQ(written["final_check"], json({{"status", "correct"}}));
  const CandidateMetrics back = metrics_from_json(written);
  EXPECT_EQ(to_json(back), written);
  EXPECT_EQ(back.status, CandidateStatus::Correct);
  EXPECT_EQ(back.speedup_rounds, 40);
  ASSERT_TRUE(back.timing.has_value());
  EXPECT_EQ(back.timing->samples, 100);
  ASSERT_EQ(back.sizes.size(), 1u);
  EXPECT_EQ(back.sizes[0].sessions, 3);
  EXPECT_TRUE(back.extra.empty());
}

TEST(CandidateMetrics, EmptyMetricsAreStoredAsNull) {
  EXPECT_TRUE(CandidateMetrics{}.empty());
  EXPECT_TRUE(to_json(CandidateMetrics{}).is_null());
  EXPECT_TRUE(metrics_from_json(nullptr).empty());
  EXPECT_TRUE(metrics_from_json("not an object").empty());
}

TEST(CandidateMetrics, AnOldObjectWithMissingKeysAndOddShapesStillReads) {
  // As older versions wrote it: no status, no interval, sizes keyed by name with their own
  // figures, a number where a string belongs, and a key this version does not know.
  const json old = json::parse(R"({
    "median_ms": 1.25, "speedup": 2.0, "gbps": "fast", "measured_median_ms": null,
    "sizes": {"small": {"median_ms": 0.1, "speedup": 1.5}, "large": {"best_ms": 1.2}},
    "timing": {"median_ms": 1.3, "rel_ci": 0.1},
    "final_check": {"status": "incorrect", "message": "wrong after timing"},
    "legacy_note": [1, 2]
  })");
  const CandidateMetrics m = metrics_from_json(old);
  EXPECT_FALSE(m.status.has_value());
  EXPECT_EQ(m.median_ms, 1.25);
  EXPECT_EQ(m.speedup, 2.0);
  EXPECT_EQ(m.gbps, 0);  // the wrong type keeps the default
  EXPECT_FALSE(m.measured_median_ms.has_value());
  EXPECT_FALSE(m.speedup_ci_low.has_value());
  ASSERT_EQ(m.sizes.size(), 2u);
  EXPECT_EQ(m.sizes[1].name, "small");  // object keys in order
  EXPECT_EQ(m.sizes[1].speedup, 1.5);
  EXPECT_EQ(m.sizes[1].extra["median_ms"], 0.1);
  EXPECT_EQ(m.sizes[0].best_ms, 1.2);
  ASSERT_TRUE(m.timing.has_value());
  EXPECT_NEAR(m.timing->ci_low_ms, 1.3 * 0.9, 1e-12);  // from rel_ci, as a Python worker reports it
  ASSERT_TRUE(m.final_check.has_value());
  EXPECT_FALSE(m.final_check->passed);
  EXPECT_EQ(m.final_check->message, "wrong after timing");
  EXPECT_EQ(m.extra["legacy_note"], json({1, 2}));
  const json again = to_json(m);
  EXPECT_EQ(again["legacy_note"], json({1, 2}));  // unknown keys survive a rewrite
  EXPECT_EQ(again["sizes"][1]["median_ms"], 0.1);
  EXPECT_FALSE(again.contains("status"));
}

TEST(CandidateMetrics, AnEvaluationResultAlwaysWritesItsFiguresAndChecks) {
  CandidateMetrics m;
  m.status = CandidateStatus::CompileError;
  m.message = "error: expected ';'";
  const json written = to_json(m);
  EXPECT_EQ(written["status"], "compile_error");
  EXPECT_EQ(written["gbps"], 0.0);
  EXPECT_EQ(written["checks"], json::array());
  EXPECT_FALSE(written.contains("speedup_significant"));
  EXPECT_EQ(metrics_from_json(json{{"status", "from the future"}}).status, CandidateStatus::RuntimeError);
}

}  // namespace
}  // namespace kforge
