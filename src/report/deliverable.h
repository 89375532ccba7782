// best.<ext> as a kernel engineer can use it: the best candidate's source with its tunable
// values baked in and its build options stated at the top. Tunables reach kernels as -D NAME=V
// (C-like languages), so a win made of parameters and options alone would otherwise leave a
// best.<ext> byte-identical to the original: here each value is a guarded #define (a -D given
// at build time still wins), and the options are a comment to copy into the build. Python
// (Triton) kernels take their tunables as keywords: the values are stated in a header comment
// and as KFORGE_BEST_PARAMS at the end of the module.
#pragma once

#include <string>
#include <vector>

#include "store/records.h"
#include "task/languages.h"

namespace kforge {

struct DeliverableInfo {
  std::string task_name;
  std::string headline;                  // e.g. "1.23x [1.20, 1.26] faster, verified on NVIDIA H200"
  std::vector<std::string> task_options;  // the manifest's compile options (applied to every candidate)
};

std::string deliverable_source(const CandidateRecord& best, Language language, const DeliverableInfo& info);

// Every build option of the best: the task's, then the candidate's own.
std::vector<std::string> build_options(const CandidateRecord& best, const std::vector<std::string>& task_options);

}  // namespace kforge
