#include "report/report.h"
#include "report/svg_plots.h"
#include "sample_run.h"
#include "util/files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

ReportInputs saxpy_inputs() {
  ReportInputs inputs;
  inputs.language = Language::Cuda;
  inputs.original_source = testing::kOriginalSource;
  inputs.original_file_name = "saxpy.cu";
  inputs.device_name = "NVIDIA H100";
  return inputs;
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_.emplace(RunStore::create(tmp_.path() / "run"));
    ids_ = testing::make_sample_run(*store_);
    files_ = write_report(*store_, tmp_.path() / "run", saxpy_inputs());
  }
  TempDir tmp_;
  std::optional<RunStore> store_;
  testing::SampleRun ids_;
  ReportFiles files_;
};

TEST_F(ReportTest, WritesEveryFile) {
  for (const auto& path : {files_.markdown, files_.html, files_.json, files_.best_source, files_.diff}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path;
    EXPECT_GT(std::filesystem::file_size(path), 0u) << path;
  }
  EXPECT_EQ(files_.best_source.filename(), "best.cu");
  // The best's source follows its baked-in values (deliverable_test.cpp has the header).
  const std::string best = read_file(files_.best_source);
  EXPECT_THAT(best, HasSubstr("#define BLOCK 128\n"));
  EXPECT_EQ(best.substr(best.size() - std::string(testing::kBestSource).size()), testing::kBestSource);
}

TEST_F(ReportTest, MarkdownHasTheKeyNumbers) {
  const auto md = read_file(files_.markdown);
  EXPECT_THAT(md, HasSubstr("# kforge report: saxpy"));
  EXPECT_THAT(md, HasSubstr("4.00x faster than the baseline (2.00 ms -> 0.5 ms) after 4 generations."));
  EXPECT_THAT(md, HasSubstr("| Best median | 0.5 ms (candidate #" + std::to_string(ids_.best_id) +
                            ", generation 3) |"));
  EXPECT_THAT(md, HasSubstr("| Best strategy | vectorize loads with float4 |"));
  EXPECT_THAT(md, HasSubstr("seed #1 (baseline) -> tune #2 -> tune #3 (larger blocks) -> "
                            "llm-mutate #7 (unroll x4) -> crossover #10 (vectorize loads with float4)"));
  // Per-size results of the best.
  EXPECT_THAT(md, HasSubstr("| size | max_abs_err | median_ms | speedup |"));
  EXPECT_THAT(md, HasSubstr("| small | 0 | 0.012 | 1.50 |"));
  EXPECT_THAT(md, HasSubstr("| large | 1e-06 | 0.5 | 4.00 |"));
  // Generations table.
  EXPECT_THAT(md, HasSubstr("| 1 | 1.40 ms | #3 | 4 | 2 |"));
  EXPECT_THAT(md, HasSubstr("| 3 | 0.5 ms | #10 | 2 | 2 |"));
  // Status counts and the top 10 (the incorrect 0.3 ms candidate is not in it).
  EXPECT_THAT(md, HasSubstr("| correct | 7 |"));
  EXPECT_THAT(md, HasSubstr("| compile_error | 1 |"));
  EXPECT_THAT(md, HasSubstr("| pending | 1 |"));
  EXPECT_THAT(md, HasSubstr("| 1 | #10 | 3 | crossover | 0.5 ms | 4.00x |"));
  EXPECT_THAT(md, HasSubstr("| 2 | #11 | 3 | tune | 0.9 ms |"));
  EXPECT_THAT(md, Not(HasSubstr("| #5 |")));
  EXPECT_THAT(md, HasSubstr("LLM calls | 1 (1000 in / 400 out tokens, $0.12)"));
}

TEST_F(ReportTest, DiffTurnsTheOriginalIntoTheBest) {
  const auto diff = read_file(files_.diff);
  EXPECT_EQ(diff.rfind("--- a/saxpy.cu\n+++ b/best.cu\n@@ -1,4 +1,14 @@\n", 0), 0u) << diff;
  EXPECT_THAT(diff, HasSubstr("+#define BLOCK 128\n")) << "the tuned value is part of what the user gets";
  EXPECT_THAT(diff, HasSubstr("-  if (i < n) y[i] = a * x[i] + y[i];\n"));
  EXPECT_THAT(diff, HasSubstr("+    float4 v = x[i], w = y[i];\n"));
  EXPECT_THAT(diff, HasSubstr("\n   int i = blockIdx.x * blockDim.x + threadIdx.x;\n"));
}

