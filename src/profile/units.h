// Profiler units to base units: bytes, seconds, bytes/second, hertz; percent stays percent.
#pragma once

#include <string>

namespace kforge {

struct Quantity {
  double value = 0;
  std::string unit;  // "byte", "second", "byte/second", "hertz", "%", or the profiler's own unit
};

// Understands ncu's spellings ("Kbyte", "Gbyte/second", "Tbyte/s", "usecond", "msecond",
// "nsecond", "cycle/nsecond", "Ghz") and the common short ones ("KB", "MiB", "us", "GB/s").
// Decimal prefixes are powers of 1000 (ncu's "Kbyte" is 1000 bytes), binary ones ("KiB") of 1024.
// Units it does not know (cycle, register/thread, inst/cycle, ...) pass through unchanged.
Quantity normalize_unit(double value, const std::string& unit);

}  // namespace kforge
