// SIGINT/SIGTERM of a real `kforge optimize` on PoCL mid-run: no worker process and no
// worker temp folder left, run marked interrupted, the --resume line printed, and --resume
// finishes it. And two writers on one run folder: the second is refused, naming the PID.
#include <gtest/gtest.h>

#include <fcntl.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "backend/backend.h"
#include "cli_runner.h"
#include "store/run_store.h"

namespace kforge {
namespace {
using testing::make_temp_dir;
using testing::run_kforge;
using testing::source_dir;

bool opencl_usable(std::string& why) {
  const Availability availability = make_backend(Language::OpenCL)->probe();
  why = availability.reason;
  return availability.usable;
}

std::string task_dir() { return (source_dir() / "tests/kernels/tunable_vadd").string(); }

// Starts kforge with stdout+stderr into `log`; returns the pid.
pid_t start_logged(const std::vector<std::string>& arguments, const std::filesystem::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    std::vector<std::string> copies = arguments;
    std::string binary = testing::kforge_binary().string();
    std::vector<char*> argv{binary.data()};
    for (auto& argument : copies) argv.push_back(argument.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

pid_t parent_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(text.substr(close + 2));
  char state;
  pid_t parent = -1;
  rest >> state >> parent;
  return parent;
}

// Every descendant of `root` (host PIDs).
std::vector<pid_t> descendants(pid_t root) {
  std::vector<pid_t> found;
  std::vector<pid_t> all;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") == std::string::npos) all.push_back(std::stoi(name));
  }
  std::vector<pid_t> frontier{root};
  while (!frontier.empty()) {
    const pid_t parent = frontier.back();
    frontier.pop_back();
    for (const pid_t pid : all)
      if (parent_of(pid) == parent) {
        found.push_back(pid);
        frontier.push_back(pid);
      }
  }
  return found;
}

// Worker temp folders: the working folders of kforge's descendants.
std::vector<std::filesystem::path> worker_folders(const std::vector<pid_t>& pids) {
  std::vector<std::filesystem::path> folders;
  for (const pid_t pid : pids) {
    std::error_code error;
    const auto cwd = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/cwd", error);
    if (!error && cwd.string().find("kforge-worker-") != std::string::npos) folders.push_back(cwd);
  }
  return folders;
}

std::filesystem::path wait_for_run_dir(const std::filesystem::path& runs) {
  for (int i = 0; i < 600; ++i) {
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(runs, error))
      if (std::filesystem::exists(entry.path() / "run.db")) return entry.path();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return {};
}

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class Interrupt : public ::testing::TestWithParam<int> {};

TEST_P(Interrupt, StopsWorkersMarksTheRunAndResumes) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  const int signal_number = GetParam();
  const auto runs = make_temp_dir("kforge-interrupt");
  const auto log = runs.parent_path() / (runs.filename().string() + ".log");
  const pid_t kforge = start_logged({"optimize", task_dir(), "--generations", "30", "--population", "3", "--seed", "3",
                                     "--runs-dir", runs.string(), "--max-seconds", "0.1", "--seeds", "1",
                                     "--time-budget", "8"},
                                    log);
  const auto run_dir = wait_for_run_dir(runs);
  ASSERT_FALSE(run_dir.empty());
  // Mid-run: a worker is up (it has a temp folder).
  std::vector<pid_t> workers;
  std::vector<std::filesystem::path> folders;
  for (int i = 0; i < 1200 && folders.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    workers = descendants(kforge);
    folders = worker_folders(workers);
  }
  ASSERT_FALSE(folders.empty()) << "no worker appeared; log:\n" << read_all(log);
  workers = descendants(kforge);
  ::kill(kforge, signal_number);
  int status = 0;
  ::waitpid(kforge, &status, 0);
  const std::string output = read_all(log);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 128 + signal_number) << output;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // Gone, or a zombie (dead, only waiting for the container's init to reap it).
  auto alive = [](pid_t pid) {
    const std::string stat = read_all("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
  };
  for (const pid_t pid : workers)
    EXPECT_FALSE(alive(pid))
        << "worker process " << pid << " left: " << read_all("/proc/" + std::to_string(pid) + "/stat");
  for (const auto& folder : folders) EXPECT_FALSE(std::filesystem::exists(folder)) << folder << " left";
  EXPECT_NE(output.find("kforge optimize --resume " + run_dir.string()), std::string::npos) << output;
  EXPECT_EQ(RunStore::open_read_only(run_dir).status(), "interrupted");

  const auto resumed = run_kforge("optimize --resume " + run_dir.string() + " --max-seconds 0.1 --seeds 1");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(RunStore::open_read_only(run_dir).status(), "finished");
  std::filesystem::remove_all(runs);
  std::filesystem::remove(log);
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupt, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& param_info) { return std::string(param_info.param == SIGINT ? "SIGINT" : "SIGTERM"); });

TEST(RunLock, SecondWriterIsRefusedAndSigkillReleasesTheLock) {
  std::string why;
  if (!opencl_usable(why)) GTEST_SKIP() << "no OpenCL device: " << why;
  const auto runs = make_temp_dir("kforge-lock");
  const auto log = runs.parent_path() / (runs.filename().string() + ".log");
  const pid_t first = start_logged({"optimize", task_dir(), "--generations", "30", "--population", "3", "--seed", "4",
                                    "--runs-dir", runs.string(), "--max-seconds", "0.1", "--seeds", "1",
                                    "--time-budget", "6"},
                                   log);
  const auto run_dir = wait_for_run_dir(runs);
  ASSERT_FALSE(run_dir.empty());
  const auto second = run_kforge("optimize --resume " + run_dir.string() + " --max-seconds 0.1 --seeds 1");
  EXPECT_EQ(second.exit_code, 1) << second.output;
  EXPECT_NE(second.output.find(run_dir.string()), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("pid " + std::to_string(first)), std::string::npos) << second.output;
  EXPECT_EQ(std::count(second.output.begin(), second.output.end(), '\n'), 1) << "one line: " << second.output;
  ::kill(first, SIGKILL);
  ::waitpid(first, nullptr, 0);
  const auto resumed = run_kforge("optimize --resume " + run_dir.string() + " --max-seconds 0.1 --seeds 1");
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  std::filesystem::remove_all(runs);
  std::filesystem::remove(log);
}

}  // namespace
}  // namespace kforge
