#include "store/run_store.h"
#include "support/temp_dir.h"

#include <gtest/gtest.h>

#include <thread>

namespace kforge {
namespace {

using testing::TempDir;

CandidateRecord make_candidate(int generation, std::string op, std::vector<std::int64_t> parents,
                               std::string source) {
  CandidateRecord r;
  r.generation = generation;
  r.operator_name = std::move(op);
  r.parent_ids = std::move(parents);
  r.source = std::move(source);
  r.params = {{"BLOCK", 256}, {"VEC", 4}};
  r.compile_options = {"-O3", "--use_fast_math"};
  r.strategy = "vectorize";
  r.rationale = "wider loads";
  return r;
}

CandidateResult correct_result(double median_ms) {
  CandidateResult result;
  result.status = CandidateStatus::Correct;
  result.metrics = metrics_from_json({{"median_ms", median_ms}, {"speedup", 2.0 / median_ms}});
  return result;
}

TEST(RunStoreCandidates, InsertThenGetRoundTripsEveryField) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  auto record = make_candidate(3, "llm-mutate", {7, 9}, "__global__ void k() {}\n");
  record.status = CandidateStatus::Correct;  // ignored: new candidates are always pending
  const auto id = store.insert_candidate(record);
  EXPECT_GT(id, 0);

  auto got = store.get_candidate(id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->id, id);
  EXPECT_EQ(got->generation, 3);
  EXPECT_EQ(got->operator_name, "llm-mutate");
  EXPECT_EQ(got->parent_ids, (std::vector<std::int64_t>{7, 9}));
  EXPECT_EQ(got->source, record.source);
  EXPECT_EQ(got->params, record.params);
  EXPECT_EQ(got->compile_options, record.compile_options);
  EXPECT_EQ(got->strategy, "vectorize");
  EXPECT_EQ(got->rationale, "wider loads");
  EXPECT_EQ(got->status, CandidateStatus::Pending);
  EXPECT_FALSE(got->source_hash.empty());
  EXPECT_FALSE(got->created_at.empty());
  EXPECT_TRUE(got->evaluated_at.empty());
  EXPECT_TRUE(got->metrics.empty());
  EXPECT_FALSE(store.get_candidate(id + 100));
}

TEST(RunStoreCandidates, ResultUpdateStoresJsonColumnsAndStampsEvaluation) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  const auto id = store.insert_candidate(make_candidate(0, "seed", {}, "src"));
  store.update_candidate_status(id, CandidateStatus::Compiling);
  EXPECT_EQ(store.get_candidate(id)->status, CandidateStatus::Compiling);

  CandidateResult result = correct_result(1.25);
  result.metrics.sizes = {size_result_from_json({{"name", "small"}, {"median_ms", 0.1}}, "")};
  result.compile_stats = {{"registers", 32}};
  result.profile = {{"bound", "memory"}, {"achieved_gbps", 900.5}};
  result.compile_log = "ok";
  result.analysis = "memory bound";
  store.update_candidate_result(id, result);

  auto got = store.get_candidate(id);
  EXPECT_EQ(got->status, CandidateStatus::Correct);
  EXPECT_EQ(got->median_ms(), 1.25);
  ASSERT_EQ(got->metrics.sizes.size(), 1u);
  EXPECT_EQ(got->metrics.sizes[0].name, "small");
  EXPECT_EQ(got->metrics.sizes[0].extra["median_ms"], 0.1);
  EXPECT_EQ(got->compile_stats["registers"], 32);
  EXPECT_EQ(got->profile["bound"], "memory");
  EXPECT_EQ(got->compile_log, "ok");
  EXPECT_EQ(got->analysis, "memory bound");
  EXPECT_FALSE(got->evaluated_at.empty());

  store.set_candidate_analysis(id, "revised");
  store.set_candidate_profile(id, {{"bound", "compute"}});
  got = store.get_candidate(id);
  EXPECT_EQ(got->analysis, "revised");
  EXPECT_EQ(got->profile["bound"], "compute");
}

TEST(RunStoreCandidates, UpdatingAnUnknownCandidateThrows) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  EXPECT_THROW(store.update_candidate_status(42, CandidateStatus::Compiling), StoreError);
  EXPECT_THROW(store.update_candidate_result(42, correct_result(1)), StoreError);
}

TEST(RunStoreCandidates, BestIsFastestCorrectIgnoringFailures) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  EXPECT_FALSE(store.best_candidate());
  const auto slow = store.insert_candidate(make_candidate(0, "seed", {}, "a"));
  const auto fast = store.insert_candidate(make_candidate(1, "tune", {slow}, "b"));
  const auto wrong = store.insert_candidate(make_candidate(1, "tune", {slow}, "c"));
  const auto tie = store.insert_candidate(make_candidate(2, "tune", {fast}, "d"));
  store.insert_candidate(make_candidate(2, "tune", {fast}, "e"));  // stays pending
  store.update_candidate_result(slow, correct_result(2.0));
  store.update_candidate_result(fast, correct_result(0.5));
  store.update_candidate_result(tie, correct_result(0.5));
  CandidateResult incorrect = correct_result(0.01);
  incorrect.status = CandidateStatus::Incorrect;
  store.update_candidate_result(wrong, incorrect);

  auto best = store.best_candidate();
  ASSERT_TRUE(best);
  EXPECT_EQ(best->id, fast);  // ties go to the earlier candidate

  CandidateFilter top;
  top.statuses = {CandidateStatus::Correct};
  top.fastest_first = true;
  auto ranked = store.list_candidates(top);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked[0].id, fast);
  EXPECT_EQ(ranked[1].id, tie);
  EXPECT_EQ(ranked[2].id, slow);

  auto counts = store.status_counts();
  EXPECT_EQ(counts["correct"], 3);
  EXPECT_EQ(counts["incorrect"], 1);
  EXPECT_EQ(counts["pending"], 1);
  EXPECT_EQ(store.count_candidates(), 5);
}

