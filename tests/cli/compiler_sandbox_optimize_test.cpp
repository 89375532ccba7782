// `kforge optimize` meets a compiler-crashing candidate (the macro-bomb family: a deep
// expression that kills the compiler) from a scripted LLM: the candidate is a compile_error
// with "compiler crashed (signal 11)", the run finishes; and a run killed mid-way is resumed
// with the same candidate proposed again, and finishes too. Before the sandbox, the compiler
// ran inside kforge: the first reply ended the run, and every --resume died again.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>

#include <array>
#include <chrono>
#include <thread>

#include "backend/backend.h"
#include "store/run_store.h"
#include "../search/test_llm_support.h"

namespace kforge {
namespace {
using namespace llm_test;
using llm::testing::openai_reply;

const std::filesystem::path kTask = std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/compiler";

// Every other kernel the model writes is the crashing one; repairs and the rest are correct.
ScriptedReply script(const ReceivedRequest& request, std::atomic<int>& code_requests) {
  const auto reply = [](const std::string& text) { return ScriptedReply{200, openai_reply(text, 100, 100), {}, {}}; };
  const std::string user = last_user_text(request);
  const std::string correct = read_all(kTask / "correct.cl");
  if (starts_with(user, "# Diagnose")) return reply("Memory bound.");
  if (starts_with(user, "# Ideas")) return reply("1. deeper expressions\n2. fewer branches\n");
  const int code = code_requests++;
  if (starts_with(user, "# Repair") || code % 2 == 1)
    return reply(whole_file_reply("variant " + std::to_string(code), "plain",
                                  "#define KF_VARIANT " + std::to_string(code) + "\n" + correct));
  return reply(whole_file_reply("macro bomb", "constant folding", read_all(kTask / "deep_expression_crash.cl")));
}

struct Env {
  Env(const std::string& url) {
    ::setenv("OPENAI_BASE_URL", (url + "/v1").c_str(), 1);
    ::setenv("OPENAI_API_KEY", kSecret, 1);
    ::setenv("KFORGE_COMPILE_STACK_KB", "256", 1);  // the 1024-deep expression then crashes the compiler
  }
  ~Env() {
    for (const char* name : {"OPENAI_BASE_URL", "OPENAI_API_KEY", "KFORGE_COMPILE_STACK_KB"}) ::unsetenv(name);
  }
};

std::string run(const std::string& arguments, int& exit_code) {
  const std::string command = (std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge").string() + " " + arguments + " 2>&1";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  std::array<char, 4096> chunk{};
  while (pipe && std::fgets(chunk.data(), chunk.size(), pipe)) output += chunk.data();
  const int status = pipe ? ::pclose(pipe) : -1;
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

std::vector<CandidateRecord> crashed_candidates(const RunStore& store) {
  std::vector<CandidateRecord> crashed;
  for (auto& c : store.list_candidates())
    if (c.source.find("#define E10(x)") != std::string::npos) crashed.push_back(c);
  return crashed;
}

TEST(CompilerSandboxOptimize, AMacroBombCandidateIsACompileErrorAndTheRunAndItsResumeFinish) {
  if (!make_backend(Language::OpenCL)->probe().usable) GTEST_SKIP() << "no OpenCL device";
  std::atomic<int> code_requests{0};
  FakeLlmServer server([&](const ReceivedRequest& request, int) { return script(request, code_requests); });
  Env env(server.url());
  const auto runs = make_temp_dir("kforge-bomb-runs");
  const std::string quick = " --max-seconds 0.05 --seeds 1 --timeout 20 --llm openai:test-model --llm-only";

  // 1. A whole run: the bomb is proposed, is a compile_error, and the run finishes.
  int exit_code = -1;
  const std::string output = run("optimize " + (kTask / "kforge.toml").string() + " --generations 2 --population 2" +
                                     " --seed 7 --json --runs-dir " + runs.string() + quick,
                                 exit_code);
  ASSERT_EQ(exit_code, 0) << output;
  std::filesystem::path run_dir;
  for (const auto& entry : std::filesystem::directory_iterator(runs)) run_dir = entry.path();
  {
    const RunStore store = RunStore::open_read_only(run_dir);
    EXPECT_EQ(store.status(), "finished");
    const auto crashed = crashed_candidates(store);
    ASSERT_FALSE(crashed.empty()) << "the scripted bomb was never proposed\n" << output;
    for (const auto& c : crashed) {
      EXPECT_EQ(c.status, CandidateStatus::CompileError) << c.status_message;
      EXPECT_EQ(c.status_message, "compiler crashed (signal 11)");
    }
  }

  // 2. A run killed mid-way, then resumed: the bomb is proposed again and the resume finishes.
  const auto runs2 = make_temp_dir("kforge-bomb-resume");
  const std::string command = (std::filesystem::path(KFORGE_BINARY_DIR) / "bin/kforge").string() + " optimize " +
                              (kTask / "kforge.toml").string() + " --generations 3 --population 2 --seed 8 --runs-dir " +
                              runs2.string() + quick;
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen((runs2.string() + ".log").c_str(), "w", stdout);
    std::freopen((runs2.string() + ".log").c_str(), "a", stderr);
    ::execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::filesystem::path run_dir2;
  std::int64_t committed = 0;
  for (int i = 0; i < 3000 && committed < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    for (const auto& entry : std::filesystem::directory_iterator(runs2)) run_dir2 = entry.path();
    if (run_dir2.empty() || !std::filesystem::exists(run_dir2 / "run.db")) continue;
    try {
      committed = RunStore::open_read_only(run_dir2).count_candidates(
          {.statuses = {CandidateStatus::Correct, CandidateStatus::CompileError}});
    } catch (const std::exception&) {
    }
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ASSERT_GE(committed, 1) << "the run did not get far enough to be killed mid-way: " << read_all(runs2.string() + ".log");
  const std::string resumed = run("optimize --resume " + run_dir2.string() + " --max-seconds 0.05 --seeds 1", exit_code);
  ASSERT_EQ(exit_code, 0) << resumed;
  const RunStore store = RunStore::open_read_only(run_dir2);
  EXPECT_EQ(store.status(), "finished");
  const auto crashed = crashed_candidates(store);
  EXPECT_FALSE(crashed.empty()) << "the bomb was never proposed in the killed and resumed run";
  for (const auto& c : crashed) EXPECT_EQ(c.status, CandidateStatus::CompileError) << c.status_message;
  std::filesystem::remove_all(runs);
  std::filesystem::remove_all(runs2);
  std::filesystem::remove(runs2.string() + ".log");
}

}  // namespace
}  // namespace kforge
