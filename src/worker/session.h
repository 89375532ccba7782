#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "backend/backend.h"
#include "eval/kernel_args.h"
#include "eval/timing.h"
#include "task/task.h"

namespace kforge {

// One worker's state: the device, loaded tasks and kernels. Each request is independent;
// buffers never outlive a request so a variant cannot see another variant's data.
class WorkerSession {
 public:
  WorkerSession(Language language, int device_index);
  nlohmann::json handle(const nlohmann::json& request);

 private:
  struct LoadedVariant {
    KernelId kernel = -1;
    ParamValues params;
  };

  nlohmann::json info();
  nlohmann::json check(const nlohmann::json& request);
  nlohmann::json time(const nlohmann::json& request);
  const Task& task(const std::string& manifest);
  LoadedVariant load_variant(const nlohmann::json& variant);
  nlohmann::json check_one(const Task& task, const ProblemSize& size, std::uint64_t seed,
                           const LoadedVariant& candidate, const LoadedVariant& reference,
                           std::optional<ArgBinding>& kept, const std::string& draw,
                           const nlohmann::json& tolerances);
  nlohmann::json calibrate(const nlohmann::json& request);  // calibrate.cpp
  // Runs the reference on its own buffers and returns its outputs (inputs not downloaded);
  // the buffers are scrubbed and freed before it returns.
  std::vector<HostBuffer> run_reference(const Task& task, const Bindings& bindings, const LoadedVariant& reference,
                                        const std::vector<HostBuffer>& inputs);

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Device> device_;
  std::map<std::string, Task> tasks_;
  std::map<std::string, KernelId> kernels_;  // by binary file + entry
};

}  // namespace kforge
