#include "task/detect.h"
#include "task/manifest_search.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace kforge {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> names(const std::vector<DetectedKernel>& kernels) {
  std::vector<std::string> out;
  for (const auto& k : kernels) out.push_back(k.name);
  return out;
}

std::vector<DetectedKernel> cuda(const std::string& source) {
  return detect_kernels_in_source(source, Language::Cuda, "k.cu");
}

TEST(DetectCuda, SimpleKernelWithParams) {
  auto kernels = cuda(R"(
extern "C" __global__ void vector_add(const float* __restrict__ a, const float* b,
                                      float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)");
  ASSERT_EQ(kernels.size(), 1u);
  const auto& k = kernels[0];
  EXPECT_EQ(k.name, "vector_add");
  EXPECT_EQ(k.line, 2);
  EXPECT_EQ(k.language, Language::Cuda);
  EXPECT_THAT(k.attributes, ElementsAre("extern \"C\""));
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_EQ(k.params[0].name, "a");
  EXPECT_EQ(k.params[0].type, "float*");
  EXPECT_TRUE(k.params[0].is_pointer);
  EXPECT_TRUE(k.params[0].is_const);
  EXPECT_EQ(k.params[2].name, "c");
  EXPECT_TRUE(k.params[2].is_pointer);
  EXPECT_FALSE(k.params[2].is_const);
  EXPECT_EQ(k.params[3].name, "n");
  EXPECT_EQ(k.params[3].type, "int");
  EXPECT_FALSE(k.params[3].is_pointer);
}

TEST(DetectCuda, ConstPointerVersusPointerToConst) {
  auto kernels = cuda("__global__ void k(float const* a, float* const b, const unsigned int count, double x[]) {}");
  ASSERT_EQ(kernels.size(), 1u);
  const auto& p = kernels[0].params;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_TRUE(p[0].is_const);   // pointee is const
  EXPECT_FALSE(p[1].is_const);  // the pointer is const, the data is writable
  EXPECT_EQ(p[2].type, "unsigned int");
  EXPECT_EQ(p[2].name, "count");
  EXPECT_TRUE(p[2].is_const);
  EXPECT_TRUE(p[3].is_pointer);
  EXPECT_EQ(p[3].type, "double*");
  EXPECT_EQ(p[3].name, "x");
}

TEST(DetectCuda, CommentsAndStringsAreNotKernels) {
  auto kernels = cuda(R"cpp(
// __global__ void in_line_comment(float* x) {}
/* __global__ void in_block_comment(float* x) {}
   still a comment */
const char* s = "__global__ void in_string(float* x) {}";
const char* r = R"x(
__global__ void in_raw_string(float* x) {}
)" still raw )x";
char q = '"'; const char* t = "\"__global__ void escaped(float* x) {}";
__global__ void real(float* x) {}
)cpp");
  EXPECT_THAT(names(kernels), ElementsAre("real"));
  EXPECT_EQ(kernels[0].line, 10);  // the raw string's newlines are counted
}

TEST(DetectCuda, MacroBodiesAreNotKernelsButObjectMacrosExpand) {
  auto kernels = cuda(R"(
#define DEFINE_KERNEL(T) \
  __global__ void scale_##T(T* x) { x[0] *= 2; }
#define KERNEL extern "C" __global__
#if 0
#endif
KERNEL void through_macro(float* x, int n) {}
)");
  ASSERT_THAT(names(kernels), ElementsAre("through_macro"));
  EXPECT_EQ(kernels[0].line, 7);
  EXPECT_THAT(kernels[0].attributes, ElementsAre("extern \"C\""));
  EXPECT_EQ(kernels[0].params.size(), 2u);
}

TEST(DetectCuda, TemplatesLaunchBoundsAndAttributes) {
  auto kernels = cuda(R"(
template <typename T, int N = 4>
__global__ void __launch_bounds__(256, 2) scale(const T* in, T* out, int n) {}

[[nodiscard]] static __forceinline__ __global__ void
__attribute__((noinline)) weird(float* x) {}
)");
  ASSERT_THAT(names(kernels), ElementsAre("scale", "weird"));
  EXPECT_THAT(kernels[0].template_params, ElementsAre("typename T", "int N = 4"));
  EXPECT_THAT(kernels[0].attributes, ElementsAre("__launch_bounds__(256, 2)"));
  EXPECT_EQ(kernels[0].params[0].type, "T*");
  EXPECT_TRUE(kernels[0].params[0].is_const);
  EXPECT_THAT(kernels[1].attributes,
              ElementsAre("[[nodiscard]]", "static", "__forceinline__", "__attribute__((noinline))"));
  EXPECT_EQ(kernels[1].line, 6);
}

