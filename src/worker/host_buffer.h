// Host-side argument data: random initialisation, output poisoning, comparison.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <string>
#include <vector>

#include "task/task.h"

namespace kforge {

// Allocates without zero-filling: host buffers of hundreds of MiB are written right after
// allocation (random fill, poison, download), so zeroing them first is pure cost.
template <typename T>
struct DefaultInitAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <typename U>
  void construct(U* pointer) noexcept {
    ::new (static_cast<void*>(pointer)) U;
  }
  template <typename U, typename... Args>
  void construct(U* pointer, Args&&... args) {
    ::new (static_cast<void*>(pointer)) U(std::forward<Args>(args)...);
  }
};
using ByteVector = std::vector<std::byte, DefaultInitAllocator<std::byte>>;

struct HostBuffer {
  DType dtype = DType::F32;
  std::int64_t count = 0;
  ByteVector bytes;

  std::size_t size_bytes() const { return bytes.size(); }
  double get(std::int64_t index) const;  // element converted to double
  void set(std::int64_t index, double value);
};

HostBuffer make_buffer(DType dtype, std::int64_t count);
// Fills from a distribution string of the manifest ("uniform(-1,1)", "normal(0,1)",
// "randint(0,255)", "ones", "arange", "zeros") or of a check draw ("large(1e3,1e4)": |x| in
// [a,b] either sign; "ties(a,b)": five evenly spaced values; "special(a,b)": zeros, negative
// zeros, subnormals, smallest normals and uniform(a,b); "denormal"; "nonfinite(a,b)": NaN, ±inf
// and uniform(a,b)); throws TaskError on an unknown one.
void fill_random(HostBuffer& buffer, const std::string& distribution, std::uint64_t seed);
// NaN for floats, a sentinel for integers: unwritten elements then fail the comparison.
void poison(HostBuffer& buffer);
std::uint64_t checksum(const HostBuffer& buffer);

struct Comparison {
  bool passed = true;
  double max_abs_err = 0;
  double max_rel_err = 0;
  std::int64_t mismatches = 0;
  std::int64_t first_mismatch = -1;
  double first_actual = 0;
  double first_expected = 0;
};

// |actual - expected| <= atol + rtol * |expected| elementwise; NaN where the reference is not
// NaN fails. Integer buffers compare exactly unless tolerances are set.
Comparison compare(const HostBuffer& actual, const HostBuffer& expected, const Tolerance& tolerance);

// IEEE half / bfloat16 conversions (round to nearest even).
std::uint16_t float_to_half(float value);
float half_to_float(std::uint16_t bits);
std::uint16_t float_to_bf16(float value);
float bf16_to_float(std::uint16_t bits);

}  // namespace kforge
