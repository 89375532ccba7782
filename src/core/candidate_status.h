// The one status of a candidate kernel, shared by the evaluator (what an evaluation found),
// the search (a population member) and the run store (the `status` column). It lives in core,
// below eval and store, so neither needs the other to name a status.
#pragma once

#include <optional>
#include <string>

namespace kforge {

enum class CandidateStatus {
  Pending,    // proposed or inserted, not yet picked up
  Compiling,  // being compiled / evaluated right now ("in flight")
  CompileError,
  RuntimeError,
  Timeout,
  Incorrect,
  Correct,
};

// The stored spelling: "pending", "compiling", "compile_error", ...
std::string to_string(CandidateStatus status);
// The inverse of to_string; nullopt for an unknown name (e.g. written by a newer kforge).
std::optional<CandidateStatus> parse_candidate_status(const std::string& text);
// Pending and Compiling: the candidate's evaluation never finished.
bool is_in_flight(CandidateStatus status);
// Every terminal status except Correct.
bool is_failure(CandidateStatus status);

}  // namespace kforge
