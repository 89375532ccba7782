// Buffer sets of the worker's `time` op: the timed launches rotate over several sets of
// inputs (each from its own seed) with outputs re-poisoned on the device before every launch,
// so no timed launch can find a valid result of an earlier one; the reference computes each
// set's expected outputs once, and timed outputs are verified against them with the check's
// comparison. Why: a kernel that memoises on its own output, or that counts its launches,
// is honest on the check's fresh inputs and empty in the timing loop.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "worker/host_buffer.h"
#include "worker/kernel_args.h"
#include "protocol/plan.h"

namespace kforge {

inline constexpr int kMaxTimedSets = 4;
// All sets of all variants together may take this share of device memory...
inline constexpr double kTimedSetsDeviceShare = 0.25;
// ...and the sets beyond the first this much host data (random inputs and expected outputs).
inline constexpr std::int64_t kTimedSetsExtraHostBytes = std::int64_t{256} << 20;

// How many buffer sets to rotate: kMaxTimedSets, fewer when `set_bytes` (all buffer arguments
// of one launch) times `variants` times the count would exceed the budgets above; at least 1.
int timed_set_count(std::int64_t set_bytes, int variants, std::int64_t device_memory_bytes);

// The byte every output is filled with before a timed launch: 0xFF (NaN in every float type)
// for floats, 0xA5 for integers, as the check's host-side poison.
std::uint8_t poison_byte(DType dtype);

// What one set holds on the host: the inputs (outputs poisoned) and, when verified, the
// reference's outputs for them and a checksum of every input.
struct HostSet {
  std::vector<HostBuffer> args;
  std::vector<HostBuffer> expected;      // empty when there is no reference
  std::vector<std::uint64_t> checksums;  // per argument; 0 for outputs and scalars
};

// Verdict on one variant's outputs in one set.
struct SetVerdict {
  bool passed = true;
  bool out_of_bounds = false;
  std::string message;  // first failure, in words
};

// Compares what `binding` holds (after the variant's launch on `set`) with the set's expected
// outputs, the same comparison as the check (compare() with the argument's tolerance), and the inputs
// with their checksums.
SetVerdict verify_set(Device& device, const TaskPlan& task, const ArgBinding& binding, const HostSet& set);

// Restores the set before a launch: outputs filled with poison on the device, in-out arguments
// uploaded again (they are inputs the kernel overwrites).
void reset_set(Device& device, const TaskPlan& task, const ArgBinding& binding, const HostSet& set);

}  // namespace kforge
