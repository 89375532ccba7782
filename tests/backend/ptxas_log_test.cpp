#include "backend/cuda/ptxas_log.h"

#include <gtest/gtest.h>

namespace kforge::cuda {
namespace {

// Verbatim NVRTC 13.0 output for two kernels compiled with --ptxas-options=-v.
const char* kTwoKernels = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z3addIfEvPT_PKS0_i' for 'sm_90'
ptxas info    : Function properties for _Z3addIfEvPT_PKS0_i
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 1 barriers, 256 bytes smem
ptxas info    : Compile time = 7.302 ms
ptxas info    : Compiling entry function 'big' for 'sm_90'
ptxas info    : Function properties for big
ptxas         .     800 bytes stack frame, 16 bytes spill stores, 24 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers, 800 bytes cumulative stack size
ptxas info    : Compile time = 131.915 ms
)";

TEST(PtxasLog, PicksTheRequestedFunction) {
  const auto add = parse_ptxas_log(kTwoKernels, "_Z3addIfEvPT_PKS0_i");
  EXPECT_EQ(add.registers, 12);
  EXPECT_EQ(add.shared_bytes, 256);
  EXPECT_EQ(add.local_bytes, 0);
  EXPECT_EQ(add.spill_bytes, 0);
  const auto big = parse_ptxas_log(kTwoKernels, "big");
  EXPECT_EQ(big.registers, 40);
  EXPECT_EQ(big.shared_bytes, 0);
  EXPECT_EQ(big.local_bytes, 800);
  EXPECT_EQ(big.spill_bytes, 40);
}

TEST(PtxasLog, UnknownFunctionAmongSeveralGivesNothing) {
  const auto stats = parse_ptxas_log(kTwoKernels, "missing");
  EXPECT_EQ(stats.registers, -1);
  EXPECT_EQ(stats.spill_bytes, -1);
}

TEST(PtxasLog, SingleFunctionIsUsedWhateverTheName) {
  const std::string log =
      "ptxas info    : Compiling entry function 'only' for 'sm_80'\n"
      "ptxas info    : Used 8 registers, 360 bytes cmem[0]\n";
  const auto stats = parse_ptxas_log(log, "");
  EXPECT_EQ(stats.registers, 8);
  EXPECT_EQ(stats.shared_bytes, 0);
  EXPECT_EQ(stats.local_bytes, -1);  // no "Function properties" line
}

TEST(PtxasLog, LogWithoutPtxasInfoGivesNothing) {
  const auto stats = parse_ptxas_log("k.cu(1): warning: unused variable\n", "k");
  EXPECT_EQ(stats.registers, -1);
  EXPECT_EQ(stats.shared_bytes, -1);
}

}  // namespace
}  // namespace kforge::cuda