TEST_F(ReportTest, JsonHasTheKeyNumbers) {
  const auto j = nlohmann::json::parse(read_file(files_.json));
  EXPECT_EQ(j["task"], "saxpy");
  EXPECT_EQ(j["language"], "cuda");
  EXPECT_EQ(j["baseline_median_ms"], 2.0);
  EXPECT_EQ(j["best"]["id"], ids_.best_id);
  EXPECT_EQ(j["best"]["median_ms"], 0.5);
  EXPECT_EQ(j["best"]["speedup"], 4.0);
  EXPECT_EQ(j["best"]["lineage"].size(), 5u);
  EXPECT_EQ(j["best"]["lineage"][0]["operator"], "seed");
  EXPECT_EQ(j["best"]["lines_added"], 5);
  EXPECT_EQ(j["best"]["lines_removed"], 2);
  EXPECT_EQ(j["candidates"], 12);
  EXPECT_EQ(j["status_counts"]["timeout"], 1);
  EXPECT_EQ(j["generations"], 4);
  EXPECT_EQ(j["last_completed_generation"], 3);
  EXPECT_EQ(j["generation_history"][2]["best_median_ms"], 1.1);
  EXPECT_DOUBLE_EQ(j["llm"]["cost_usd"].get<double>(), 0.12);
}

TEST_F(ReportTest, HtmlHasPlotsTablesAndDiff) {
  const auto html = read_file(files_.html);
  EXPECT_THAT(html, HasSubstr("<title>kforge report: saxpy</title>"));
  EXPECT_THAT(html, HasSubstr("aria-label=\"best latency per generation\""));
  EXPECT_THAT(html, HasSubstr("aria-label=\"latency of every candidate by generation\""));
  EXPECT_THAT(html, HasSubstr("aria-label=\"lineage of the best candidate\""));
  EXPECT_THAT(html, HasSubstr("aria-label=\"roofline\""));
  EXPECT_THAT(html, HasSubstr("class=\"best-line\""));
  EXPECT_THAT(html, HasSubstr("<span class=\"add\">+    float4 v = x[i], w = y[i];</span>"));
  EXPECT_THAT(html, HasSubstr("4.00x"));
  EXPECT_THAT(html, HasSubstr("NVIDIA H100"));
  // Self-contained: nothing is fetched from anywhere.
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("src=")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
  // One scatter point per evaluated candidate (the pending one has no place).
  std::size_t points = 0;
  for (auto at = html.find("class=\"candidate "); at != std::string::npos;
       at = html.find("class=\"candidate ", at + 1))
    ++points;
  EXPECT_EQ(points, 11u);
}

TEST(ReportEmpty, RunWithoutCorrectCandidatesStillReports) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  RunSettings settings;
  settings.task_name = "empty";
  store.write_settings(settings);
  CandidateRecord c;
  c.source = "x";
  const auto id = store.insert_candidate(c);
  CandidateResult failed;
  failed.status = CandidateStatus::CompileError;
  store.update_candidate_result(id, failed);
  ReportInputs inputs;
  inputs.language = Language::OpenCL;
  inputs.original_source = "kernel";
  const auto files = write_report(store, tmp.path() / "run", inputs);
  EXPECT_TRUE(files.best_source.empty());
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "run" / "best.cl"));
  EXPECT_THAT(read_file(files.markdown), HasSubstr("No correct candidate was found after 0 generations."));
  EXPECT_TRUE(nlohmann::json::parse(read_file(files.json))["best"].is_null());
  EXPECT_THAT(read_file(files.html), HasSubstr("No generation has finished yet."));
}

TEST(ReportExtension, FollowsTheLanguage) {
  EXPECT_EQ(source_extension(Language::Cuda), ".cu");
  EXPECT_EQ(source_extension(Language::OpenCL), ".cl");
  EXPECT_EQ(source_extension(Language::Hip), ".hip");
  EXPECT_EQ(source_extension(Language::Triton), ".py");
  EXPECT_EQ(source_extension(Language::PyTorch), ".py");
}

TEST(SvgPlots, RooflineNeedsPeaksAndAPoint) {
  EXPECT_EQ(svg::roofline(nullptr, nullptr), "");
  EXPECT_EQ(svg::roofline({{"achieved_gflops", 1.0}}, nullptr), "");  // no peaks
  // Intensity derived from achieved GFLOP/s and GB/s when not given.
  const auto svg = svg::roofline(nullptr, {{"achieved_gflops", 100.0}, {"achieved_gbps", 50.0},
                                           {"peak_gflops", 1000.0}, {"peak_gbps", 100.0}});
  EXPECT_THAT(svg, HasSubstr("best: 2.00 FLOP/byte, 100 GFLOP/s"));
  EXPECT_THAT(svg, Not(HasSubstr(">baseline<")));
}

}  // namespace
}  // namespace kforge
