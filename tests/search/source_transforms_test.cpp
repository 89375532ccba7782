// The source transforms on tricky signatures and on every example kernel; the results are
// compiled with the real backends (OpenCL on the machine's device, CUDA with NVRTC, which
// needs no GPU when KFORGE_CUDA_ARCH names the target).
#include <gtest/gtest.h>

#include <cstdlib>

#include "backend/backend.h"
#include "search/operators/compiler_options.h"
#include "search/operators/restrict.h"
#include "search/operators/unroll.h"
#include "search_test_util.h"

namespace kforge {
namespace {

using testing::baseline_of;
using testing::ContextFixture;
using testing::example_names;
using testing::load_example;

const char* kTrickyCuda = R"(// void fake(float* x) in a comment is not a kernel
#define SCALE 2.0f
__device__ float twice(float* p) { return p[0] * SCALE; }
extern "C" __global__ void
tricky(const float* /* float* here */ a,
       float *b,   // trailing float* comment
       const float* __restrict__ c,
       float* const d,
       int n) {
  const char* label = "float* inside a string";
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] + c[i] + d[i] + twice(b) * (label[0] == 'f');
}
)";

const char* kTrickyOpenCl = R"(/* __kernel void fake(__global float* x) {} */
__kernel void tricky(__global const float* a,
                     __global float *b, /* __global float* fake */
                     __global const float* restrict c,
                     __local float* scratch,
                     const int n) {
  int i = get_global_id(0);
  scratch[get_local_id(0)] = 0.0f;
  if (i < n) b[i] = a[i] + c[i];
}
)";

const char* kLoops = R"(#define TILE 8
extern "C" __global__ void loops(const float* x, float* y, int n) {
  float acc = 0.0f;
  for (int i = 0; i < TILE; ++i) acc += x[i];
  for (int k = 0; k <= ITEMS * 2; k++) {
    for (int j = 0; j < n; ++j) acc += x[j];  // run-time bound
  }
#pragma unroll 2
  for (int m = 0; m < TILE; ++m) acc *= 0.5f;
  if (n > 0) for (int q = 0; q < 4; ++q) acc += 1.0f;  // no room for a pragma line
  for (int big = 0; big < 100000; ++big) acc += 1.0f;
  y[0] = acc;
}
)";

class CompilingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ::setenv("KFORGE_CUDA_ARCH", "sm_90", 0); }

  // Compiles with the task's defaults; skips when the backend is missing on this machine.
  void expect_compiles(Language language, const std::string& source, const std::string& kernel,
                       const ParamValues& params, const std::vector<std::string>& options = {}) {
    auto backend = make_backend(language);
    CompileRequest request;
    request.language = language;
    request.source = source;
    request.source_name = language == Language::Cuda ? "transformed.cu" : "transformed.cl";
    request.kernel = kernel;
    for (const auto& [name, value] : params) request.defines.emplace_back(name, std::to_string(value));
    request.options = options;
    const CompileResult result = backend->compile(request);
    if (!result.ok && (result.log.find("NVRTC not found") != std::string::npos ||
                       result.log.find("no OpenCL") != std::string::npos))
      GTEST_SKIP() << result.log;
    EXPECT_TRUE(result.ok) << kernel << ":\n" << result.log << "\n" << source;
  }
};

TEST_F(CompilingTest, RestrictOnATrickyCudaSignature) {
  const auto result = add_restrict(kTrickyCuda, Language::Cuda, "tricky");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->params, (std::vector<std::string>{"a", "b", "d"}));
  const std::string& out = result->source;
  EXPECT_NE(out.find("const float* __restrict__ /* float* here */ a,"), std::string::npos) << out;
  EXPECT_NE(out.find("float * __restrict__ b,   // trailing float* comment"), std::string::npos) << out;
  EXPECT_NE(out.find("const float* __restrict__ c,"), std::string::npos) << out;  // untouched
  EXPECT_NE(out.find("float* __restrict__ const d,"), std::string::npos) << out;
  EXPECT_NE(out.find("__device__ float twice(float* p)"), std::string::npos) << "helpers are not kernels";
  EXPECT_NE(out.find("// void fake(float* x) in a comment"), std::string::npos);
  EXPECT_NE(out.find("\"float* inside a string\""), std::string::npos);
  EXPECT_FALSE(add_restrict(out, Language::Cuda, "tricky")) << "a second pass finds nothing to do";
  expect_compiles(Language::Cuda, out, "tricky", {});
}

TEST_F(CompilingTest, RestrictOnATrickyOpenClSignature) {
  const auto result = add_restrict(kTrickyOpenCl, Language::OpenCL, "tricky");
  ASSERT_TRUE(result);
  EXPECT_EQ(result->params, (std::vector<std::string>{"a", "b"}));  // c has it; scratch is __local
  const std::string& out = result->source;
  EXPECT_NE(out.find("__global const float* restrict a,"), std::string::npos) << out;
  EXPECT_NE(out.find("__global float * restrict b, /* __global float* fake */"), std::string::npos) << out;
  EXPECT_NE(out.find("__local float* scratch,"), std::string::npos) << out;
  EXPECT_NE(out.find("/* __kernel void fake(__global float* x) {} */"), std::string::npos);
  expect_compiles(Language::OpenCL, out, "tricky", {});
}

