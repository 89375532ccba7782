// The worker's `calibrate` request: the reference alone on the fixed calibration seeds of one
// size, then the host-side analysis of calibration.h (which tolerances can tell an input-free
// answer from the reference). The orchestrator sends it once per task and size.
#include "eval/calibration.h"
#include "eval/kernel_args.h"
#include "worker/session.h"

namespace kforge {

nlohmann::json WorkerSession::calibrate(const nlohmann::json& request) {
  const Task& t = task(request.at("manifest"));
  const LoadedVariant reference = load_variant(request.at("reference"));
  const std::string size_name = request.at("size");
  const ProblemSize* size = nullptr;
  for (const auto& candidate : t.sizes)
    if (candidate.name == size_name) size = &candidate;
  if (!size) throw TaskError(t.manifest_path.string() + ": no problem size named '" + size_name + "'");
  const Bindings bindings = bindings_for(t, *size, reference.params);
  std::vector<std::vector<HostBuffer>> inputs, expected;
  for (const auto& seed : request.at("seeds")) {
    inputs.push_back(make_host_args(t, bindings, seed.get<std::uint64_t>()));
    expected.push_back(run_reference(t, bindings, reference, inputs.back()));
  }
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& output : calibrate_outputs(t, bindings, inputs, expected)) outputs.push_back(to_json(output));
  return {{"ok", true}, {"size", size_name}, {"outputs", outputs}};
}

}  // namespace kforge
