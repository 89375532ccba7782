// See deliverable.h.
#include "report/deliverable.h"

#include <fmt/format.h>

namespace kforge {
namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const auto& part : parts) text += (text.empty() ? "" : " ") + part;
  return text;
}

std::string c_like(const CandidateRecord& best, const DeliverableInfo& info) {
  const std::vector<std::string> options = build_options(best, info.task_options);
  std::string out = fmt::format("// kforge: best kernel of task '{}' (candidate #{}{})\n", info.task_name, best.id,
                                info.headline.empty() ? "" : ": " + info.headline);
  out += "// Build options: " + (options.empty() ? std::string("none") : joined(options)) + "\n";
  if (!best.params.empty()) {
    out += "// Tunable values, baked in (a -D at build time still takes precedence):\n";
    for (const auto& [name, value] : best.params)
      out += fmt::format("#ifndef {0}\n#define {0} {1}\n#endif\n", name, value);
  }
  out += "// ---- kernel source as evaluated ----\n";
  return out + best.source;
}

std::string python(const CandidateRecord& best, const DeliverableInfo& info) {
  const std::vector<std::string> options = build_options(best, info.task_options);
  std::string params;
  for (const auto& [name, value] : best.params) params += fmt::format("{}\"{}\": {}", params.empty() ? "" : ", ", name, value);
  std::string out = fmt::format("# kforge: best kernel of task '{}' (candidate #{}{})\n", info.task_name, best.id,
                                info.headline.empty() ? "" : ": " + info.headline);
  out += "# Launch it with these tunable values (keywords of the kernel or launcher): {" + params + "}\n";
  if (!options.empty()) out += "# Options: " + joined(options) + "\n";
  out += best.source;
  if (!out.empty() && out.back() != '\n') out += "\n";
  return out + "\nKFORGE_BEST_PARAMS = {" + params + "}  # the tunable values kforge verified\n";
}
}  // namespace

std::vector<std::string> build_options(const CandidateRecord& best, const std::vector<std::string>& task_options) {
  std::vector<std::string> options = task_options;
  options.insert(options.end(), best.compile_options.begin(), best.compile_options.end());
  return options;
}

std::string deliverable_source(const CandidateRecord& best, Language language, const DeliverableInfo& info) {
  return language_facts(language).syntax == SyntaxFamily::Python ? python(best, info) : c_like(best, info);
}

}  // namespace kforge
