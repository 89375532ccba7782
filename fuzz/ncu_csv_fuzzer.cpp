// libFuzzer target: the Nsight Compute CSV parser (documented never to throw) and the CSV
// line splitter under it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "profile/csv.h"
#include "profile/ncu.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const kforge::NcuParse parse = kforge::parse_ncu_csv(text);
  for (const auto& kernel : parse.kernels) {
    const kforge::Bound bound = kforge::classify_ncu(kernel);
    (void)kforge::ncu_limiters(kernel, bound);
  }
  for (const auto& line : kforge::csv::split_lines(text)) (void)kforge::csv::parse_line(line);
  return 0;
}
