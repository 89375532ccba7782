// Shared between the CUDA backend (orchestrator side) and device (worker side).
#pragma once

#include <memory>
#include <string>

#include "backend/backend.h"

namespace kforge::cuda {

// Attributes of device `index`; throws DeviceError when the driver is unusable.
DeviceInfo query_device_info(int index);
// "sm_90" for a compute capability 9.0 device.
std::string device_arch(int index);
std::unique_ptr<Device> open_device(int index);

}  // namespace kforge::cuda
