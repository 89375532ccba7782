// Dedup keys for candidates: two candidates that differ only in comments or layout
// compile to the same kernel, so they share a key and the search skips the second.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kforge {

enum class SourceSyntax {
  CLike,   // CUDA, OpenCL, HIP: drop // and /* */ comments, collapse all whitespace
  Python,  // Triton, PyTorch: drop # comments and trailing spaces, keep indentation
};

// Comments removed (string and character literals are kept intact) and whitespace
// normalised as described for each syntax.
std::string normalize_source(const std::string& source, SourceSyntax syntax);

// Hash of the normalised source together with the parameter values and compile options.
std::string dedup_hash(const std::string& source, const std::map<std::string, std::int64_t>& params,
                       const std::vector<std::string>& compile_options,
                       SourceSyntax syntax = SourceSyntax::CLike);

}  // namespace kforge
