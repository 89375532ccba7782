// CSV, unit and profiler-output parsing on recorded-format fixtures, including damaged input.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "profile/csv.h"
#include "profile/ncu.h"
#include "profile/profiler.h"
#include "profile/rocprof.h"
#include "profile/units.h"
#include "test_support.h"

namespace kforge {
namespace {
using test::read_fixture;

DevicePeaks h100_peaks() {
  DevicePeaks peaks;
  peaks.gbps = 3000;
  peaks.fp32_gflops = 66900;
  return peaks;
}

TEST(Csv, QuotedFieldsSeparatorsAndEscapes) {
  const auto fields = csv::parse_line(R"("a","1,234.5",plain,"say ""hi""",)");
  ASSERT_TRUE(fields);
  ASSERT_EQ(fields->size(), 5u);
  EXPECT_EQ((*fields)[1], "1,234.5");
  EXPECT_EQ((*fields)[2], "plain");
  EXPECT_EQ((*fields)[3], "say \"hi\"");
  EXPECT_EQ((*fields)[4], "");
  EXPECT_FALSE(csv::parse_line(R"("open,quote)"));
}

TEST(Csv, Numbers) {
  EXPECT_DOUBLE_EQ(*csv::parse_number("1,234.5"), 1234.5);
  EXPECT_DOUBLE_EQ(*csv::parse_number(" 4,194,304 "), 4194304);
  EXPECT_DOUBLE_EQ(*csv::parse_number("1e-3"), 1e-3);
  EXPECT_DOUBLE_EQ(*csv::parse_number("+2"), 2);
  EXPECT_FALSE(csv::parse_number("n/a"));
  EXPECT_FALSE(csv::parse_number(""));
  EXPECT_FALSE(csv::parse_number("12abc"));
}

TEST(Csv, FindTableSkipsBannersAndShortRows) {
  const auto table = csv::find_table("banner\n\"A\",\"B\"\n1,2\n3\n4,5\r\n", {"A", "B"});
  ASSERT_TRUE(table);
  EXPECT_EQ(table->rows.size(), 2u);
  EXPECT_EQ(table->skipped_lines, 1);
  EXPECT_EQ(table->cell(table->rows[1], "B"), "5");
  EXPECT_EQ(table->cell(table->rows[1], "missing"), "");
  EXPECT_FALSE(csv::find_table("no table here", {"A"}));
}

TEST(Units, NcuSpellings) {
  EXPECT_DOUBLE_EQ(normalize_unit(17.95, "usecond").value, 17.95e-6);
  EXPECT_EQ(normalize_unit(17.95, "usecond").unit, "second");
  EXPECT_DOUBLE_EQ(normalize_unit(1.21, "msecond").value, 1.21e-3);
  EXPECT_DOUBLE_EQ(normalize_unit(5632, "nsecond").value, 5632e-9);
  EXPECT_DOUBLE_EQ(normalize_unit(32.77, "Kbyte").value, 32770);
  EXPECT_DOUBLE_EQ(normalize_unit(2, "KiB").value, 2048);
  EXPECT_DOUBLE_EQ(normalize_unit(2.8, "Tbyte/second").value, 2.8e12);
  EXPECT_EQ(normalize_unit(2.8, "Tbyte/second").unit, "byte/second");
  EXPECT_DOUBLE_EQ(normalize_unit(2.8, "Tbyte/s").value, 2.8e12);
  EXPECT_DOUBLE_EQ(normalize_unit(900, "Gbyte/second").value, 900e9);
  EXPECT_DOUBLE_EQ(normalize_unit(5, "byte/second").value, 5);
  EXPECT_DOUBLE_EQ(normalize_unit(1.75, "cycle/nsecond").value, 1.75e9);
  EXPECT_EQ(normalize_unit(1.75, "cycle/nsecond").unit, "hertz");
  EXPECT_DOUBLE_EQ(normalize_unit(1.98, "Ghz").value, 1.98e9);
  EXPECT_EQ(normalize_unit(88.5, "%").unit, "%");
  EXPECT_EQ(normalize_unit(12.4, "Pct").unit, "%");
  EXPECT_EQ(normalize_unit(16, "register/thread").unit, "register/thread");
  EXPECT_EQ(normalize_unit(31412, "cycle").unit, "cycle");
}

TEST(Ncu, DetailsPageOfAMemoryBoundKernel) {
  const NcuParse parse = parse_ncu_csv(read_fixture("ncu_details_vector_add_synthetic.csv"));
  ASSERT_EQ(parse.kernels.size(), 1u);
  const NcuKernel& kernel = parse.kernels[0];
  EXPECT_EQ(kernel.name, "vector_add");
  EXPECT_EQ(kernel.grid_size, "(16384, 1, 1)");
  EXPECT_EQ(kernel.compute_capability, "9.0");
  EXPECT_NEAR(*kernel.get("Duration"), 17.95e-6, 1e-12);
  EXPECT_DOUBLE_EQ(*kernel.get("Elapsed Cycles"), 31412);
  EXPECT_DOUBLE_EQ(*kernel.get("Threads"), 4194304);
  EXPECT_DOUBLE_EQ(*kernel.get("Memory Throughput"), 88.46);  // the Speed Of Light percentage
  EXPECT_DOUBLE_EQ(*kernel.get("Memory Throughput [byte/second]"), 2.8e12);
  EXPECT_GE(parse.non_numeric_values, 1);  // "CachePreferNone"

  const KernelProfile profile = profile_from_ncu(kernel, {50331648, 4194304}, h100_peaks());
  EXPECT_EQ(profile.source, ProfileSource::Ncu);
  EXPECT_EQ(profile.bound, Bound::Memory);
  EXPECT_NEAR(profile.achieved_gbps, 50.33e6 / 17.95e-6 / 1e9, 1e-6);  // from the DRAM counters
  EXPECT_NEAR(profile.achieved_gflops, 4194304 / 17.95e-6 / 1e9, 1e-6);  // fadd count
  EXPECT_EQ(profile.registers_per_thread, 16);
  EXPECT_DOUBLE_EQ(*profile.achieved_occupancy_pct, 84.13);
  EXPECT_DOUBLE_EQ(*profile.l2_hit_rate_pct, 33.52);
  ASSERT_FALSE(profile.limiters.empty());
  EXPECT_NE(profile.limiters[0].finding.find("DRAM throughput at 88%"), std::string::npos);
  EXPECT_NE(profile.limiters.back().finding.find("L2 hit rate"), std::string::npos);
}

TEST(Ncu, ComputeBoundKernelLimitedByRegisters) {
  const NcuParse parse = parse_ncu_csv(read_fixture("ncu_details_sgemm_synthetic.csv"));
  ASSERT_EQ(parse.kernels.size(), 1u);
  const KernelProfile profile = profile_from_ncu(parse.kernels[0], {50331648, 34359738368.0 * 2}, h100_peaks());
  EXPECT_EQ(profile.bound, Bound::Compute);
  EXPECT_NEAR(profile.duration_ms, 1.21, 1e-9);
  EXPECT_NEAR(profile.achieved_gflops, 2 * 34359738368.0 / 1.21e-3 / 1e9, 1e-3);  // 2 x FFMA count
  ASSERT_GE(profile.limiters.size(), 2u);
  EXPECT_NE(profile.limiters[0].finding.find("SM throughput at 79%"), std::string::npos);
  EXPECT_NE(profile.limiters[1].finding.find("registers per thread (128 registers/thread)"), std::string::npos);
  EXPECT_NE(profile.limiters[1].suggestion.find("__launch_bounds__"), std::string::npos);
}

TEST(Ncu, LatencyBoundKernelWithATinyGrid) {
  const NcuParse parse = parse_ncu_csv(read_fixture("ncu_details_reduction_synthetic.csv"));
  ASSERT_EQ(parse.kernels.size(), 1u);
  EXPECT_EQ(parse.kernels[0].name, "sum_reduction<256>");
  const KernelProfile profile = profile_from_ncu(parse.kernels[0], {4194304, 1048576}, h100_peaks());
  EXPECT_EQ(profile.bound, Bound::Latency);
  EXPECT_NEAR(profile.duration_ms, 5.632e-3, 1e-12);
  EXPECT_EQ(profile.source_note, "bytes from the task's declaration");
  std::string all;
  for (const auto& limiter : profile.limiters) all += limiter.finding + "\n";
  EXPECT_NE(all.find("neither memory"), std::string::npos);
  EXPECT_NE(all.find("achieved occupancy 32%"), std::string::npos);
  EXPECT_NE(all.find("0.24 of one wave"), std::string::npos);
}

TEST(Ncu, RawPageWithUnitsRow) {
  const NcuParse parse = parse_ncu_csv(read_fixture("ncu_raw_saxpy_synthetic.csv"));
  ASSERT_EQ(parse.kernels.size(), 1u);
  const NcuKernel& kernel = parse.kernels[0];
  EXPECT_DOUBLE_EQ(*kernel.get("dram__bytes_read.sum"), 33.55e6);
  EXPECT_NEAR(*kernel.get("gpu__time_duration.sum"), 17.6e-6, 1e-12);
  const KernelProfile profile = profile_from_ncu(kernel, {50331648, 8388608}, h100_peaks());
  EXPECT_EQ(profile.bound, Bound::Memory);
  EXPECT_NEAR(profile.achieved_gbps, 50.33e6 / 17.6e-6 / 1e9, 1e-6);
  EXPECT_EQ(profile.registers_per_thread, 16);
  EXPECT_DOUBLE_EQ(*profile.achieved_occupancy_pct, 85.0);
}

// Real `ncu --import <rep> --csv --page details` output (ncu 2025.3, H100 80GB HBM3): 20
// columns with the rule columns, metric rows of 15 fields plus a trailing comma, rule rows of
// 20 fields, thousands separators, "Mbyte"/"Ghz"/"us"/"ms" units, "no data" values.
NcuKernel real_kernel(const std::string& fixture_name, NcuParse* out = nullptr) {
  NcuParse parse = parse_ncu_csv(read_fixture(fixture_name));
  EXPECT_EQ(parse.kernels.size(), 1u) << fixture_name;
  EXPECT_EQ(parse.skipped_lines, 0) << fixture_name;
  if (out) *out = parse;
  return parse.kernels.empty() ? NcuKernel{} : parse.kernels[0];
}

std::string all_findings(const KernelProfile& profile) {
  std::string all;
  for (const auto& limiter : profile.limiters) all += limiter.finding + "\n";
  return all;
}

TEST(NcuReal, H100VectorAddParsesEveryMetricRow) {
  NcuParse parse;
  const NcuKernel kernel = real_kernel("h100_vector_add_details.csv", &parse);
  EXPECT_EQ(kernel.name, "vector_add");
  EXPECT_EQ(kernel.grid_size, "(262144, 1, 1)");
  EXPECT_NEAR(*kernel.get("Duration"), 292.26e-6, 1e-12);
  EXPECT_DOUBLE_EQ(*kernel.get("dram__bytes_read.sum"), 536.88e6);
  EXPECT_DOUBLE_EQ(*kernel.get("dram__bytes_write.sum"), 259.32e6);
  EXPECT_DOUBLE_EQ(*kernel.get("sm__sass_thread_inst_executed_op_fadd_pred_on.sum"), 67108864);
  EXPECT_DOUBLE_EQ(*kernel.get("SM Frequency"), 1.59e9);
  EXPECT_DOUBLE_EQ(*kernel.get("Memory Throughput"), 81.27);
  EXPECT_DOUBLE_EQ(*kernel.get("Memory Throughput [byte/second]"), 2.72e12);
  EXPECT_DOUBLE_EQ(*kernel.get("Registers Per Thread"), 16);
  // Rule rows are findings, not metrics: the three rules of this report, in file order.
  ASSERT_EQ(kernel.rules.size(), 3u);
  EXPECT_EQ(kernel.rules[0].name, "SOLBottleneck");
  EXPECT_FALSE(kernel.rules[0].estimated_speedup);
  EXPECT_EQ(kernel.rules[1].name, "HighPipeUtilization");
  EXPECT_EQ(kernel.rules[1].type, "OPT");
  EXPECT_EQ(kernel.rules[1].speedup_type, "local");
  EXPECT_DOUBLE_EQ(*kernel.rules[1].estimated_speedup, 84.57);
  EXPECT_EQ(kernel.rules[2].name, "AchievedOccupancy");
  EXPECT_NE(kernel.rules[2].description.find("achieved occupancy (75.4%)"), std::string::npos);
}

TEST(NcuReal, H100VectorAddIsMemoryBoundNearPeakBandwidth) {
  const NcuKernel kernel = real_kernel("h100_vector_add_details.csv");
  const KernelProfile profile = profile_from_ncu(kernel, {3 * 4.0 * 67108864, 67108864.0}, h100_peaks());
  EXPECT_EQ(profile.bound, Bound::Memory);
  EXPECT_NEAR(profile.duration_ms, 0.29226, 1e-9);
  EXPECT_GT(*profile.dram_throughput_pct, 50);
  EXPECT_DOUBLE_EQ(*profile.sm_throughput_pct, 23.15);
  EXPECT_EQ(profile.source_note, "bytes from DRAM counters");
  // (536.88 + 259.32) MB in 292.26 us = 2724 GB/s; 67,108,864 FADDs = 229.6 GFLOP/s.
  EXPECT_NEAR(profile.achieved_gbps, (536.88e6 + 259.32e6) / 292.26e-6 / 1e9, 1e-6);
  EXPECT_GT(profile.achieved_gbps, 2000);
  EXPECT_LT(profile.achieved_gbps, 3500);
  EXPECT_NEAR(profile.achieved_gflops, 67108864 / 292.26e-6 / 1e9, 1e-6);
  EXPECT_DOUBLE_EQ(*profile.achieved_occupancy_pct, 75.42);
  EXPECT_DOUBLE_EQ(*profile.theoretical_occupancy_pct, 100);
  EXPECT_EQ(profile.registers_per_thread, 16);
  ASSERT_FALSE(profile.limiters.empty());
  EXPECT_NE(profile.limiters[0].finding.find("DRAM throughput at 81%"), std::string::npos);
  const std::string all = all_findings(profile);
  EXPECT_NE(all.find("L2 hit rate is 34%"), std::string::npos);
  // ncu's rules with an estimated speedup, largest first.
  const auto pipe = all.find("ncu HighPipeUtilization"), occupancy = all.find("ncu AchievedOccupancy");
  EXPECT_NE(pipe, std::string::npos);
  EXPECT_NE(occupancy, std::string::npos);
  EXPECT_LT(pipe, occupancy);
  EXPECT_EQ(all.find("ncu SOLBottleneck"), std::string::npos);  // no estimated speedup
}

TEST(NcuReal, H100NaiveSgemmIsBoundByL1NotDram) {
  // The file: SM 61.2%, Memory 91.83% (= L1/TEX 92.47%, L2 13.91%), DRAM 0.34%; ncu's own
  // SOLBottleneck rule says "Start by analyzing L1". The memory hierarchy (L1), not DRAM and
  // not the FP32 pipes, is what limits the naive SGEMM: 17.2 GFLOP in 4.18 ms = 4.1 TFLOP/s.
  const NcuKernel kernel = real_kernel("h100_sgemm_details.csv");
  const double n = 2048;
  const KernelProfile profile = profile_from_ncu(kernel, {3 * 4 * n * n, 2 * n * n * n}, h100_peaks());
  EXPECT_NEAR(profile.duration_ms, 4.18, 1e-9);
  EXPECT_EQ(profile.bound, Bound::Memory);
  EXPECT_LT(*profile.dram_throughput_pct, 1);
  EXPECT_NEAR(profile.achieved_gflops, 2 * 8589934592.0 / 4.18e-3 / 1e9, 1e-3);  // FFMA counts 2
  EXPECT_NEAR(profile.achieved_gbps, (33.62e6 + 14.18e6) / 4.18e-3 / 1e9, 1e-6);  // 11.4 GB/s
  EXPECT_GT(profile.arithmetic_intensity, 300);  // far right of the DRAM ridge
  EXPECT_DOUBLE_EQ(*profile.achieved_occupancy_pct, 98.08);
  EXPECT_EQ(profile.registers_per_thread, 32);
  ASSERT_FALSE(profile.limiters.empty());
  EXPECT_NE(profile.limiters[0].finding.find("L1/TEX"), std::string::npos) << profile.limiters[0].finding;
  EXPECT_NE(profile.limiters[0].finding.find("92%"), std::string::npos) << profile.limiters[0].finding;
  EXPECT_EQ(profile.limiters[0].finding.find("DRAM throughput at"), std::string::npos);
}

TEST(NcuReal, H100RowSoftmaxIsDramBound) {
  // SM 69.39%, Memory = DRAM 77.49%: DRAM leads, both above the busy threshold.
  const NcuKernel kernel = real_kernel("h100_row_softmax_details.csv");
  const KernelProfile profile = profile_from_ncu(kernel, {2 * 4 * 4194304.0, std::nullopt}, h100_peaks());
  EXPECT_EQ(profile.bound, Bound::Memory);
  EXPECT_NEAR(profile.duration_ms, 0.20227, 1e-9);
  EXPECT_NEAR(profile.achieved_gbps, (275.25e6 + 250.05e6) / 202.27e-6 / 1e9, 1e-6);  // 2597 GB/s
  const double flops = 2 * 939524096.0 + 272613376.0 + 67108864.0;
  EXPECT_NEAR(profile.achieved_gflops, flops / 202.27e-6 / 1e9, 1e-3);  // 10.97 TFLOP/s
  EXPECT_DOUBLE_EQ(*profile.achieved_occupancy_pct, 91.81);
  EXPECT_EQ(profile.registers_per_thread, 31);
  EXPECT_NE(profile.limiters.at(0).finding.find("DRAM throughput at 77%"), std::string::npos);
}

// The symptom seen on the H100: "bound: unknown", "0.0 GB/s", "latency: 0.0000 ms".
TEST(NcuReal, H100DiagnosisHasNoZeros) {
  for (const char* name : {"h100_vector_add_details.csv", "h100_sgemm_details.csv", "h100_row_softmax_details.csv"}) {
    const KernelProfile profile = profile_from_ncu(real_kernel(name), {1e6, std::nullopt}, h100_peaks());
    const std::string text = diagnosis(profile, CompileResult{});
    if (std::getenv("KFORGE_PRINT_DIAGNOSIS")) std::printf("== %s\n%s", name, text.c_str());
    EXPECT_EQ(text.find("bound: unknown"), std::string::npos) << text;
    EXPECT_EQ(text.find(" 0.0 GB/s"), std::string::npos) << text;
    EXPECT_EQ(text.find("latency: 0.0000 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("bytes from DRAM counters"), std::string::npos) << text;
    EXPECT_NE(text.find("counters: SM "), std::string::npos) << text;
  }
}

TEST(Ncu, DamagedOutputNeverThrows) {
  const NcuParse parse = parse_ncu_csv(read_fixture("ncu_details_garbage_synthetic.csv"));
  ASSERT_EQ(parse.kernels.size(), 1u);
  EXPECT_GE(parse.skipped_lines, 2);
  const NcuKernel& kernel = parse.kernels[0];
  EXPECT_FALSE(kernel.get("Duration"));  // its row was cut off
  EXPECT_FALSE(kernel.get("SM Active Cycles"));  // "n/a"
  EXPECT_TRUE(kernel.get("Memory Throughput"));
  const KernelProfile profile = profile_from_ncu(kernel, {1000, std::nullopt}, h100_peaks());
  EXPECT_EQ(profile.duration_ms, 0);
  EXPECT_EQ(profile.achieved_gbps, 0);

  for (const char* text : {"", "\n\n", "garbage", "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"",
                           "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Value\"\n\"0\",\"k\",\"Duration\""}) {
    const NcuParse empty = parse_ncu_csv(text);
    EXPECT_TRUE(empty.kernels.empty()) << text;
  }
  NcuKernel no_metrics;
  EXPECT_EQ(classify_ncu(no_metrics), Bound::Unknown);
  EXPECT_TRUE(ncu_limiters(no_metrics, Bound::Unknown).empty());
}

TEST(Ncu, FailureDiagnosis) {
  const NcuFailure refused = diagnose_ncu_failure(
      1, "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters");
  EXPECT_TRUE(refused.counters_forbidden);
  EXPECT_NE(refused.reason.find("not permitted"), std::string::npos);
  const NcuFailure library = diagnose_ncu_failure(1, "==ERROR== LibraryNotLoaded: libcuda.so.1");
  EXPECT_FALSE(library.counters_forbidden);
  EXPECT_NE(library.reason.find("could not load"), std::string::npos);
  EXPECT_NE(diagnose_ncu_failure(0, "==WARNING== No kernels were profiled.").reason.find("no kernel"),
            std::string::npos);
  EXPECT_EQ(diagnose_ncu_failure(3, "").reason, "ncu exited with status 3");
  EXPECT_TRUE(diagnose_ncu_failure(0, "==PROF== Disconnected").reason.empty());
}

TEST(Ncu, ProfileCommand) {
  NcuInvocation invocation;
  invocation.ncu = "/usr/local/cuda/bin/ncu";
  invocation.kernel = "vector_add";
  invocation.report = "/tmp/x/profile";
  invocation.target = {"kforge-worker", "--backend", "cuda", "--oneshot", "/tmp/x/request.json"};
  const auto command = ncu_profile_command(invocation);
  auto has = [&](const std::string& arg) { return std::find(command.begin(), command.end(), arg) != command.end(); };
  EXPECT_EQ(command.front(), "/usr/local/cuda/bin/ncu");
  EXPECT_TRUE(has("SpeedOfLight") && has("MemoryWorkloadAnalysis") && has("Occupancy") && has("LaunchStats") &&
              has("ComputeWorkloadAnalysis"));
  EXPECT_TRUE(has("regex:^vector_add([^A-Za-z0-9_]|$)"));
  EXPECT_TRUE(has("--launch-skip") && has("--launch-count"));
  EXPECT_EQ(command.back(), "/tmp/x/request.json");
  const auto import = ncu_import_command("ncu", "/tmp/x/profile.ncu-rep");
  EXPECT_TRUE(std::find(import.begin(), import.end(), "--csv") != import.end());
  EXPECT_TRUE(std::find(import.begin(), import.end(), "details") != import.end());
}

TEST(Rocprof, KernelTrace) {
  const auto dispatches = parse_rocprofv3_kernel_trace(read_fixture("rocprofv3_kernel_trace_synthetic.csv"));
  ASSERT_EQ(dispatches.size(), 3u);  // the truncated last row is dropped
  const auto dispatch = find_dispatch(dispatches, "vector_add");
  ASSERT_TRUE(dispatch);
  EXPECT_EQ(dispatch->dispatch_id, "3");  // the last complete one
  EXPECT_NEAR(dispatch->duration_ms(), 0.0188, 1e-12);
  EXPECT_EQ(dispatch->workgroup_size, 256);
  EXPECT_EQ(dispatch->grid_size, 4194304);
  EXPECT_EQ(dispatch->vgprs, 8);
  EXPECT_FALSE(find_dispatch(dispatches, "vector"));  // whole names only
}

TEST(Rocprof, CounterCollectionSumsRepeatedCounters) {
  const auto dispatches = parse_rocprofv3_counters(read_fixture("rocprofv3_counter_collection_synthetic.csv"));
  ASSERT_EQ(dispatches.size(), 1u);
  EXPECT_DOUBLE_EQ(dispatches[0].counters.at("FETCH_SIZE"), 32768.5);
  EXPECT_DOUBLE_EQ(dispatches[0].counters.at("SQ_WAVES"), 65536);
  EXPECT_FALSE(dispatches[0].counters.count("GRBM_COUNT"));  // value was not a number

  const auto trace = parse_rocprofv3_kernel_trace(read_fixture("rocprofv3_kernel_trace_synthetic.csv"));
  DevicePeaks mi300{5300, 163400, std::nullopt, "table", "table"};
  const KernelProfile profile = profile_from_rocprofv3(*find_dispatch(trace, "vector_add"), &dispatches[0],
                                                       {50331648, 4194304}, mi300);
  EXPECT_EQ(profile.source, ProfileSource::Rocprofv3);
  EXPECT_NEAR(profile.achieved_gbps, 1024 * (32768.5 + 16384) / 18.8e-6 / 1e9, 1e-6);
  EXPECT_EQ(profile.bound, Bound::Memory);
  EXPECT_EQ(profile.registers_per_thread, 8);
}

TEST(Rocprof, ComputeAnalysisCsv) {
  const auto metrics = parse_rocprof_compute_analysis(read_fixture("rocprof_compute_analysis_synthetic.csv"));
  ASSERT_TRUE(metrics.count("HBM Bandwidth"));
  EXPECT_DOUBLE_EQ(metrics.at("HBM Bandwidth").value, 4210.6e9);
  EXPECT_EQ(metrics.at("HBM Bandwidth").unit, "byte/second");
  EXPECT_DOUBLE_EQ(*metrics.at("HBM Bandwidth").pct_of_peak, 79.4);
  EXPECT_DOUBLE_EQ(metrics.at("Grid Size").value, 4194304);  // second table, "Value" column
  EXPECT_FALSE(metrics.count("Broken Row"));
  const KernelProfile profile = profile_from_rocprof_compute(metrics, 0.0188, {50331648, 4194304},
                                                             {5300, 163400, std::nullopt, "table", "table"});
  EXPECT_EQ(profile.source, ProfileSource::RocprofCompute);
  EXPECT_EQ(profile.bound, Bound::Memory);
  EXPECT_NEAR(profile.achieved_gbps, 4210.6, 1e-9);
  EXPECT_DOUBLE_EQ(*profile.achieved_occupancy_pct, 61.9);
  EXPECT_DOUBLE_EQ(*profile.l2_hit_rate_pct, 31.8);
  EXPECT_NE(profile.limiters[0].finding.find("HBM bandwidth at 79%"), std::string::npos);
}

TEST(Rocprof, ComputeAnalysisTerminalTable) {
  const auto metrics = parse_rocprof_compute_analysis(read_fixture("rocprof_compute_table_synthetic.txt"));
  ASSERT_EQ(metrics.size(), 3u);
  EXPECT_DOUBLE_EQ(metrics.at("VALU Utilization").value, 88.1);
  const KernelProfile profile =
      profile_from_rocprof_compute(metrics, std::nullopt, {1, 1}, {5300, 163400, std::nullopt, "", ""});
  EXPECT_EQ(profile.bound, Bound::Compute);
  EXPECT_TRUE(parse_rocprof_compute_analysis("").empty());
  EXPECT_TRUE(parse_rocprof_compute_analysis("│ a │ b │\n│ Metric │ x │ y │").empty());
}

}  // namespace
}  // namespace kforge
