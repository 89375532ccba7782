#include "cli/interrupts.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "eval/worker_process.h"
#include "store/run_store.h"

namespace kforge::cli {
namespace {

std::mutex g_run_mutex;
RunStore* g_run = nullptr;

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

[[noreturn]] void handle(int signal_number) {
  std::string resume;
  {
    std::lock_guard lock(g_run_mutex);
    if (g_run != nullptr) {
      g_run->mark_interrupted_and_hold();  // waits for the write in flight, then freezes the store
      resume = g_run->run_dir().string();
    }
  }
  WorkerProcess::kill_all_live_workers();
  const std::string name = signal_number == SIGINT ? "SIGINT" : "SIGTERM";
  const std::string line =
      resume.empty() ? "interrupted (" + name + "): workers stopped\n"
                     : "interrupted (" + name + "): run saved; continue it with `kforge optimize --resume " + resume +
                           "`\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  std::fflush(stdout);
  std::_Exit(128 + signal_number);  // no destructors: other threads are mid-work
}

}  // namespace

void install_interrupt_handling() {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t set = interrupt_signals();
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set] {
      for (;;) {
        int signal_number = 0;
        if (::sigwait(&set, &signal_number) == 0) handle(signal_number);
      }
    }).detach();
  });
}

void set_interruptible_run(RunStore* store) {
  std::lock_guard lock(g_run_mutex);
  g_run = store;
}

}  // namespace kforge::cli
