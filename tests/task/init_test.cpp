#include "task/init.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "task/expr.h"
#include "support/temp_dir.h"

namespace kforge {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Detects the single kernel in `file`, drafts its manifest beside it, and loads that back.
Task round_trip(const testing::TempDir& dir, const std::string& file, const std::string& source,
                std::string* manifest_text = nullptr) {
  auto path = dir.write(file, source);
  auto kernels = detect_kernels(path);
  EXPECT_EQ(kernels.size(), 1u);
  std::string text = draft_manifest(kernels.at(0), path.parent_path());
  if (manifest_text) *manifest_text = text;
  return load_task(dir.write((path.parent_path() / "kforge.toml").lexically_relative(dir.path()).string(), text));
}

TEST(DraftManifest, CudaElementwiseRoundTrips) {
  testing::TempDir dir;
  std::string text;
  Task task = round_trip(dir, "vadd.cu", R"(
extern "C" __global__ void vadd(const float* a, const __half* b, float* c, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = alpha * a[i] + float(b[i]);
}
)", &text);
  EXPECT_EQ(task.name, "vadd");
  EXPECT_EQ(task.kernel.language, Language::Cuda);
  EXPECT_EQ(task.kernel.kernel, "vadd");
  EXPECT_EQ(task.kernel.source, dir.path() / "vadd.cu");
  ASSERT_EQ(task.args.size(), 5u);
  EXPECT_EQ(task.args[0].role, ArgRole::Input);
  EXPECT_EQ(task.args[0].dtype, DType::F32);
  EXPECT_EQ(task.args[1].dtype, DType::F16);
  EXPECT_EQ(task.args[2].role, ArgRole::Output);
  EXPECT_THAT(task.args[2].shape, ElementsAre("n"));
  EXPECT_EQ(task.args[3].role, ArgRole::Scalar);
  EXPECT_EQ(task.args[3].dtype, DType::I32);
  EXPECT_EQ(task.args[3].value, "n");
  EXPECT_EQ(task.args[4].dtype, DType::F32);
  EXPECT_EQ(task.args[4].value, "2");
  EXPECT_EQ(task.launch.block[0], "BLOCK");
  EXPECT_EQ(task.launch.grid[0], "ceil_div(n, BLOCK)");
  ASSERT_EQ(task.params.size(), 1u);
  EXPECT_THAT(task.params[0].values, ElementsAre(128, 256, 512));
  EXPECT_EQ(task.params[0].default_value, 256);
  ASSERT_EQ(task.sizes.size(), 2u);
  EXPECT_EQ(task.sizes[0].vars.at("n"), 1048576);
  EXPECT_EQ(task.sizes[1].vars.at("n"), 1000003);
  EXPECT_THAT(text, HasSubstr("# Drafted by `kforge init` from vadd.cu:2."));
}

TEST(DraftManifest, ExtraIntegersGetTheirOwnSizeVariable) {
  testing::TempDir dir;
  std::string text;
  Task task = round_trip(dir, "k.cu", R"(
__global__ void strided(const double* in, double* out, long long count, int stride) {}
)", &text);
  ASSERT_EQ(task.args.size(), 4u);
  EXPECT_EQ(task.args[0].dtype, DType::F64);
  EXPECT_EQ(task.args[2].dtype, DType::I64);
  EXPECT_EQ(task.args[2].value, "n");
  EXPECT_EQ(task.args[3].value, "stride");
  EXPECT_EQ(task.sizes[0].vars, (Bindings{{"n", 1048576}, {"stride", 1}}));
  EXPECT_THAT(text, HasSubstr("guessed: its own size variable 'stride' = 1"));
}

TEST(DraftManifest, LaunchBoundsLimitTheBlockSizes) {
  testing::TempDir dir;
  Task task = round_trip(dir, "k.cu",
                         "__global__ void __launch_bounds__(128) k(const float* x, float* y, int n) {}\n");
  EXPECT_THAT(task.params[0].values, ElementsAre(128));
  EXPECT_EQ(task.params[0].default_value, 128);
}

TEST(DraftManifest, KernelWithoutBoundUsesBlockMultiples) {
  testing::TempDir dir;
  std::string text;
  Task task = round_trip(dir, "k.cu", "__global__ void twice(float* x) { x[threadIdx.x] *= 2; }\n", &text);
  ASSERT_EQ(task.args.size(), 1u);
  EXPECT_EQ(task.args[0].role, ArgRole::Output);
  for (const auto& size : task.sizes)
    for (auto block : task.params[0].values) EXPECT_EQ(size.vars.at("n") % block, 0) << size.name;
  EXPECT_THAT(text, HasSubstr("No integer parameter bounds the kernel"));
}

TEST(DraftManifest, OpenCLRoundTrips) {
  testing::TempDir dir;
  Task task = round_trip(dir, "cl/add.cl", R"(
__kernel void add(__global const float* restrict a, __global const int* b, __global float* c, const int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
)");
  EXPECT_EQ(task.kernel.language, Language::OpenCL);
  EXPECT_EQ(task.root, dir.path() / "cl");
  EXPECT_EQ(task.args[1].dtype, DType::I32);
  EXPECT_EQ(task.args[1].init, "randint(0,100)");
  EXPECT_EQ(task.args[2].role, ArgRole::Output);
  EXPECT_EQ(task.args[3].role, ArgRole::Scalar);
}

TEST(DraftManifest, TritonTunesItsConstexprBlock) {
  testing::TempDir dir;
  Task task = round_trip(dir, "add.py", R"(
import triton
import triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
)");
  EXPECT_EQ(task.kernel.language, Language::Triton);
  ASSERT_EQ(task.args.size(), 4u);
  EXPECT_EQ(task.args[0].role, ArgRole::Input);
  EXPECT_EQ(task.args[1].role, ArgRole::Input);
  EXPECT_EQ(task.args[2].role, ArgRole::Output);
  EXPECT_EQ(task.args[3].value, "n");
  ASSERT_EQ(task.params.size(), 1u);
  EXPECT_EQ(task.params[0].name, "BLOCK_SIZE");
  EXPECT_EQ(task.launch.grid[0], "ceil_div(n, BLOCK_SIZE)");
}

TEST(DraftManifest, TritonWithoutConstexprLaunchesOneProgramPerElement) {
  testing::TempDir dir;
  std::string text;
  Task task = round_trip(dir, "neg.py", "import triton\n@triton.jit\ndef neg(in_ptr, out_ptr, n):\n    pass\n", &text);
  EXPECT_TRUE(task.params.empty());
  EXPECT_EQ(task.launch.grid[0], "n");
  EXPECT_THAT(text, ::testing::Not(HasSubstr("[params]")));
}

TEST(DraftManifest, TemplateKernelIsFlagged) {
  testing::TempDir dir;
  auto path = dir.write("t.cu", "template <typename T> __global__ void scale(const T* x, T* y, int n) {}\n");
  auto kernels = detect_kernels(path);
  ASSERT_EQ(kernels.size(), 1u);
  std::string text = draft_manifest(kernels[0], dir.path());
  EXPECT_THAT(text, HasSubstr("# Template kernel"));
  EXPECT_THAT(text, HasSubstr("guessed: f32 for type 'T*'"));
}

TEST(DraftManifest, SourcePathIsRelativeToTheManifestFolder) {
  testing::TempDir dir;
  auto path = dir.write("kernels/k.cu", "__global__ void k(float* x, int n) {}\n");
  auto kernels = detect_kernels(path);
  std::string text = draft_manifest(kernels.at(0), dir.path() / "tasks");
  EXPECT_THAT(text, HasSubstr("source = \"../kernels/k.cu\""));
  Task task = load_task(dir.write("tasks/kforge.toml", text));
  EXPECT_EQ(task.kernel.source, path);
}

}  // namespace
}  // namespace kforge