TEST(DetectCuda, MultiLineSignatureAndTemplateTypesInParams) {
  auto kernels = cuda(R"(
namespace ops {
__global__ void
gather(
    const Tensor<float, 2> table,   // a comma inside template arguments
    const int* __restrict__ index,
    float* out,
    int n = 10) {
  __shared__ float tile[256];
}
}  // namespace ops
)");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].name, "gather");
  EXPECT_EQ(kernels[0].line, 4);
  ASSERT_EQ(kernels[0].params.size(), 4u);
  EXPECT_EQ(kernels[0].params[0].type, "Tensor<float, 2>");
  EXPECT_EQ(kernels[0].params[0].name, "table");
  EXPECT_EQ(kernels[0].params[1].type, "int*");
  EXPECT_EQ(kernels[0].params[3].name, "n");
}

TEST(DetectCuda, PrototypeCountsOnceAndDefinitionWins) {
  auto kernels = cuda(R"(
__global__ void k(float*, int);
__global__ void only_declared(float* x);
__global__ void only_declared(float* x);
__device__ float helper(float x) { return x; }
__global__ void k(float* data, int n) {}
)");
  ASSERT_THAT(names(kernels), ElementsAre("k", "only_declared"));
  EXPECT_EQ(kernels[0].line, 6);
  EXPECT_EQ(kernels[0].params[0].name, "data");
}

TEST(DetectCuda, UnnamedPrototypeParams) {
  auto kernels = cuda("__global__ void k(float*, unsigned int, void*);");
  ASSERT_EQ(kernels.size(), 1u);
  ASSERT_EQ(kernels[0].params.size(), 3u);
  EXPECT_EQ(kernels[0].params[0].name, "");
  EXPECT_EQ(kernels[0].params[1].name, "");
  EXPECT_EQ(kernels[0].params[1].type, "unsigned int");
}

TEST(DetectCuda, VoidParameterListAndDigitSeparators) {
  auto kernels = cuda("constexpr int big = 1'000'000;\n__global__ void noop(void) {}\n");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_TRUE(kernels[0].params.empty());
  EXPECT_EQ(kernels[0].line, 2);
}

TEST(DetectOpenCL, AddressSpaceQualifiers) {
  auto kernels = detect_kernels_in_source(R"(
// kernel void commented(global float* x) {}
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void add(__global const float* restrict a, global float* b, __constant float* lut,
         __local float* scratch, const int n) {}
kernel void second(global int* x) {}
void helper(global float* x) {}
)", Language::OpenCL, "k.cl");
  ASSERT_THAT(names(kernels), ElementsAre("add", "second"));
  const auto& p = kernels[0].params;
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0].type, "float*");
  EXPECT_TRUE(p[0].is_pointer);
  EXPECT_TRUE(p[0].is_const);
  EXPECT_EQ(p[0].name, "a");
  EXPECT_FALSE(p[1].is_const);
  EXPECT_TRUE(p[2].is_const);  // __constant memory is read-only
  EXPECT_TRUE(p[3].is_local);
  EXPECT_FALSE(p[0].is_local);
  EXPECT_EQ(p[4].type, "int");
  EXPECT_THAT(kernels[0].attributes, ElementsAre("__attribute__((reqd_work_group_size(64, 1, 1)))"));
  EXPECT_EQ(kernels[0].line, 4);
}

TEST(DetectOpenCL, CudaMarkerIsNotAnOpenCLKernel) {
  EXPECT_TRUE(detect_kernels_in_source("__global__ void k(float* x) {}", Language::OpenCL, "k.cl").empty());
  EXPECT_TRUE(detect_kernels_in_source("__kernel void k(__global float* x) {}", Language::Cuda, "k.cu").empty());
}

TEST(DetectTriton, JitAndAutotunedKernels) {
  auto kernels = detect_kernels_in_source(R"PY(
import triton
import triton.language as tl

"""
@triton.jit
def in_docstring(x_ptr):
    pass
"""

# @triton.jit
# def in_comment(x_ptr): pass

def not_jitted(x):
    s = "@triton.jit\ndef in_string(x): pass"
    return s

@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)

@triton.autotune(
    configs=[triton.Config({'BLOCK': 128}, num_warps=4),
             triton.Config({'BLOCK': 256}, num_warps=8)],
    key=['n'],
)
@triton.jit
def softmax(
    out_ptr,  # the result
    in_ptr,
    n: int,
    BLOCK: "tl.constexpr" = 128,
):
    pass
)PY", Language::Triton, "k.py");
  ASSERT_THAT(names(kernels), ElementsAre("add_kernel", "softmax"));
  const auto& add = kernels[0];
  EXPECT_EQ(add.line, 19);
  ASSERT_EQ(add.params.size(), 5u);
  EXPECT_TRUE(add.params[0].is_pointer);
  EXPECT_FALSE(add.params[3].is_pointer);
  EXPECT_TRUE(add.params[4].is_constexpr);
  EXPECT_EQ(add.params[4].type, "tl.constexpr");
  EXPECT_THAT(add.attributes, ElementsAre("triton.jit"));
  const auto& softmax = kernels[1];
  EXPECT_EQ(softmax.line, 28);
  EXPECT_THAT(softmax.attributes, ElementsAre("triton.autotune", "triton.jit"));
  ASSERT_EQ(softmax.params.size(), 4u);
  EXPECT_EQ(softmax.params[2].name, "n");
  EXPECT_EQ(softmax.params[2].type, "int");
  EXPECT_TRUE(softmax.params[3].is_constexpr);
}

