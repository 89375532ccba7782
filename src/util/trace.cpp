#include "util/trace.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace kforge {

bool trace_enabled() {
  static const bool enabled = [] {
    const char* value = std::getenv("KFORGE_TRACE");
    return value != nullptr && value[0] == '1';
  }();
  return enabled;
}

TraceScope::TraceScope(std::string label) : label_(std::move(label)), start_(std::chrono::steady_clock::now()) {}

TraceScope::~TraceScope() {
  if (!trace_enabled()) return;
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "[trace %d] %-40s %9.2f ms\n", static_cast<int>(::getpid()), label_.c_str(), ms);
}

}  // namespace kforge
