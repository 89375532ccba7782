// CSV, unit and profiler-output parsing on recorded-format fixtures, including damaged input.
#include <gtest/gtest.h>

#include "profile/csv.h"
#include "profile/ncu.h"
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
