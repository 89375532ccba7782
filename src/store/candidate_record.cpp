// The convenience accessors of a stored candidate row.
#include "store/records.h"

namespace kforge {

std::optional<double> CandidateRecord::median_ms() const { return metrics.median_ms; }
std::optional<double> CandidateRecord::speedup() const { return metrics.speedup; }

}  // namespace kforge
