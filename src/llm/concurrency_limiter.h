// A counting semaphore with a run-time limit (std::counting_semaphore fixes its maximum at
// compile time), shared by every thread that calls one provider so that a parallel search
// never opens more simultaneous LLM requests than the user allowed.
#pragma once

#include <condition_variable>
#include <mutex>

namespace kforge::llm {

class ConcurrencyLimiter {
 public:
  explicit ConcurrencyLimiter(int limit) : limit_(limit < 1 ? 1 : limit) {}

  void acquire() {
    std::unique_lock lock(mutex_);
    freed_.wait(lock, [&] { return in_use_ < limit_; });
    ++in_use_;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      --in_use_;
    }
    freed_.notify_one();
  }
  int limit() const { return limit_; }

  // Holds one slot for the lifetime of the guard, so an early return cannot leak it.
  class Slot {
   public:
    explicit Slot(ConcurrencyLimiter& limiter) : limiter_(limiter) { limiter_.acquire(); }
    ~Slot() { limiter_.release(); }
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;

   private:
    ConcurrencyLimiter& limiter_;
  };

 private:
  const int limit_;
  std::mutex mutex_;
  std::condition_variable freed_;
  int in_use_ = 0;
};

}  // namespace kforge::llm