TEST_F(CompilingTest, RestrictOnEveryExampleAndPlantedKernel) {
  int transformed = 0;
  for (const std::string language : {"opencl", "cuda"}) {
    for (const auto& name : example_names()) {
      const Task task = load_example(name, language);
      const auto result = add_restrict(read_file(task.kernel.source), task.kernel.language, task.kernel.kernel);
      if (!result) continue;  // every pointer already restricted
      ++transformed;
      expect_compiles(task.kernel.language, result->source, task.kernel.kernel, task.default_params());
    }
  }
  EXPECT_GE(transformed, 4);  // histogram and sum_reduction have unrestricted scratch pointers
  const Task planted = testing::load_faulty_correct();
  const auto result = add_restrict(read_file(planted.kernel.source), Language::OpenCL, planted.kernel.kernel);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->params.size(), 3u);
  expect_compiles(Language::OpenCL, result->source, planted.kernel.kernel, planted.default_params());
}

TEST_F(CompilingTest, UnrollMarksLoopsByTheirBounds) {
  const std::set<std::string> tunables{"ITEMS"};
  const auto full = add_unroll_pragmas(kLoops, Language::Cuda, "loops", tunables, UnrollKind::Full);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->loops, 2);  // i < TILE and k <= ITEMS * 2; m already has a pragma; q follows an if
  EXPECT_NE(full->source.find("  #pragma unroll\n  for (int i = 0; i < TILE; ++i)"), std::string::npos) << full->source;
  EXPECT_NE(full->source.find("  #pragma unroll\n  for (int k = 0;"), std::string::npos) << full->source;
  const auto partial = add_unroll_pragmas(kLoops, Language::Cuda, "loops", tunables, UnrollKind::Partial);
  ASSERT_TRUE(partial);
  EXPECT_EQ(partial->loops, 2);  // j < n and big < 100000 (too long to unroll fully)
  EXPECT_NE(partial->source.find("    #pragma unroll 4\n    for (int j = 0; j < n; ++j)"), std::string::npos)
      << partial->source;
  expect_compiles(Language::Cuda, full->source, "loops", {{"ITEMS", 2}});
  expect_compiles(Language::Cuda, partial->source, "loops", {{"ITEMS", 2}});
}

TEST_F(CompilingTest, UnrollEveryExampleKernel) {
  int transformed = 0;
  for (const std::string language : {"opencl", "cuda"}) {
    for (const auto& name : example_names()) {
      const Task task = load_example(name, language);
      std::set<std::string> tunables;
      for (const auto& param : task.params) tunables.insert(param.name);
      for (UnrollKind kind : {UnrollKind::Full, UnrollKind::Partial}) {
        const auto result =
            add_unroll_pragmas(read_file(task.kernel.source), task.kernel.language, task.kernel.kernel, tunables, kind);
        if (!result) continue;
        ++transformed;
        expect_compiles(task.kernel.language, result->source, task.kernel.kernel, task.default_params());
      }
    }
  }
  EXPECT_GE(transformed, 8);
}

TEST_F(CompilingTest, CompilerOptionsAreAcceptedByTheCompilers) {
  for (const std::string language : {"opencl", "cuda"}) {
    ContextFixture fixture(load_example("vector_add", language));
    const Individual parent = baseline_of(fixture.task);
    CompilerOptionsOperator op;
    auto context = fixture.context();
    for (const auto& proposal : op.propose(context, {&parent}, 20))
      expect_compiles(fixture.task.kernel.language, proposal.variant.source, fixture.task.kernel.kernel,
                      proposal.variant.params, proposal.variant.options);
  }
}

TEST(TransformOperators, ProposeNothingWhenTheKernelIsNotFound) {
  ContextFixture fixture(testing::load_faulty_correct());
  Individual parent = baseline_of(fixture.task);
  parent.variant.kernel = "no_such_kernel";
  auto context = fixture.context();
  EXPECT_TRUE(RestrictOperator().propose(context, {&parent}, 3).empty());
  EXPECT_TRUE(UnrollOperator().propose(context, {&parent}, 3).empty());
}

TEST(TransformOperators, RestrictProposalIsUnseenAndThenSeen) {
  ContextFixture fixture(testing::load_faulty_correct());
  const Individual parent = baseline_of(fixture.task);
  auto context = fixture.context();
  RestrictOperator op;
  const auto proposals = op.propose(context, {&parent}, 3);
  ASSERT_EQ(proposals.size(), 1u);
  EXPECT_EQ(proposals[0].strategy, "restrict on a, b, c");
  fixture.seen.insert(proposals[0].variant);
  EXPECT_TRUE(op.propose(context, {&parent}, 3).empty());
}

}  // namespace
}  // namespace kforge
