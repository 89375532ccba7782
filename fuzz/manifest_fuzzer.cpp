// libFuzzer target: the manifest parser and validator (toml++ plus kforge's checks and
// expressions). Any input must give a Task or a TaskError, never a crash or a hang.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "task/task.h"

namespace {
// One folder per fuzzing process, with kernel sources a manifest may point to.
const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    const auto path = std::filesystem::temp_directory_path() / ("kforge-manifest-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    std::ofstream(path / "kernel.cu") << "extern \"C\" __global__ void k(float* x, int n) {}\n";
    std::ofstream(path / "kernel.cl") << "__kernel void k(__global float* x, int n) {}\n";
    return path;
  }();
  return dir;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto manifest = work_dir() / "kforge.toml";
  {
    std::ofstream out(manifest, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const kforge::Task task = kforge::load_task(manifest);
    // What every consumer does next: sizes and defaults through the expression evaluator.
    const kforge::ParamValues params = task.default_params();
    for (const auto& problem : task.sizes) {
      const kforge::Bindings bindings = kforge::bindings_for(task, problem, params);
      for (const auto& arg : task.args)
        if (arg.role != kforge::ArgRole::Scalar) (void)kforge::element_count(arg, bindings);
      (void)kforge::bytes_moved(task, bindings);
      (void)kforge::flops(task, bindings);
    }
  } catch (const kforge::TaskError&) {
  } catch (const std::exception&) {  // documented errors of the expression evaluator and std
  }
  return 0;
}
