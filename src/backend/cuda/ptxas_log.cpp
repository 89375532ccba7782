#include "backend/cuda/ptxas_log.h"

#include <regex>
#include <sstream>
#include <vector>

namespace kforge::cuda {
namespace {

struct Section {
  std::string function;
  std::string text;
};

// Splits the log at "Compiling entry function '<name>'" lines.
std::vector<Section> entry_sections(const std::string& log) {
  static const std::regex header(R"(Compiling entry function '([^']+)')");
  std::vector<Section> sections;
  std::istringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_search(line, match, header)) {
      sections.push_back({match[1].str(), ""});
    } else if (!sections.empty()) {
      sections.back().text += line + "\n";
    }
  }
  return sections;
}

int find_number(const std::string& text, const std::regex& pattern) {
  std::smatch match;
  if (!std::regex_search(text, match, pattern)) return -1;
  return std::stoi(match[1].str());
}

PtxasStats stats_of(const std::string& text) {
  static const std::regex registers(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex stack(R"((\d+) bytes stack frame)");
  static const std::regex spill_stores(R"((\d+) bytes spill stores)");
  static const std::regex spill_loads(R"((\d+) bytes spill loads)");
  PtxasStats stats;
  stats.registers = find_number(text, registers);
  if (stats.registers < 0) return stats;  // not a ptxas -v section: report nothing
  const int shared = find_number(text, smem);
  stats.shared_bytes = shared < 0 ? 0 : shared;  // ptxas omits "smem" when there is none
  stats.local_bytes = find_number(text, stack);
  const int stores = find_number(text, spill_stores);
  const int loads = find_number(text, spill_loads);
  if (stores >= 0 && loads >= 0) stats.spill_bytes = stores + loads;
  return stats;
}

}  // namespace

PtxasStats parse_ptxas_log(const std::string& log, const std::string& function) {
  const auto sections = entry_sections(log);
  for (const auto& section : sections)
    if (section.function == function) return stats_of(section.text);
  if (sections.size() == 1) return stats_of(sections.front().text);
  return {};
}

}  // namespace kforge::cuda
