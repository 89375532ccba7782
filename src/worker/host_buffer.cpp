#include "worker/host_buffer.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <regex>

#include "util/parallel.h"

namespace kforge {
namespace {

template <typename T>
T load(const ByteVector& bytes, std::int64_t index) {
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void store(ByteVector& bytes, std::int64_t index, T value) {
  std::memcpy(bytes.data() + index * sizeof(T), &value, sizeof(T));
}

struct Distribution {
  std::string kind;
  double a = 0;
  double b = 0;
};

Distribution parse_distribution(const std::string& text) {
  static const std::regex with_args(R"(\s*(\w+)\s*\(\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\)\s*)");
  static const std::regex bare(R"(\s*(\w+)\s*(\(\s*\))?\s*)");
  std::smatch match;
  if (std::regex_match(text, match, with_args)) {
    return {match[1], std::stod(match[2]), std::stod(match[3])};
  }
  if (std::regex_match(text, match, bare)) return {match[1], 0, 0};
  throw TaskError("init '" + text + "': cannot parse; use uniform(a,b), normal(mean,std), randint(a,b), ones or arange");
}

}  // namespace

std::uint16_t float_to_half(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t exponent = (bits >> 23) & 0xffu;
  std::uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  const int half_exponent = static_cast<int>(exponent) - 127 + 15;
  if (half_exponent >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow → inf
  if (half_exponent <= 0) {
    if (half_exponent < -10) return static_cast<std::uint16_t>(sign);  // underflow → 0
    mantissa |= 0x800000u;
    const int shift = 14 - half_exponent;
    std::uint32_t half_mantissa = mantissa >> shift;
    const std::uint32_t remainder = mantissa & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (half_mantissa & 1u))) ++half_mantissa;
    return static_cast<std::uint16_t>(sign | half_mantissa);
  }
  std::uint32_t result = sign | (static_cast<std::uint32_t>(half_exponent) << 10) | (mantissa >> 13);
  const std::uint32_t remainder = mantissa & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u))) ++result;  // may carry into exp: fine
  return static_cast<std::uint16_t>(result);
}

float half_to_float(std::uint16_t half) {
  const std::uint32_t sign = (half & 0x8000u) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1fu;
  std::uint32_t mantissa = half & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400u) == 0);
      bits = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t float_to_bf16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

float bf16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

double HostBuffer::get(std::int64_t index) const {
  switch (dtype) {
    case DType::F16: return half_to_float(load<std::uint16_t>(bytes, index));
    case DType::BF16: return bf16_to_float(load<std::uint16_t>(bytes, index));
    case DType::F32: return load<float>(bytes, index);
    case DType::F64: return load<double>(bytes, index);
    case DType::I8: return load<std::int8_t>(bytes, index);
    case DType::U8: return load<std::uint8_t>(bytes, index);
    case DType::I32: return load<std::int32_t>(bytes, index);
    case DType::U32: return load<std::uint32_t>(bytes, index);
    case DType::I64: return static_cast<double>(load<std::int64_t>(bytes, index));
  }
  return 0;
}

void HostBuffer::set(std::int64_t index, double value) {
  switch (dtype) {
    case DType::F16: store(bytes, index, float_to_half(static_cast<float>(value))); break;
    case DType::BF16: store(bytes, index, float_to_bf16(static_cast<float>(value))); break;
    case DType::F32: store(bytes, index, static_cast<float>(value)); break;
    case DType::F64: store(bytes, index, value); break;
    case DType::I8: store(bytes, index, static_cast<std::int8_t>(value)); break;
    case DType::U8: store(bytes, index, static_cast<std::uint8_t>(value)); break;
    case DType::I32: store(bytes, index, static_cast<std::int32_t>(value)); break;
    case DType::U32: store(bytes, index, static_cast<std::uint32_t>(value)); break;
    case DType::I64: store(bytes, index, static_cast<std::int64_t>(value)); break;
  }
}

HostBuffer make_buffer(DType dtype, std::int64_t count) {
  HostBuffer buffer;
  buffer.dtype = dtype;
  buffer.count = count;
  buffer.bytes.resize(static_cast<std::size_t>(count) * dtype_size(dtype));
  return buffer;
}

