#include "store/records.h"
#include "store/store_error.h"

#include <array>
#include <utility>

namespace kforge {
namespace {

constexpr std::array<std::pair<CandidateStatus, const char*>, 7> kNames{{
    {CandidateStatus::Pending, "pending"},
    {CandidateStatus::Compiling, "compiling"},
    {CandidateStatus::CompileError, "compile_error"},
    {CandidateStatus::RuntimeError, "runtime_error"},
    {CandidateStatus::Timeout, "timeout"},
    {CandidateStatus::Incorrect, "incorrect"},
    {CandidateStatus::Correct, "correct"},
}};

std::optional<double> number_at(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return std::nullopt;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

}  // namespace

std::string to_string(CandidateStatus status) {
  for (const auto& [value, name] : kNames)
    if (value == status) return name;
  return "unknown";
}

CandidateStatus parse_candidate_status(const std::string& text) {
  for (const auto& [value, name] : kNames)
    if (text == name) return value;
  throw StoreError("unknown candidate status '" + text + "' in run.db (written by a newer kforge?)");
}

bool is_in_flight(CandidateStatus status) {
  return status == CandidateStatus::Pending || status == CandidateStatus::Compiling;
}

bool is_failure(CandidateStatus status) {
  return !is_in_flight(status) && status != CandidateStatus::Correct;
}

std::optional<double> CandidateRecord::median_ms() const { return number_at(metrics, "median_ms"); }
std::optional<double> CandidateRecord::speedup() const { return number_at(metrics, "speedup"); }

}  // namespace kforge
