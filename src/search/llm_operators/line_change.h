// The lines that changed between two versions of a kernel, as one unified-diff-style hunk:
// the common leading and trailing lines are cut, the rest shown as '-' and '+' lines. Enough
// to show a model "the change that broke it" without a full diff algorithm (the report's
// Myers diff lives in report/, which the search does not link).
#pragma once

#include <string>

namespace kforge {

// Empty when the texts are equal. `context` unchanged lines are kept around the change.
std::string changed_region(const std::string& before, const std::string& after, int context = 2);

}  // namespace kforge