TEST(DetectTriton, AutotuneWithoutJitIsNotAKernel) {
  auto kernels = detect_kernels_in_source("@triton.autotune(configs=[], key=[])\ndef f(x_ptr):\n  pass\n",
                                          Language::Triton, "k.py");
  EXPECT_TRUE(kernels.empty());
}

TEST(LanguageForFile, ExtensionsAndIncludes) {
  EXPECT_EQ(language_for_file("a.cu", ""), Language::Cuda);
  EXPECT_EQ(language_for_file("a.cuh", ""), Language::Cuda);
  EXPECT_EQ(language_for_file("a.cu", "#include <hip/hip_runtime.h>\n"), Language::Hip);
  EXPECT_EQ(language_for_file("a.cu", "// #include <hip/hip_runtime.h>\n"), Language::Cuda);
  EXPECT_EQ(language_for_file("a.cpp", "#  include \"hip/hip_runtime.h\"\n"), Language::Hip);
  EXPECT_EQ(language_for_file("a.cpp", "int main() {}"), std::nullopt);
  EXPECT_EQ(language_for_file("a.hip", ""), Language::Hip);
  EXPECT_EQ(language_for_file("a.CL", ""), Language::OpenCL);
  EXPECT_EQ(language_for_file("a.py", "import numpy as np, triton\n"), Language::Triton);
  EXPECT_EQ(language_for_file("a.py", "from triton import language as tl\n"), Language::Triton);
  EXPECT_EQ(language_for_file("a.py", "import torch\n# import triton\n"), Language::PyTorch);
  EXPECT_EQ(language_for_file("a.py", "from mylib import triton\n"), std::nullopt);
  EXPECT_EQ(language_for_file("a.txt", "__global__ void k() {}"), std::nullopt);
}

TEST(DetectKernels, FolderIsRecursiveAndSorted) {
  testing::TempDir dir;
  dir.write("b/two.cu", "__global__ void b2(float* x) {}\n__global__ void b1(float* x) {}\n");
  dir.write("a.cl", "\n\n__kernel void a(__global float* x) {}\n");
  dir.write("notes.txt", "__global__ void not_source(float* x) {}");
  dir.write(".hidden/h.cu", "__global__ void hidden(float* x) {}");
  dir.write("py/k.py", "import triton\n@triton.jit\ndef t(x_ptr):\n  pass\n");
  dir.write("py/plain.py", "@triton.jit\ndef no_import(x_ptr):\n  pass\n");
  auto kernels = detect_kernels(dir.path());
  EXPECT_THAT(names(kernels), ElementsAre("a", "b2", "b1", "t"));
  EXPECT_EQ(kernels[0].language, Language::OpenCL);
  EXPECT_EQ(kernels[0].line, 3);
  EXPECT_EQ(kernels[0].file, dir.path() / "a.cl");
}

TEST(DetectKernels, RunFoldersAreNeverScanned) {
  // `kforge optimize .` leaves runs/<time>-<task>/ with run.db and best.cu beside the task: a
  // later detect or optimize of the folder must not take the best copy for a new kernel.
  testing::TempDir dir;
  dir.write("k.cu", "__global__ void k(float* x) {}\n");
  dir.write("kforge.toml", "[task]\nname = \"k\"\nlanguage = \"cuda\"\nsource = \"k.cu\"\nkernel = \"k\"\n");
  dir.write("runs/20261201-k/run.db", "");
  dir.write("runs/20261201-k/best.cu", "__global__ void k(float* x) {}\n");
  dir.write("runs/20261201-k/kforge.toml", "[task]\nname = \"copy\"\n");
  EXPECT_THAT(names(detect_kernels(dir.path())), ElementsAre("k"));
  EXPECT_THAT(find_manifests(dir.path()), ElementsAre(dir.path() / "kforge.toml"));
}

TEST(DetectKernels, HipSourcesByIncludeOrExtension) {
  testing::TempDir dir;
  dir.write("a.cpp", "#include <hip/hip_runtime.h>\n__global__ void from_cpp(float* x) {}\n");
  dir.write("b.hip", "__global__ void from_hip(float* x) {}\n");
  dir.write("c.cpp", "__global__ void plain_cpp(float* x) {}\n");
  auto kernels = detect_kernels(dir.path());
  ASSERT_THAT(names(kernels), ElementsAre("from_cpp", "from_hip"));
  EXPECT_EQ(kernels[0].language, Language::Hip);
  EXPECT_EQ(kernels[1].language, Language::Hip);
}

TEST(DetectKernels, ErrorsForMissingPathAndNonSourceFile) {
  testing::TempDir dir;
  auto text = dir.write("notes.txt", "hello");
  try {
    detect_kernels(text);
    FAIL() << "expected TaskError";
  } catch (const TaskError& e) {
    EXPECT_THAT(e.what(), HasSubstr("notes.txt: not a kernel source"));
  }
  EXPECT_THROW(detect_kernels(dir.path() / "missing.cu"), TaskError);
}

}  // namespace
}  // namespace kforge
