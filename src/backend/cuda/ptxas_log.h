// Reads per-kernel resource usage out of `ptxas -v` output, which NVRTC appends to its log
// when given --ptxas-options=-v. Needs no CUDA headers, so tests use it directly.
#pragma once

#include <string>

namespace kforge::cuda {

struct PtxasStats {
  int registers = -1;
  int shared_bytes = -1;  // static shared memory ("N bytes smem"); 0 when ptxas omits it
  int local_bytes = -1;   // stack frame per thread
  int spill_bytes = -1;   // spill stores + spill loads
};

// Stats of `function` (a lowered symbol name). When the log has no section for it but exactly
// one entry function, that one is used. Fields stay -1 when the log does not say.
PtxasStats parse_ptxas_log(const std::string& log, const std::string& function);

}  // namespace kforge::cuda