namespace {
// Counter-based generator (splitmix64 of seed and index): element i does not depend on the
// others, so large buffers fill in parallel and identically on every machine.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

double unit_uniform(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) {
  return static_cast<double>(mix(seed ^ mix(index * 2 + stream)) >> 11) * 0x1.0p-53;
}

// The smallest positive subnormal of a float dtype (0 for integers: they have none).
double smallest_subnormal(DType dtype) {
  switch (dtype) {
    case DType::F16: return 0x1.0p-24;
    case DType::BF16: return 0x1.0p-133;
    case DType::F32: return 0x1.0p-149;
    case DType::F64: return 0x1.0p-1074;
    default: return 0;
  }
}

double smallest_normal_of(DType dtype) {
  switch (dtype) {
    case DType::F16: return 0x1.0p-14;
    case DType::BF16:
    case DType::F32: return 0x1.0p-126;
    case DType::F64: return 0x1.0p-1022;
    default: return 1;
  }
}

// k * smallest with k in [1, 2^mantissa): every subnormal is exactly representable.
double random_subnormal(double smallest, std::uint64_t seed, std::uint64_t index) {
  if (smallest == 0) return 0;
  const double span = smallest == 0x1.0p-24 ? 1023 : smallest == 0x1.0p-133 ? 127 : smallest == 0x1.0p-149 ? 8388607 : 4503599627370495.0;
  const double k = 1 + std::floor(unit_uniform(seed, index, 0) * span);
  return (unit_uniform(seed, index, 1) < 0.5 ? -k : k) * smallest;
}

template <typename Generate>
void fill_parallel(HostBuffer& buffer, Generate generate) {
  constexpr std::int64_t kChunk = 1 << 20;
  const std::size_t chunks = static_cast<std::size_t>((buffer.count + kChunk - 1) / kChunk);
  parallel_for(chunks, [&](std::size_t chunk) {
    const std::int64_t begin = static_cast<std::int64_t>(chunk) * kChunk;
    const std::int64_t end = std::min(buffer.count, begin + kChunk);
    for (std::int64_t i = begin; i < end; ++i) buffer.set(i, generate(static_cast<std::uint64_t>(i)));
  });
}
}  // namespace

void fill_random(HostBuffer& buffer, const std::string& distribution, std::uint64_t seed) {
  const Distribution dist = parse_distribution(distribution);
  const std::uint64_t s = mix(seed);
  if (dist.kind == "uniform") {
    fill_parallel(buffer, [&](std::uint64_t i) { return dist.a + (dist.b - dist.a) * unit_uniform(s, i, 0); });
  } else if (dist.kind == "normal") {
    fill_parallel(buffer, [&](std::uint64_t i) {  // Box-Muller
      const double u1 = std::max(unit_uniform(s, i, 0), 1e-300);
      const double u2 = unit_uniform(s, i, 1);
      return dist.a + dist.b * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    });
  } else if (dist.kind == "randint") {
    const auto low = static_cast<std::int64_t>(dist.a);
    const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(dist.b) - low + 1);
    fill_parallel(buffer, [&](std::uint64_t i) {
      return static_cast<double>(low + static_cast<std::int64_t>(mix(s ^ mix(i)) % span));
    });
  } else if (dist.kind == "ones") {
    fill_parallel(buffer, [](std::uint64_t) { return 1.0; });
  } else if (dist.kind == "zeros") {
    fill_parallel(buffer, [](std::uint64_t) { return 0.0; });
  } else if (dist.kind == "arange") {
    fill_parallel(buffer, [](std::uint64_t i) { return static_cast<double>(i); });
  } else if (dist.kind == "large") {  // |x| in [a,b], either sign
    fill_parallel(buffer, [&](std::uint64_t i) {
      const double magnitude = dist.a + (dist.b - dist.a) * unit_uniform(s, i, 0);
      return unit_uniform(s, i, 1) < 0.5 ? -magnitude : magnitude;
    });
  } else if (dist.kind == "ties") {  // five evenly spaced values of [a,b]: every value repeats
    fill_parallel(buffer, [&](std::uint64_t i) {
      const auto k = static_cast<double>(mix(s ^ mix(i)) % 5);
      return dist.a + (dist.b - dist.a) * k / 4.0;
    });
  } else if (dist.kind == "denormal") {
    const double smallest = smallest_subnormal(buffer.dtype);
    fill_parallel(buffer, [&](std::uint64_t i) { return random_subnormal(smallest, s, i); });
  } else if (dist.kind == "special") {
    // 25 % +0, 15 % -0, 20 % subnormals, 10 % smallest normals, 30 % uniform(a,b); mixed signs.
    const double smallest = smallest_subnormal(buffer.dtype);
    const double smallest_normal = smallest_normal_of(buffer.dtype);
    fill_parallel(buffer, [&](std::uint64_t i) {
      const double pick = unit_uniform(mix(s + 7), i, 0);  // its own stream
      if (pick < 0.25) return 0.0;
      if (pick < 0.40) return -0.0;
      if (pick < 0.60) return random_subnormal(smallest, s, i);
      if (pick < 0.70) return (unit_uniform(s, i, 1) < 0.5 ? -1.0 : 1.0) * smallest_normal * (1.0 + unit_uniform(s, i, 0));
      return dist.a + (dist.b - dist.a) * unit_uniform(s, i, 0);
    });
  } else if (dist.kind == "nonfinite") {  // 10 % NaN, 5 % +inf, 5 % -inf, the rest uniform(a,b)
    fill_parallel(buffer, [&](std::uint64_t i) {
      const double pick = unit_uniform(mix(s + 7), i, 0);  // its own stream
      if (pick < 0.10) return std::numeric_limits<double>::quiet_NaN();
      if (pick < 0.15) return std::numeric_limits<double>::infinity();
      if (pick < 0.20) return -std::numeric_limits<double>::infinity();
      return dist.a + (dist.b - dist.a) * unit_uniform(s, i, 0);
    });
  } else {
    throw TaskError("init '" + distribution + "': unknown distribution '" + dist.kind +
                    "'; use uniform(a,b), normal(mean,std), randint(a,b), ones, zeros, arange, large(a,b), ties(a,b), "
                    "special(a,b), denormal or nonfinite(a,b)");
  }
}

