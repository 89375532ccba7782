// Ctrl-C (SIGINT) and SIGTERM for the commands that run workers (optimize, sweep, bench).
// Without this the worker, in its own process group, keeps spinning with its temp folder
// after kforge dies. A dedicated thread waits for the signal (so the handling may take locks
// and allocate): it marks the run `interrupted` and freezes the store, kills every live
// worker (group, PID namespace, cgroup), removes their temp folders, prints one line with the
// `--resume` command and exits 130 (SIGINT) or 143 (SIGTERM).
#pragma once

namespace kforge {
class RunStore;
}

namespace kforge::cli {

// Blocks SIGINT/SIGTERM in the calling thread, and so in every thread started after it, and
// starts the thread that waits for them. Call first thing in the command, before any thread.
void install_interrupt_handling();

// The run a signal marks interrupted and names in the --resume line; nullptr: none.
void set_interruptible_run(RunStore* store);

// Names `store` for as long as it lives in a scope (exceptions included).
class InterruptibleRun {
 public:
  explicit InterruptibleRun(RunStore& store) { set_interruptible_run(&store); }
  ~InterruptibleRun() { set_interruptible_run(nullptr); }
  InterruptibleRun(const InterruptibleRun&) = delete;
  InterruptibleRun& operator=(const InterruptibleRun&) = delete;
};

}  // namespace kforge::cli
