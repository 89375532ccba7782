#include "worker/timed_sets.h"

#include <algorithm>

namespace kforge {

int timed_set_count(std::int64_t set_bytes, int variants, std::int64_t device_memory_bytes) {
  if (set_bytes <= 0) return kMaxTimedSets;
  const auto device_budget = static_cast<std::int64_t>(kTimedSetsDeviceShare * static_cast<double>(device_memory_bytes));
  std::int64_t by_device = kMaxTimedSets;
  if (device_memory_bytes > 0) by_device = device_budget / (set_bytes * std::max(variants, 1));
  const std::int64_t by_host = 1 + kTimedSetsExtraHostBytes / set_bytes;
  return static_cast<int>(std::clamp<std::int64_t>(std::min(by_device, by_host), 1, kMaxTimedSets));
}

std::uint8_t poison_byte(DType dtype) { return is_floating(dtype) ? 0xFF : 0xA5; }

SetVerdict verify_set(Device& device, const TaskPlan& task, const ArgBinding& binding, const HostSet& set) {
  SetVerdict verdict;
  for (std::size_t i = 0; i < task.args.size() && verdict.passed; ++i) {
    const ArgPlan& arg = task.args[i];
    if (arg.role == ArgRole::Scalar || binding.buffers[i] < 0 || set.args[i].size_bytes() == 0) continue;
    HostBuffer actual = make_buffer(set.args[i].dtype, set.args[i].count);
    device.download(binding.buffers[i], actual.bytes.data(), actual.size_bytes());
    if (arg.role == ArgRole::Input) {
      if (checksum(actual) != set.checksums[i]) {
        verdict.passed = false;
        verdict.message = "input '" + arg.name + "' was modified by the kernel";
      }
      continue;
    }
    const Comparison comparison = compare(actual, set.expected[i], arg.tolerance);
    if (!comparison.passed) {
      verdict.passed = false;
      verdict.message = "output '" + arg.name + "': " + std::to_string(comparison.mismatches) +
                        " elements differ; first at [" + std::to_string(comparison.first_mismatch) +
                        "]: got " + std::to_string(comparison.first_actual) + ", expected " +
                        std::to_string(comparison.first_expected);
    }
  }
  return verdict;
}

void reset_set(Device& device, const TaskPlan& task, const ArgBinding& binding, const HostSet& set) {
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    if (binding.buffers[i] < 0 || set.args[i].size_bytes() == 0) continue;
    if (task.args[i].role == ArgRole::Output)
      device.fill(binding.buffers[i], poison_byte(task.args[i].dtype));
    else if (task.args[i].role == ArgRole::InOut)
      device.upload(binding.buffers[i], set.args[i].bytes.data(), set.args[i].size_bytes());
  }
}

}  // namespace kforge
