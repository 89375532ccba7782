#include "core/candidate_status.h"

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
}  // namespace

std::string to_string(CandidateStatus status) {
  for (const auto& [value, name] : kNames)
    if (value == status) return name;
  return "unknown";
}

std::optional<CandidateStatus> parse_candidate_status(const std::string& text) {
  for (const auto& [value, name] : kNames)
    if (text == name) return value;
  return std::nullopt;
}

bool is_in_flight(CandidateStatus status) {
  return status == CandidateStatus::Pending || status == CandidateStatus::Compiling;
}

bool is_failure(CandidateStatus status) {
  return !is_in_flight(status) && status != CandidateStatus::Correct;
}

}  // namespace kforge
