// Inline SVG charts for report.html. Each function returns a complete <svg> element (or
// an empty string when there is nothing to draw) that needs no scripts or external files.
#pragma once

#include "store/records.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kforge::svg {

// Best median latency per finished generation as a line, with the baseline dashed.
std::string best_latency_per_generation(const std::vector<GenerationRecord>& generations,
                                        std::optional<double> baseline_ms);

// Every evaluated candidate: x = generation, y = median latency, colour = status.
// Candidates without a valid time (failed, incorrect) sit in a band above the plot;
// pending/compiling ones are left out. Empty when no candidate was evaluated.
std::string candidate_scatter(const std::vector<CandidateRecord>& candidates,
                              std::optional<double> baseline_ms);

// The best candidate's ancestry as a chain of boxes, root first.
std::string lineage_chain(const std::vector<CandidateRecord>& lineage,
                          std::optional<double> baseline_ms);

// Log-log roofline with the baseline's and the best's achieved performance. Profiles use
// the keys arithmetic_intensity, achieved_gflops, achieved_gbps, peak_gflops, peak_gbps;
// empty when neither profile has enough of them.
std::string roofline(const nlohmann::json& baseline_profile, const nlohmann::json& best_profile);

// Colour the report uses for a status (also in the HTML legend and tables).
std::string status_colour(const std::string& status);

}  // namespace kforge::svg
