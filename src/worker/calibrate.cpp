// The worker's `calibrate` request: the reference alone on the fixed calibration seeds of one
// size, then the host-side analysis of calibration.h (which tolerances can tell an input-free
// answer from the reference). The orchestrator sends it once per task and size.
#include "worker/calibration.h"
#include "worker/kernel_args.h"
#include "worker/session.h"

namespace kforge {

CalibrateReply WorkerSession::calibrate(const CalibrateRequest& request) {
  const LoadedVariant reference = load_variant(request.reference);
  std::vector<std::vector<HostBuffer>> inputs, expected;
  for (const std::uint64_t seed : request.seeds) {
    inputs.push_back(make_host_args(request.task, *reference.launch, seed));
    expected.push_back(run_reference(request.task, reference, inputs.back()));
  }
  return {request.size, calibrate_outputs(request.task, *reference.launch, inputs, expected)};
}

}  // namespace kforge