TEST(RunStoreCandidates, FiltersByGenerationStatusAndLimit) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  for (int g = 0; g < 3; ++g)
    for (int i = 0; i < 4; ++i)
      store.insert_candidate(make_candidate(g, "tune", {}, std::to_string(g * 10 + i)));
  CandidateFilter gen1;
  gen1.generation = 1;
  auto in_gen1 = store.list_candidates(gen1);
  ASSERT_EQ(in_gen1.size(), 4u);
  for (const auto& c : in_gen1) EXPECT_EQ(c.generation, 1);
  gen1.limit = 2;
  EXPECT_EQ(store.list_candidates(gen1).size(), 2u);
  CandidateFilter correct;
  correct.statuses = {CandidateStatus::Correct};
  EXPECT_TRUE(store.list_candidates(correct).empty());
  EXPECT_EQ(store.list_candidates().size(), 12u);
}

TEST(RunStoreCandidates, LineageFollowsFirstParentsToTheRoot) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  const auto root = store.insert_candidate(make_candidate(0, "seed", {}, "r"));
  const auto other = store.insert_candidate(make_candidate(0, "seed", {}, "o"));
  const auto child = store.insert_candidate(make_candidate(1, "tune", {root}, "c"));
  const auto cross = store.insert_candidate(make_candidate(2, "crossover", {child, other}, "x"));
  const auto leaf = store.insert_candidate(make_candidate(3, "llm-mutate", {cross}, "l"));

  auto chain = store.lineage(leaf);
  ASSERT_EQ(chain.size(), 4u);
  EXPECT_EQ(chain[0].id, root);
  EXPECT_EQ(chain[1].id, child);
  EXPECT_EQ(chain[2].id, cross);
  EXPECT_EQ(chain[3].id, leaf);
  EXPECT_EQ(store.lineage(root).size(), 1u);
  EXPECT_THROW(store.lineage(999), StoreError);

  // A discarded parent ends the chain instead of failing it.
  store.delete_candidate(root);
  EXPECT_EQ(store.lineage(leaf).front().id, child);
}

TEST(RunStoreCandidates, LineageSurvivesACycle) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  const auto a = store.insert_candidate(make_candidate(0, "seed", {2}, "a"));  // claims #2
  const auto b = store.insert_candidate(make_candidate(1, "tune", {a}, "b"));
  ASSERT_EQ(b, 2);
  EXPECT_EQ(store.lineage(b).size(), 2u);
}

TEST(RunStoreCandidates, FindsDuplicatesBySourceHash) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  auto first = make_candidate(0, "seed", {}, "same");
  const auto id1 = store.insert_candidate(first);
  const auto id2 = store.insert_candidate(first);
  auto hash = store.get_candidate(id1)->source_hash;
  EXPECT_EQ(hash, store.get_candidate(id2)->source_hash);
  EXPECT_EQ(store.find_by_source_hash(hash)->id, id1);

  auto other_params = first;
  other_params.params["BLOCK"] = 128;
  const auto id3 = store.insert_candidate(other_params);
  EXPECT_NE(store.get_candidate(id3)->source_hash, hash);

  auto explicit_hash = first;
  explicit_hash.source_hash = "custom-key";
  const auto id4 = store.insert_candidate(explicit_hash);
  EXPECT_EQ(store.find_by_source_hash("custom-key")->id, id4);
  EXPECT_FALSE(store.find_by_source_hash("nope"));
}

TEST(RunStoreCandidates, InFlightAreThePendingAndCompilingOnes) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  const auto a = store.insert_candidate(make_candidate(0, "seed", {}, "a"));
  const auto b = store.insert_candidate(make_candidate(0, "seed", {}, "b"));
  const auto c = store.insert_candidate(make_candidate(0, "seed", {}, "c"));
  store.update_candidate_status(b, CandidateStatus::Compiling);
  store.update_candidate_result(c, correct_result(1));
  auto in_flight = store.in_flight_candidates();
  ASSERT_EQ(in_flight.size(), 2u);
  EXPECT_EQ(in_flight[0].id, a);
  EXPECT_EQ(in_flight[1].id, b);
  store.delete_candidate(a);
  EXPECT_EQ(store.in_flight_candidates().size(), 1u);
}

TEST(RunStoreCandidates, ManyThreadsCanWriteAndReadAtOnce) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  constexpr int kThreads = 8, kPerThread = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&store, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto id = store.insert_candidate(
            make_candidate(t, "tune", {}, "t" + std::to_string(t) + "i" + std::to_string(i)));
        store.update_candidate_status(id, CandidateStatus::Compiling);
        store.update_candidate_result(id, correct_result(1.0 + i));
        EvaluationRecord evaluation;
        evaluation.candidate_id = id;
        evaluation.kind = "time";
        store.add_evaluation(evaluation);
        (void)store.best_candidate();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(store.count_candidates(), kThreads * kPerThread);
  EXPECT_TRUE(store.in_flight_candidates().empty());
  EXPECT_EQ(store.best_candidate()->median_ms(), 1.0);
}

}  // namespace
}  // namespace kforge
