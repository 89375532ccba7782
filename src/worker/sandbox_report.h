// What the sandbox around this worker looks like from inside: working folder, limits,
// network namespace, and whether a TCP connection to the orchestrator's host gets through.
// Answered for the "sandbox" request, so tests can check the sandbox the real spawn builds.
#pragma once

#include <nlohmann/json.hpp>

namespace kforge {

// `request` may carry "connect_port": a TCP port on 127.0.0.1 to try to connect to.
nlohmann::json sandbox_report(const nlohmann::json& request);

}  // namespace kforge
