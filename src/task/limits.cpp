#include "task/limits.h"

#include <cstdio>

namespace kforge {
namespace {

std::string gib(double bytes) {
  char text[32];
  if (bytes >= double(1 << 30)) std::snprintf(text, sizeof text, "%.1f GiB", bytes / double(1 << 30));
  else std::snprintf(text, sizeof text, "%.1f MiB", bytes / double(1 << 20));
  return text;
}

}  // namespace

void check_memory_limits(const Task& task, std::uint64_t device_bytes, std::uint64_t host_bytes,
                         const std::string& device_name) {
  if (task.harness) return;  // a Triton launcher allocates its own tensors
  for (const auto& size : task.sizes) {
    const Bindings bindings = bindings_for(task, size, task.default_params());
    double total = 0, largest = 0;
    std::string largest_name;
    for (const auto& arg : task.args) {
      if (arg.role == ArgRole::Scalar) continue;
      const double bytes = static_cast<double>(element_count(arg, bindings)) * static_cast<double>(dtype_size(arg.dtype));
      total += bytes;
      if (bytes > largest) {
        largest = bytes;
        largest_name = arg.name;
      }
    }
    auto fail = [&](const std::string& where, int copies, double limit) {
      throw TaskError(task.manifest_path.string() + ": [[sizes]] '" + size.name + "': the buffers take " + gib(total) +
                      " (the largest, '" + largest_name + "', " + gib(largest) + ") and a check holds " +
                      std::to_string(copies) + " copies (" + gib(copies * total) + "), more than " + where + " (" +
                      gib(limit) + "); lower the size's variables");
    };
    if (device_bytes > 0 && kDeviceCopies * total > static_cast<double>(device_bytes))
      fail("the device's memory" + (device_name.empty() ? std::string() : ", " + device_name), kDeviceCopies,
           static_cast<double>(device_bytes));
    if (host_bytes > 0 && kHostCopies * total > static_cast<double>(host_bytes))
      fail("the worker's memory limit", kHostCopies, static_cast<double>(host_bytes));
  }
}

}  // namespace kforge
