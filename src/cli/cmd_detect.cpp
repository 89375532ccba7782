// `kforge detect PATH`: kernels in a file or folder, with their signatures.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "task/detect.h"

namespace kforge::cli {
namespace {
std::string signature(const DetectedKernel& kernel) {
  std::string text;
  for (const auto& param : kernel.params) {
    if (!text.empty()) text += ", ";
    if (param.is_const && param.is_pointer) text += "const ";
    if (param.is_local) text += "__local ";
    text += param.type;
    if (!param.name.empty()) text += " " + param.name;
  }
  return text;
}

nlohmann::json to_json(const DetectedKernel& kernel) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : kernel.params)
    params.push_back({{"type", p.type}, {"name", p.name}, {"pointer", p.is_pointer}, {"const", p.is_const}});
  return {{"name", kernel.name},   {"language", to_string(kernel.language)}, {"file", kernel.file.string()},
          {"line", kernel.line},   {"params", params}};
}
}  // namespace

Action setup_detect(CLI::App& sub) {
  auto path = std::make_shared<std::string>();
  auto as_json = std::make_shared<bool>(false);
  sub.add_option("path", *path, "Kernel file or folder")->required();
  sub.add_flag("--json", *as_json, "Machine-readable output");
  return [path, as_json] {
    const auto kernels = detect_kernels(*path);
    if (*as_json) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& kernel : kernels) list.push_back(to_json(kernel));
      fmt::print("{}\n", list.dump(2));
      return 0;
    }
    for (const auto& kernel : kernels)
      fmt::print("{:<24} {:<7} {}:{}\n    ({})\n", kernel.name, to_string(kernel.language), kernel.file.string(),
                 kernel.line, signature(kernel));
    fmt::print("{} kernel{} found\n", kernels.size(), kernels.size() == 1 ? "" : "s");
    return kernels.empty() ? 1 : 0;
  };
}

}  // namespace kforge::cli