namespace {
template <typename T>
void fill_pattern(HostBuffer& buffer, T pattern) {
  T* data = reinterpret_cast<T*>(buffer.bytes.data());
  std::fill(data, data + buffer.count, pattern);
}
}  // namespace

void poison(HostBuffer& buffer) {
  // Quiet NaN bit patterns per float type; 0xA5 bytes for integers, a value no kernel writes
  // by accident and no reference produces for our inputs.
  switch (buffer.dtype) {
    case DType::F16: fill_pattern<std::uint16_t>(buffer, 0x7E00u); break;
    case DType::BF16: fill_pattern<std::uint16_t>(buffer, 0x7FC0u); break;
    case DType::F32: fill_pattern<std::uint32_t>(buffer, 0x7FC00000u); break;
    case DType::F64: fill_pattern<std::uint64_t>(buffer, 0x7FF8000000000000ull); break;
    default: std::memset(buffer.bytes.data(), 0xA5, buffer.bytes.size()); break;
  }
}

std::uint64_t checksum(const HostBuffer& buffer) {
  return XXH3_64bits(buffer.bytes.data(), buffer.bytes.size());
}

namespace {
Comparison compare_range(const HostBuffer& actual, const HostBuffer& expected, const Tolerance& tolerance,
                         std::int64_t begin, std::int64_t end) {
  Comparison result;
  for (std::int64_t i = begin; i < end; ++i) {
    const double a = actual.get(i);
    const double e = expected.get(i);
    bool ok;
    double abs_err = 0;
    if (std::isnan(e)) {
      ok = std::isnan(a);
    } else if (std::isnan(a) || std::isinf(a) != std::isinf(e)) {
      ok = false;
      abs_err = std::numeric_limits<double>::infinity();
    } else if (std::isinf(e)) {
      ok = a == e;
    } else {
      abs_err = std::fabs(a - e);
      ok = abs_err <= tolerance.atol + tolerance.rtol * std::fabs(e);
    }
    if (std::isfinite(abs_err)) result.max_abs_err = std::max(result.max_abs_err, abs_err);
    if (std::fabs(e) > 0 && std::isfinite(abs_err))
      result.max_rel_err = std::max(result.max_rel_err, abs_err / std::fabs(e));
    if (!ok) {
      if (result.mismatches == 0) {
        result.first_mismatch = i;
        result.first_actual = a;
        result.first_expected = e;
      }
      ++result.mismatches;
      result.passed = false;
    }
  }
  return result;
}
}  // namespace

Comparison compare(const HostBuffer& actual, const HostBuffer& expected, const Tolerance& tolerance) {
  // Chunks compared in parallel, then merged in order so the first mismatch is the first.
  constexpr std::int64_t kChunk = 1 << 20;
  const std::int64_t count = std::min(actual.count, expected.count);
  const std::size_t chunks = static_cast<std::size_t>((count + kChunk - 1) / kChunk);
  std::vector<Comparison> parts(chunks);
  parallel_for(chunks, [&](std::size_t c) {
    const std::int64_t begin = static_cast<std::int64_t>(c) * kChunk;
    parts[c] = compare_range(actual, expected, tolerance, begin, std::min(count, begin + kChunk));
  });
  Comparison result;
  for (const Comparison& part : parts) {
    result.max_abs_err = std::max(result.max_abs_err, part.max_abs_err);
    result.max_rel_err = std::max(result.max_rel_err, part.max_rel_err);
    if (part.mismatches > 0 && result.mismatches == 0) {
      result.first_mismatch = part.first_mismatch;
      result.first_actual = part.first_actual;
      result.first_expected = part.first_expected;
    }
    result.mismatches += part.mismatches;
    result.passed = result.passed && part.passed;
  }
  if (actual.count != expected.count) result.passed = false;
  return result;
}

}  // namespace kforge
