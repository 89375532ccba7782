// `kforge optimize` end to end on OpenCL (PoCL in CI): a full run, a run killed with SIGKILL
// and resumed, the run commands, and clear errors for bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <set>
#include <thread>

#include "backend/backend.h"
#include "cli_runner.h"
#include "store/run_store.h"
#include "store/source_hash.h"

namespace kforge {
namespace {
using testing::make_temp_dir;
using testing::run_kforge;
using testing::source_dir;

const std::string kQuickEval = " --max-seconds 0.1 --seeds 1 --timeout 20";

bool opencl_usable(std::string& why) {
  const Availability availability = make_backend(Language::OpenCL)->probe();
  why = availability.reason;
  return availability.usable;
}

std::string task_dir() { return (source_dir() / "tests/kernels/tunable_vadd").string(); }

nlohmann::json last_json(const std::string& output) {
  const auto start = output.rfind("\n[");
  return nlohmann::json::parse(output.substr(start == std::string::npos ? 0 : start + 1));
}

TEST(Optimize, RunsEndToEndAndWritesTheReport) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  const auto runs = make_temp_dir("kforge-runs");
  const auto result = run_kforge("optimize " + task_dir() + " --generations 2 --population 3 --seed 11 --json --runs-dir " +
                                 runs.string() + kQuickEval);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const char* banner : {"[1/6] detect", "[2/6] profile", "[3/6] baseline", "[4/6] evolve",
                             "[5/6] final verification", "[6/6] report"})
    EXPECT_NE(result.output.find(banner), std::string::npos) << banner;
  const auto summary = last_json(result.output).at(0);
  const std::filesystem::path run_dir = summary.at("run_dir").get<std::string>();
  EXPECT_TRUE(std::filesystem::exists(run_dir / "report.html"));
  EXPECT_TRUE(std::filesystem::exists(run_dir / "report.md"));
  const RunStore store = RunStore::open_read_only(run_dir);
  EXPECT_EQ(store.status(), "finished");
  EXPECT_EQ(store.last_completed_generation().value_or(-1), 2);
  EXPECT_GE(store.count_candidates(), 4);  // baseline + offspring
  EXPECT_TRUE(store.in_flight_candidates().empty());
  EXPECT_GE(summary.at("speedup").get<double>(), 0.5);

  const auto listing = run_kforge("runs --runs-dir " + runs.string());
  EXPECT_NE(listing.output.find("tunable_vadd"), std::string::npos) << listing.output;
  const auto shown = run_kforge("show " + run_dir.string() + " 2");
  EXPECT_EQ(shown.exit_code, 0) << shown.output;
  EXPECT_NE(shown.output.find("lineage"), std::string::npos);
  const auto report = run_kforge("report " + run_dir.string());
  EXPECT_EQ(report.exit_code, 0) << report.output;
}

TEST(Optimize, ResumesAfterSigkillWithNothingLostButWorkInFlight) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  const auto runs = make_temp_dir("kforge-resume");
  const pid_t pid = testing::start_kforge({"optimize", task_dir(), "--generations", "4", "--population", "3", "--seed",
                                           "5", "--runs-dir", runs.string(), "--max-seconds", "0.1", "--seeds", "1"});
  // Kill it mid-run: once a few candidates are committed but the run is not finished.
  std::filesystem::path run_dir;
  std::int64_t committed_before_kill = 0;
  for (int i = 0; i < 600 && committed_before_kill < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (const auto& entry : std::filesystem::directory_iterator(runs)) run_dir = entry.path();
    if (run_dir.empty() || !std::filesystem::exists(run_dir / "run.db")) continue;
    try {
      committed_before_kill = RunStore::open_read_only(run_dir).count_candidates(
          {.statuses = {CandidateStatus::Correct, CandidateStatus::Incorrect, CandidateStatus::CompileError,
                        CandidateStatus::RuntimeError, CandidateStatus::Timeout}});
    } catch (const std::exception&) {
    }
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ASSERT_GE(committed_before_kill, 5) << "the run did not get far enough to be killed mid-way";
  std::vector<std::int64_t> ids_before;
  for (const auto& c : RunStore::open_read_only(run_dir).list_candidates())
    if (!is_in_flight(c.status)) ids_before.push_back(c.id);

  const auto resumed = run_kforge("optimize --resume " + run_dir.string() + kQuickEval);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming"), std::string::npos);
  const RunStore store = RunStore::open_read_only(run_dir);
  EXPECT_EQ(store.status(), "finished");
  EXPECT_EQ(store.last_completed_generation().value_or(-1), 4);
  EXPECT_TRUE(store.in_flight_candidates().empty());
  // Every candidate finished before the kill is still there, unchanged in status.
  for (const auto id : ids_before) EXPECT_TRUE(store.get_candidate(id).has_value()) << id;
  // No variant was evaluated twice across the kill.
  std::set<std::string> hashes;
  for (const auto& c : store.list_candidates())
    EXPECT_TRUE(hashes.insert(dedup_hash(c.source, c.params, c.compile_options)).second) << "duplicate #" << c.id;
}

TEST(Optimize, BadInputGetsOneClearLine) {
  const auto not_a_run = make_temp_dir("kforge-not-a-run");
  const auto resumed = run_kforge("optimize --resume " + not_a_run.string());
  EXPECT_EQ(resumed.exit_code, 1);
  EXPECT_NE(resumed.output.find("not a kforge run"), std::string::npos) << resumed.output;

  const auto missing = run_kforge("optimize /nonexistent/kernel.cu");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("/nonexistent/kernel.cu"), std::string::npos) << missing.output;

  const auto folder = make_temp_dir("kforge-bad-manifest");
  std::FILE* f = std::fopen((folder / "kforge.toml").c_str(), "w");
  std::fputs("[task]\nname = \"x\"\nlanguage = \"opencl\"\nsource = \"missing.cl\"\n", f);
  std::fclose(f);
  const auto bad = run_kforge("bench " + folder.string());
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("kforge.toml"), std::string::npos) << bad.output;
  EXPECT_LE(std::count(bad.output.begin(), bad.output.end(), '\n'), 2) << bad.output;
}

}  // namespace
}  // namespace kforge
