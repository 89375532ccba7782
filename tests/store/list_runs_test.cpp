#include "store/run_store.h"
#include "support/temp_dir.h"
#include "util/files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kforge {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

void make_run(const std::filesystem::path& dir, const std::string& task, double best_ms,
              const std::string& status) {
  auto store = RunStore::create(dir);
  RunSettings settings;
  settings.task_name = task;
  settings.status = status;
  store.write_settings(settings);
  store.set_baseline(metrics_from_json({{"median_ms", 4.0}}));
  CandidateRecord c;
  c.source = "k";
  const auto id = store.insert_candidate(c);
  CandidateResult result;
  result.metrics = metrics_from_json({{"median_ms", best_ms}});  // no speedup: derived from the baseline
  store.update_candidate_result(id, result);
  store.insert_candidate(c);  // still pending
  store.begin_generation(0);
  GenerationRecord g;
  g.generation = 0;
  store.finish_generation(g);
}

TEST(RunStoreListRuns, ListsRunsNewestFirstWithTheirBest) {
  TempDir tmp;
  make_run(tmp.path() / "20240101-100000-saxpy", "saxpy", 2.0, "finished");
  make_run(tmp.path() / "20240202-100000-reduce", "reduce", 1.0, "interrupted");
  std::filesystem::create_directories(tmp.path() / "not-a-run");  // no run.db: skipped
  std::filesystem::create_directories(tmp.path() / "20240303-000000-broken");
  write_file(tmp.path() / "20240303-000000-broken" / "run.db", "garbage garbage garbage");
  write_file(tmp.path() / "notes.txt", "x");

  auto runs = RunStore::list_runs(tmp.path());
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].path.filename(), "20240303-000000-broken");
  EXPECT_THAT(runs[0].error, HasSubstr("not a kforge run folder"));

  EXPECT_EQ(runs[1].task_name, "reduce");
  EXPECT_EQ(runs[1].status, "interrupted");
  EXPECT_EQ(runs[1].best_median_ms, 1.0);
  EXPECT_EQ(runs[1].best_speedup, 4.0);
  EXPECT_TRUE(runs[1].error.empty());

  EXPECT_EQ(runs[2].task_name, "saxpy");
  EXPECT_EQ(runs[2].candidates, 2);
  EXPECT_EQ(runs[2].correct, 1);
  EXPECT_EQ(runs[2].last_generation, 0);
  EXPECT_EQ(runs[2].best_speedup, 2.0);
  EXPECT_FALSE(runs[2].started_at.empty());

  EXPECT_TRUE(RunStore::list_runs(tmp.path() / "absent").empty());
}

TEST(RunStoreListRuns, NewRunDirIsTimestampedAndUnique) {
  TempDir tmp;
  auto first = RunStore::new_run_dir(tmp.path(), "my task/v2");
  EXPECT_EQ(first.parent_path(), tmp.path());
  const auto name = first.filename().string();
  ASSERT_GE(name.size(), 16u);
  EXPECT_EQ(name[8], '-');
  EXPECT_THAT(name, ::testing::EndsWith("-my_task_v2"));
  RunStore::create(first);
  auto second = RunStore::new_run_dir(tmp.path(), "my task/v2");
  if (second.filename().string().substr(0, 15) == name.substr(0, 15)) {  // same second
    EXPECT_THAT(second.filename().string(), ::testing::EndsWith("-2"));
  }
  EXPECT_NE(first, second);
}

}  // namespace
}  // namespace kforge
