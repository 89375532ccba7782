// `kforge doctor`: which backends are usable on this machine, and why not; and which parts
// of the worker sandbox hold here (isolation degrades without root or namespaces: say so).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "cli/commands.h"
#include "eval/sandbox.h"

namespace kforge::cli {

Action setup_doctor(CLI::App& sub) {
  auto json_output = std::make_shared<bool>(false);
  sub.add_flag("--json", *json_output, "Print the findings as JSON on stdout");
  return [json_output] {
    int usable = 0;
    nlohmann::json backends = nlohmann::json::array();
    for (const auto& backend : all_backends()) {
      const Availability availability = backend->probe();
      nlohmann::json devices = nlohmann::json::array();
      if (!*json_output)
        fmt::print("{:<8} {:<11} {}\n", backend->name(), availability.usable ? "usable" : "unavailable",
                   availability.reason);
      for (const auto& device : availability.devices) {
        if (!*json_output)
          fmt::print("         device: {} ({}, {} compute units, {:.1f} GiB)\n", device.name, device.arch,
                     device.compute_units, static_cast<double>(device.global_mem_bytes) / (1 << 30));
        devices.push_back({{"name", device.name}, {"arch", device.arch}, {"compute_units", device.compute_units},
                           {"global_mem_bytes", device.global_mem_bytes}});
      }
      backends.push_back({{"name", backend->name()}, {"usable", availability.usable},
                          {"reason", availability.reason}, {"devices", devices}});
      usable += availability.usable ? 1 : 0;
    }
    nlohmann::json isolation = nlohmann::json::array();
    if (!*json_output) fmt::print("sandbox (every worker and compile process):\n");
    for (const IsolationMechanism& mechanism : sandbox_support().mechanisms) {
      if (!*json_output)
        fmt::print("  {:<14} {:<8} {}\n", mechanism.name, mechanism.active ? "active" : "inactive", mechanism.detail);
      isolation.push_back({{"name", mechanism.name}, {"active", mechanism.active}, {"detail", mechanism.detail}});
    }
    if (*json_output) {
      fmt::print("{}\n", nlohmann::json{{"backends", backends}, {"sandbox", isolation}}.dump(2));
    } else if (usable == 0) {
      fmt::print("no backend is usable: install pocl-opencl-icd for OpenCL on the CPU\n");
    }
    return usable > 0 ? 0 : 1;
  };
}

}  // namespace kforge::cli
