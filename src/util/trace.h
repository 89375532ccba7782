// Phase timings on stderr when KFORGE_TRACE=1: where the time of an evaluation goes,
// without a profiler (the GPU machine has none).
#pragma once

#include <chrono>
#include <string>

namespace kforge {

bool trace_enabled();

class TraceScope {
 public:
  explicit TraceScope(std::string label);
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  std::string label_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace kforge
