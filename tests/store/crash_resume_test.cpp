// A run killed with SIGKILL must lose nothing it had committed: the child process below
// writes candidates and reports each commit through a pipe; the parent kills it while it
// is still writing, reopens the folder and checks every acknowledged state is there.
#include "store/run_store.h"
#include "support/temp_dir.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <thread>

namespace kforge {
namespace {

using testing::TempDir;

constexpr int kFinished = 30;

void report(int fd, const std::string& line) {
  const std::string text = line + "\n";
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) ::_exit(4);
}

// Runs in the child: never returns.
[[noreturn]] void child_writer(const std::filesystem::path& run_dir, int fd) {
  try {
    auto store = RunStore::open(run_dir);
    auto insert = [&](int i) {
      CandidateRecord c;
      c.generation = i / 10;
      c.operator_name = "tune";
      c.source = "kernel " + std::to_string(i);
      return store.insert_candidate(c);
    };
    for (int i = 0; i < kFinished; ++i) {
      const auto id = insert(i);
      store.update_candidate_status(id, CandidateStatus::Compiling);
      CandidateResult result;
      result.metrics = metrics_from_json({{"median_ms", 1.0 + i}});
      store.update_candidate_result(id, result);
      report(fd, "done " + std::to_string(id));
    }
    report(fd, "pending " + std::to_string(insert(kFinished)));
    const auto compiling = insert(kFinished + 1);
    store.update_candidate_status(compiling, CandidateStatus::Compiling);
    report(fd, "compiling " + std::to_string(compiling));
    report(fd, "ready 0");
    // Keep writing so the kill lands in the middle of some transaction.
    for (int i = kFinished + 2;; ++i) {
      const auto id = insert(i);
      store.update_candidate_status(id, CandidateStatus::Compiling);
      store.add_event("filler " + std::to_string(id));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child: %s\n", e.what());
    ::_exit(3);
  }
}

TEST(RunStoreCrash, SigkillLosesOnlyInFlightCandidates) {
  TempDir tmp;
  const auto run_dir = tmp.path() / "run";
  RunStore::create(run_dir).write_settings(RunSettings{});

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    child_writer(run_dir, fds[1]);
  }
  ::close(fds[1]);

  std::map<std::string, std::vector<std::int64_t>> acknowledged;
  std::string buffer;
  char chunk[256];
  while (acknowledged["ready"].empty()) {
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    ASSERT_GT(n, 0) << "child exited before it was ready";
    buffer.append(chunk, static_cast<std::size_t>(n));
    std::size_t newline;
    while ((newline = buffer.find('\n')) != std::string::npos) {
      std::istringstream line(buffer.substr(0, newline));
      buffer.erase(0, newline + 1);
      std::string what;
      std::int64_t id = 0;
      line >> what >> id;
      acknowledged[what].push_back(id);
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int wstatus = 0;
  ASSERT_EQ(::waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(wstatus)) << "child ended on its own with status " << wstatus;
  ::close(fds[0]);

  auto store = RunStore::open(run_dir);
  ASSERT_EQ(acknowledged["done"].size(), static_cast<std::size_t>(kFinished));
  for (auto id : acknowledged["done"]) {
    auto c = store.get_candidate(id);
    ASSERT_TRUE(c) << "committed candidate #" << id << " was lost";
    EXPECT_EQ(c->status, CandidateStatus::Correct);
    EXPECT_TRUE(c->median_ms());
  }
  auto in_flight = store.in_flight_candidates();
  auto has = [&](std::int64_t id, CandidateStatus status) {
    for (const auto& c : in_flight)
      if (c.id == id) return c.status == status;
    return false;
  };
  EXPECT_TRUE(has(acknowledged["pending"].at(0), CandidateStatus::Pending));
  EXPECT_TRUE(has(acknowledged["compiling"].at(0), CandidateStatus::Compiling));
  for (const auto& c : store.list_candidates())
    if (c.status != CandidateStatus::Correct) {
      EXPECT_TRUE(is_in_flight(c.status)) << c.id;
    }
  EXPECT_EQ(store.best_candidate()->median_ms(), 1.0);

  // The database is intact and the resumed run can keep writing.
  {
    SQLite::Database raw((run_dir / "run.db").string(), SQLite::OPEN_READONLY);
    EXPECT_EQ(raw.execAndGet("PRAGMA integrity_check").getString(), "ok");
  }
  for (const auto& c : in_flight) store.update_candidate_status(c.id, CandidateStatus::Pending);
  CandidateRecord next;
  next.source = "after resume";
  EXPECT_GT(store.insert_candidate(next), acknowledged["compiling"].at(0));
}

}  // namespace
}  // namespace kforge
