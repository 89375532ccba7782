// `kforge init PATH`: a draft manifest from a kernel's signature.
#include <fmt/format.h>

#include "cli/commands.h"
#include "task/detect.h"
#include "task/init.h"
#include "util/files.h"

namespace kforge::cli {

Action setup_init(CLI::App& sub) {
  struct Args {
    std::string path, kernel;
    bool force = false;
  };
  auto args = std::make_shared<Args>();
  sub.add_option("path", args->path, "Kernel source file")->required()->check(CLI::ExistingFile);
  sub.add_option("-k,--kernel", args->kernel, "Kernel to describe when the file has several");
  sub.add_flag("-f,--force", args->force, "Overwrite an existing manifest");
  return [args] {
    const std::filesystem::path file = std::filesystem::absolute(args->path);
    auto kernels = detect_kernels(file);
    std::erase_if(kernels, [&](const DetectedKernel& k) { return !args->kernel.empty() && k.name != args->kernel; });
    if (kernels.empty())
      throw std::runtime_error(file.string() + ": no kernel" +
                               (args->kernel.empty() ? "" : " named '" + args->kernel + "'") +
                               " found; run `kforge detect` on it to see what is there");
    const bool several = kernels.size() > 1;
    for (const auto& kernel : kernels) {
      const auto manifest = file.parent_path() / (several ? kernel.name + ".kforge.toml" : "kforge.toml");
      if (std::filesystem::exists(manifest) && !args->force)
        throw std::runtime_error(manifest.string() + ": already exists; pass --force to overwrite it");
      write_file(manifest, draft_manifest(kernel, manifest.parent_path()));
      fmt::print("wrote {} for kernel {}\n", manifest.string(), kernel.name);
    }
    return 0;
  };
}

}  // namespace kforge::cli
