// `kforge doctor`: which backends are usable on this machine, and why not.
#include <fmt/format.h>

#include "backend/backend.h"
#include "cli/commands.h"

namespace kforge::cli {

Action add_doctor(CLI::App& app) {
  app.add_subcommand("doctor", "List usable backends and devices, and why the others are not");
  return [] {
    int usable = 0;
    for (const auto& backend : all_backends()) {
      const Availability availability = backend->probe();
      fmt::print("{:<8} {:<11} {}\n", backend->name(), availability.usable ? "usable" : "unavailable",
                 availability.reason);
      for (const auto& device : availability.devices)
        fmt::print("         device: {} ({}, {} compute units, {:.1f} GiB)\n", device.name, device.arch,
                   device.compute_units, static_cast<double>(device.global_mem_bytes) / (1 << 30));
      usable += availability.usable ? 1 : 0;
    }
    if (usable == 0) fmt::print("no backend is usable: install pocl-opencl-icd for OpenCL on the CPU\n");
    return usable > 0 ? 0 : 1;
  };
}

}  // namespace kforge::cli
