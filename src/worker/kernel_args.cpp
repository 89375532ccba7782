#include "worker/kernel_args.h"

namespace kforge {
namespace {
bool is_buffer(const ArgPlan& arg) { return arg.role != ArgRole::Scalar; }

KernelArg scalar_arg(const ArgPlan& arg, const ScalarValue& scalar) {
  KernelArg value;
  switch (arg.dtype) {
    case DType::F32: value.kind = KernelArg::Kind::F32; value.f = scalar.f; break;
    case DType::F64: value.kind = KernelArg::Kind::F64; value.f = scalar.f; break;
    case DType::I64: value.kind = KernelArg::Kind::I64; value.i = scalar.i; break;
    default: value.kind = KernelArg::Kind::I32; value.i = scalar.i; break;
  }
  return value;
}
}  // namespace

std::vector<HostBuffer> make_host_args(const TaskPlan& task, const LaunchPlan& launch, std::uint64_t seed) {
  std::vector<std::string> inits;
  for (const auto& arg : task.args) inits.push_back(arg.init);
  return make_host_args(task, launch, seed, inits);
}

std::vector<HostBuffer> make_host_args(const TaskPlan& task, const LaunchPlan& launch, std::uint64_t seed,
                                       const std::vector<std::string>& distributions) {
  std::vector<HostBuffer> host;
  host.reserve(task.args.size());
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    const ArgPlan& arg = task.args[i];
    if (!is_buffer(arg)) {
      host.push_back(HostBuffer{});
      continue;
    }
    HostBuffer buffer = make_buffer(arg.dtype, launch.count(i));
    if (arg.role == ArgRole::Output) {
      poison(buffer);
    } else {
      // Each argument gets its own stream of numbers so equal shapes don't get equal data.
      fill_random(buffer, i < distributions.size() ? distributions[i] : arg.init, seed * 0x9E3779B97F4A7C15ull + i + 1);
    }
    host.push_back(std::move(buffer));
  }
  return host;
}

ArgBinding bind_args(Device& device, const TaskPlan& task, const LaunchPlan& launch,
                     const std::vector<HostBuffer>& host) {
  ArgBinding binding;
  for (std::size_t i = 0; i < task.args.size(); ++i) {
    const ArgPlan& arg = task.args[i];
    if (!is_buffer(arg)) {
      binding.buffers.push_back(-1);
      binding.args.push_back(scalar_arg(arg, launch.scalars[i]));
      continue;
    }
    // At least one byte: zero-sized allocations are errors on some platforms.
    const std::size_t bytes = std::max<std::size_t>(host[i].size_bytes(), 1);
    const BufferId id = device.alloc(bytes);
    binding.buffers.push_back(id);
    if (host[i].size_bytes() > 0) device.upload(id, host[i].bytes.data(), host[i].size_bytes());
    KernelArg kernel_arg;
    kernel_arg.kind = KernelArg::Kind::Buffer;
    kernel_arg.buffer = id;
    binding.args.push_back(kernel_arg);
  }
  return binding;
}

void release_args(Device& device, const ArgBinding& binding) {
  for (BufferId id : binding.buffers)
    if (id >= 0) device.free(id);
}

}  // namespace kforge
