// One worker's state: the device and the kernels loaded so far. Requests arrive typed
// (protocol/worker_protocol.h) with resolved plans, so the session reads no manifest; each
// request is independent and buffers never outlive it, so a variant cannot see another
// variant's data.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "backend/backend.h"
#include "eval/timing.h"
#include "protocol/worker_protocol.h"
#include "worker/kernel_args.h"

namespace kforge {

class WorkerSession {
 public:
  WorkerSession(Language language, int device_index);
  // One request line in, one reply out ({"ok": false, "error"} for an unknown op).
  nlohmann::json handle(const nlohmann::json& request);

 private:
  struct LoadedVariant {
    KernelId kernel = -1;
    const LaunchPlan* launch = nullptr;  // the spec's, valid while the request is handled
  };

  InfoReply info();
  CheckReply check(const CheckRequest& request);
  TimeReply time(const TimeRequest& request);             // time_op.cpp
  CalibrateReply calibrate(const CalibrateRequest& request);  // calibrate.cpp
  LoadedVariant load_variant(const VariantSpec& variant);
  SizeCheck check_one(const CheckRequest& request, std::uint64_t seed, const LoadedVariant& candidate,
                      const LoadedVariant& reference, std::optional<ArgBinding>& kept, const std::string& draw);
  // Runs the reference on its own buffers and returns its outputs (inputs not downloaded);
  // the buffers are scrubbed and freed before it returns.
  std::vector<HostBuffer> run_reference(const TaskPlan& task, const LoadedVariant& reference,
                                        const std::vector<HostBuffer>& inputs);

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Device> device_;
  std::map<std::string, KernelId> kernels_;  // by binary file + entry
};

}  // namespace kforge
