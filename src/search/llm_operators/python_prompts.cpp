#include "search/llm_operators/python_prompts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kforge {
namespace {

std::string tunable_lines(const Task& task) {
  std::string lines;
  for (const auto& param : task.params)
    lines += fmt::format("   - {} in {{{}}} (default {})\n", param.name, fmt::join(param.values, ", "),
                         param.default_value);
  return lines.empty() ? "   (this task has none)\n" : lines;
}

std::string triton_rules(const Task& task, const std::string& entry_signature) {
  return fmt::format(
      "You are an expert GPU performance engineer working inside kforge, an automatic kernel optimizer. You improve "
      "one Triton kernel. kforge owns the harness: it creates the input tensors, runs the reference, checks your "
      "kernel's outputs on every problem size and times it. You only write the kernel module.\n\n"
      "Rules:\n"
      "1. Keep the @triton.jit entry kernel {} with the same non-constexpr parameters in the same order; kforge "
      "passes them itself. You may add tl.constexpr parameters only if they have defaults. Helper @triton.jit "
      "functions are fine.\n"
      "2. kforge launches kernel[grid](...) with grid = ({}) programs; the kernel must compute every output element "
      "for every problem size under that grid (masks on ragged edges).\n"
      "3. Tunable parameters arrive as keyword arguments: a tl.constexpr parameter of the same name, or the launch "
      "options num_warps / num_stages. Do not rename them:\n{}"
      "4. Results must match the reference within the task's tolerance on every size.\n"
      "5. Never allocate, launch or time anything yourself; no host code beyond imports.\n\n",
      entry_signature, fmt::join(task.launch.grid, ", "), tunable_lines(task));
}

// A task with its own launcher: the launcher is the contract, the kernels behind it are free.
std::string triton_launcher_rules(const Task& task) {
  return fmt::format(
      "You are an expert GPU performance engineer working inside kforge, an automatic kernel optimizer. You improve "
      "a Triton module. kforge owns the harness: it builds the inputs with the task's own input builder (which you "
      "cannot change), runs the reference, calls your launcher `{0}`, checks the outputs it returns on every problem "
      "size and times the call.\n\n"
      "Rules:\n"
      "1. Keep `def {0}(...)` at top level with the same positional inputs. It allocates the outputs, launches your "
      "kernel(s) and returns the outputs in the same order, shapes and dtypes.\n"
      "2. The @triton.jit kernels behind it are yours to rewrite: rename, split, fuse, add tl.constexpr parameters.\n"
      "3. Tunable parameters arrive as keyword arguments of `{0}` (keep every one of these names; their defaults "
      "may change):\n{1}"
      "4. Results must match the reference within the task's tolerance on every size.\n"
      "5. Do not modify the inputs, cache results between calls, time, print, or touch files or the network.\n\n",
      task.harness->launcher, tunable_lines(task));
}

std::string kernelbench_rules() {
  return "You are an expert GPU performance engineer working inside kforge, an automatic kernel optimizer. The task "
         "is a KernelBench problem: a PyTorch `Model` (shown as the original) with get_inputs() and "
         "get_init_inputs(). kforge builds Model and your ModelNew from the same seed and init inputs, runs both on "
         "the same inputs, compares every output (atol = rtol = 1e-2) and times forward().\n\n"
         "Rules:\n"
         "1. Write a complete Python module that defines `class ModelNew(nn.Module)` with the same constructor "
         "arguments and forward() signature as Model, and the same parameters and buffers created in the same "
         "order (so seeded initial values match).\n"
         "2. Make forward() faster on the GPU: fuse operations, write Triton kernels (@triton.jit), or write raw "
         "CUDA compiled with NVRTC through kforge's helper:\n"
         "   import kforge_cuda\n"
         "   kernel = kforge_cuda.compile(CUDA_SOURCE, \"name\")   # extern \"C\" __global__ void name(...)\n"
         "   kernel((blocks,), (threads,), tensor_a, tensor_b, n)  # tensors, int (32-bit), float (32-bit)\n"
         "   Compile in __init__ (the cubin is cached on disk); never use torch.utils.cpp_extension.\n"
         "3. Do not modify the inputs in place, and return outputs of the same shapes and dtypes as Model.\n"
         "4. No timing, no printing, no network or file access beyond imports.\n\n";
}
}  // namespace

std::string python_task_rules(const Task& task, const std::string& entry_signature) {
  switch (language_facts(task.kernel.language).entry_points) {
    case EntryPointStyle::TritonJit:
      return task.harness ? triton_launcher_rules(task) : triton_rules(task, entry_signature);
    case EntryPointStyle::KernelBenchModel:
      return kernelbench_rules();
    case EntryPointStyle::QualifiedFunction:
      break;
  }
  return "";
}

}  // namespace kforge
