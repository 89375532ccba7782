// NVRTC compiles run wherever libnvrtc exists (KFORGE_CUDA_ARCH picks the target without a
// GPU); device tests skip unless a real CUDA device is present.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/cuda_backend.h"
#include "backend_test_util.h"

namespace kforge {
namespace {

using testing::ScopedEnv;

const char* kVectorAdd = R"(
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

const char* kTemplated = R"(
template <typename T>
__global__ void scale(T* x, T factor, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}
)";

const char* kHalf = R"(
#include <cuda_fp16.h>
extern "C" __global__ void half_add(const __half* a, const __half* b, __half* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = __hadd(a[i], b[i]);
}
)";

const char* kSyntaxError = R"(
extern "C" __global__ void broken(float* x) {
  x[0] = 1.0f
}
)";

const char* kFaults = R"(
extern "C" __global__ void past_end(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
  if (i == 0) out[n] = 42.0f;
}
extern "C" __global__ void before_start(float* out) {
  if (threadIdx.x == 0) out[-1] = 42.0f;
}
extern "C" __global__ void wild_write(float* out) {
  float* wild = (float*)0x10;  // unmapped: CUDA_ERROR_ILLEGAL_ADDRESS
  wild[threadIdx.x] = out[0];
}
extern "C" __global__ void trap(float* out) {
  if (out[0] == 0.0f) __trap();  // buffers start zeroed, so this always traps
}
extern "C" __global__ void spin(float* out, int iterations) {
  float x = out[threadIdx.x];
  for (int i = 0; i < iterations; ++i) x = x * 0.999f + 1.0f;
  out[threadIdx.x] = x;
}
extern "C" __global__ void big_shared(float* out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}
)";

class CudaCompileTest : public testing::FreshCacheTest {
 protected:
  void SetUp() override {
    FreshCacheTest::SetUp();
    backend_ = make_backend(Language::Cuda);
    arch_env_.emplace("KFORGE_CUDA_ARCH", "sm_90");  // used only when there is no device
  }
  void TearDown() override {
    arch_env_.reset();
    FreshCacheTest::TearDown();
  }

  CompileResult compile(const char* source, const std::string& kernel) {
    CompileRequest request;
    request.language = Language::Cuda;
    request.source = source;
    request.source_name = "test.cu";
    request.kernel = kernel;
    return backend_->compile(request);
  }

  // NVRTC is a run-time dependency: without it compiles must fail cleanly, not crash.
  bool nvrtc_missing(const CompileResult& result) {
    return !result.ok && result.log.find("NVRTC not found") != std::string::npos;
  }

  std::unique_ptr<Backend> backend_;
  std::optional<ScopedEnv> arch_env_;
};

#define SKIP_WITHOUT_NVRTC(result) \
  if (nvrtc_missing(result)) GTEST_SKIP() << (result).log

TEST_F(CudaCompileTest, ExternCKernelCompilesToCubinWithStats) {
  const CompileResult result = compile(kVectorAdd, "vadd");
  SKIP_WITHOUT_NVRTC(result);
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_EQ(result.binary_format, "cubin");
  EXPECT_GT(result.binary.size(), 4u);
  EXPECT_EQ(result.binary.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(result.lowered_name, "vadd");
  EXPECT_EQ(result.kernel, "vadd");
  EXPECT_EQ(result.arch.rfind("sm_", 0), 0u) << result.arch;
  // NVRTC prints ptxas -v output into the log, so register counts are known.
  EXPECT_GT(result.registers, 0) << result.log;
  EXPECT_EQ(result.spill_bytes, 0) << result.log;
  EXPECT_GE(result.shared_bytes, 0);
  EXPECT_GE(result.local_bytes, 0);
  EXPECT_FALSE(result.cache_hit);
}

// NVRTC answers an identical second compile from its own cache with an empty log; the stats
// must still come back (they did not on the H100 before this was handled).
TEST_F(CudaCompileTest, RepeatedIdenticalCompileKeepsItsStats) {
  ::setenv("KFORGE_NO_COMPILE_CACHE", "1", 1);
  const CompileResult first = compile(kVectorAdd, "vadd");
  const CompileResult second = compile(kVectorAdd, "vadd");
  ::unsetenv("KFORGE_NO_COMPILE_CACHE");
  if (!first.ok) GTEST_SKIP() << "NVRTC unavailable: " << first.log;
  ASSERT_TRUE(second.ok) << second.log;
  EXPECT_FALSE(second.cache_hit);
  EXPECT_GT(first.registers, 0) << first.log;
  EXPECT_EQ(second.registers, first.registers) << "log of the repeat: " << second.log;
  EXPECT_EQ(second.max_threads_per_block, first.max_threads_per_block);
}

TEST_F(CudaCompileTest, TemplatedKernelGetsItsMangledName) {
  const CompileResult result = compile(kTemplated, "scale<float>");
  SKIP_WITHOUT_NVRTC(result);
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_EQ(result.lowered_name.rfind("_Z", 0), 0u) << result.lowered_name;
  EXPECT_NE(result.lowered_name.find("scale"), std::string::npos);
  EXPECT_GT(result.registers, 0) << result.log;
}

TEST_F(CudaCompileTest, KernelIncludingCudaFp16Compiles) {
  const CompileResult result = compile(kHalf, "half_add");
  SKIP_WITHOUT_NVRTC(result);
  EXPECT_TRUE(result.ok) << result.log;
}

TEST_F(CudaCompileTest, SyntaxErrorFailsWithTheCompilerLog) {
  const CompileResult result = compile(kSyntaxError, "broken");
  SKIP_WITHOUT_NVRTC(result);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("error"), std::string::npos) << result.log;
  EXPECT_NE(result.log.find("test.cu"), std::string::npos) << result.log;
  EXPECT_TRUE(result.binary.empty());
}

TEST_F(CudaCompileTest, MissingKernelFails) {
  const CompileResult result = compile(kVectorAdd, "no_such_kernel");
  SKIP_WITHOUT_NVRTC(result);
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("no_such_kernel"), std::string::npos) << result.log;
}

TEST_F(CudaCompileTest, DefinesAndOptionsReachNvrtc) {
  CompileRequest request;
  request.source = "#if BLOCK != 128\n#error wrong BLOCK\n#endif\nextern \"C\" __global__ void k() {}\n";
  request.kernel = "k";
  request.defines = {{"BLOCK", "128"}};
  request.options = {"-lineinfo"};
  const CompileResult result = backend_->compile(request);
  SKIP_WITHOUT_NVRTC(result);
  EXPECT_TRUE(result.ok) << result.log;
  request.defines = {{"BLOCK", "64"}};
  const CompileResult wrong = backend_->compile(request);
  EXPECT_FALSE(wrong.ok);
  EXPECT_NE(wrong.log.find("wrong BLOCK"), std::string::npos) << wrong.log;
}

TEST_F(CudaCompileTest, SecondCompileIsACacheHit) {
  const CompileResult first = compile(kVectorAdd, "vadd");
  SKIP_WITHOUT_NVRTC(first);
  ASSERT_TRUE(first.ok) << first.log;
  const CompileResult second = compile(kVectorAdd, "vadd");
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.seconds, 0);
  EXPECT_EQ(second.binary, first.binary);
  EXPECT_EQ(second.lowered_name, first.lowered_name);
  EXPECT_EQ(second.registers, first.registers);
}

// NVRTC programs are independent, and compile-time driver stats share one guarded context.
TEST_F(CudaCompileTest, ConcurrentCompilesAllSucceed) {
  std::vector<CompileResult> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      CompileRequest request;
      request.source = kTemplated;
      request.kernel = "scale<float>";
      request.defines = {{"VARIANT", std::to_string(t)}};
      results[t] = backend_->compile(request);
    });
  }
  for (auto& thread : threads) thread.join();
  SKIP_WITHOUT_NVRTC(results[0]);
  for (const auto& result : results) EXPECT_TRUE(result.ok) << result.log;
}

TEST_F(CudaCompileTest, ArchitectureComesFromTheEnvironmentWithoutADevice) {
  if (backend_->probe().usable) GTEST_SKIP() << "a CUDA device is present: its arch is used";
  const ScopedEnv arch("KFORGE_CUDA_ARCH", "80");
  const CompileResult result = compile(kVectorAdd, "vadd");
  SKIP_WITHOUT_NVRTC(result);
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_EQ(result.arch, "sm_80");
  EXPECT_NE(result.log.find("sm_80"), std::string::npos) << result.log;
}

TEST(CudaProbe, WithoutADriverProbeSaysWhy) {
  auto backend = make_backend(Language::Cuda);
  const Availability availability = backend->probe();
  if (availability.usable) GTEST_SKIP() << "a CUDA device is present: " << availability.reason;
  EXPECT_TRUE(availability.devices.empty());
  const std::string& reason = availability.reason;
  const bool explained = reason.find("libcuda not found") != std::string::npos ||
                         reason.find("stub") != std::string::npos ||
                         reason.find("no CUDA device") != std::string::npos ||
                         reason.find("without CUDA headers") != std::string::npos;
  EXPECT_TRUE(explained) << reason;
  EXPECT_THROW(backend->open_device(0), DeviceError);
}

// The toolkit's stub libcuda must read as "no driver". Runs in a fresh process (death-test
// machinery) so the stub, whose soname is libcuda.so.1, never shadows a real driver.
TEST(CudaProbeDeathTest, ToolkitStubIsDetected) {
  const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!std::filesystem::exists(stub)) GTEST_SKIP() << stub << " not installed";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const std::string problem = cuda_driver_problem(stub);
        std::exit(problem.find("stub") != std::string::npos ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(CudaProbe, MissingLibraryIsReported) {
  const std::string problem = cuda_driver_problem("/nonexistent/libcuda.so.1");
  EXPECT_NE(problem.find("libcuda not found"), std::string::npos) << problem;
}

// ---- Device tests: need a GPU (they run on the H100 machine).

class CudaDeviceTest : public CudaCompileTest {
 protected:
  void SetUp() override {
    CudaCompileTest::SetUp();
    const Availability availability = backend_->probe();
    if (!availability.usable) GTEST_SKIP() << "no CUDA device: " << availability.reason;
    device_ = backend_->open_device(0);
  }

  KernelId load(const char* source, const std::string& kernel) {
    const CompileResult compiled = compile(source, kernel);
    EXPECT_TRUE(compiled.ok) << compiled.log;
    return device_->load(compiled, kernel);
  }

  std::unique_ptr<Device> device_;
};

TEST_F(CudaDeviceTest, InfoIsSane) {
  const DeviceInfo& info = device_->info();
  EXPECT_EQ(info.backend, "cuda");
  EXPECT_FALSE(info.name.empty());
  EXPECT_EQ(info.arch.rfind("sm_", 0), 0u);
  EXPECT_GT(info.compute_units, 0);
  EXPECT_GT(info.global_mem_bytes, 1LL << 30);
  EXPECT_GT(info.l2_bytes, 0);
  EXPECT_GE(info.shared_mem_per_block, 48 * 1024);
  EXPECT_GE(info.max_threads_per_block, 256);
  EXPECT_TRUE(info.is_gpu);
  std::cout << "[ info ] " << info.name << " " << info.arch << ", " << info.compute_units
            << " SMs, L2 " << info.l2_bytes << " B, " << info.platform << "\n";
}

TEST_F(CudaDeviceTest, CompileOnADeviceReportsDriverStats) {
  const CompileResult result = compile(kVectorAdd, "vadd");
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_EQ(result.arch, device_->info().arch);
  EXPECT_GT(result.registers, 0);
  EXPECT_GT(result.max_threads_per_block, 0);
  std::cout << "[ info ] vadd: " << result.registers << " registers, " << result.shared_bytes
            << " B shared, " << result.local_bytes << " B local, max " << result.max_threads_per_block
            << " threads\n";
}

TEST_F(CudaDeviceTest, VectorAddComputesTheRightAnswer) {
  const int n = 100000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  std::iota(a.begin(), a.end(), 0.0f);
  for (int i = 0; i < n; ++i) b[i] = 2.0f;
  const BufferId da = device_->alloc(n * sizeof(float));
  const BufferId db = device_->alloc(n * sizeof(float));
  const BufferId dc = device_->alloc(n * sizeof(float));
  device_->upload(da, a.data(), n * sizeof(float));
  device_->upload(db, b.data(), n * sizeof(float));
  LaunchDims dims;
  dims.block = {256, 1, 1};
  dims.grid = {(n + 255) / 256, 1, 1};
  device_->launch(load(kVectorAdd, "vadd"),
                  {{KernelArg::Kind::Buffer, da}, {KernelArg::Kind::Buffer, db},
                   {KernelArg::Kind::Buffer, dc}, {KernelArg::Kind::I32, -1, n}},
                  dims);
  device_->synchronize();
  device_->download(dc, c.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(c[i], static_cast<float>(i) + 2.0f) << "at " << i;
  EXPECT_TRUE(device_->guards_intact(da));
  EXPECT_TRUE(device_->guards_intact(dc));
  device_->free(da);
  device_->free(db);
  device_->free(dc);
}

TEST_F(CudaDeviceTest, TemplatedKernelLoadsByItsNameExpression) {
  std::vector<float> x{1, 2, 3};
  const BufferId buffer = device_->alloc(x.size() * sizeof(float));
  device_->upload(buffer, x.data(), x.size() * sizeof(float));
  LaunchDims dims;
  dims.block = {32, 1, 1};
  device_->launch(load(kTemplated, "scale<float>"),
                  {{KernelArg::Kind::Buffer, buffer},
                   {KernelArg::Kind::F32, -1, 0, 3.0},
                   {KernelArg::Kind::I64, -1, 3}},
                  dims);
  device_->download(buffer, x.data(), x.size() * sizeof(float));
  EXPECT_EQ(x, (std::vector<float>{3, 6, 9}));
}

TEST_F(CudaDeviceTest, GuardCatchesWritesOutsideTheBuffer) {
  const int n = 1000;
  const BufferId past = device_->alloc(n * sizeof(float));
  const BufferId before = device_->alloc(n * sizeof(float));
  const BufferId untouched = device_->alloc(n * sizeof(float));
  LaunchDims dims;
  dims.block = {256, 1, 1};
  dims.grid = {(n + 255) / 256, 1, 1};
  device_->launch(load(kFaults, "past_end"),
                  {{KernelArg::Kind::Buffer, past}, {KernelArg::Kind::I32, -1, n}}, dims);
  device_->launch(load(kFaults, "before_start"), {{KernelArg::Kind::Buffer, before}}, LaunchDims{});
  device_->synchronize();
  EXPECT_FALSE(device_->guards_intact(past));
  EXPECT_FALSE(device_->guards_intact(before));
  EXPECT_TRUE(device_->guards_intact(untouched));
}

TEST_F(CudaDeviceTest, LaunchTimedMeasuresTheKernel) {
  const BufferId buffer = device_->alloc(1024 * sizeof(float));
  const KernelId spin = load(kFaults, "spin");
  LaunchDims dims;
  dims.block = {1024, 1, 1};
  device_->flush_cache();
  const double short_ms =
      device_->launch_timed(spin, {{KernelArg::Kind::Buffer, buffer}, {KernelArg::Kind::I32, -1, 1000}}, dims);
  const double long_ms = device_->launch_timed(
      spin, {{KernelArg::Kind::Buffer, buffer}, {KernelArg::Kind::I32, -1, 1000000}}, dims);
  EXPECT_GT(short_ms, 0);
  EXPECT_GT(long_ms, short_ms);
  std::cout << "[ info ] spin kernel: " << short_ms << " ms (1e3 iterations), " << long_ms
            << " ms (1e6 iterations)\n";
}

TEST_F(CudaDeviceTest, DynamicSharedMemoryAbove48KiBWorks) {
  const int threads = 1024;
  const std::int64_t shared = 64 * 1024;  // needs the opt-in attribute
  if (device_->info().shared_mem_per_block < shared) GTEST_SKIP() << "device lacks 64 KiB shared";
  const BufferId out = device_->alloc(threads * sizeof(float));
  LaunchDims dims;
  dims.block = {threads, 1, 1};
  dims.shared_mem_bytes = shared;
  device_->launch(load(kFaults, "big_shared"), {{KernelArg::Kind::Buffer, out}}, dims);
  std::vector<float> result(threads);
  device_->download(out, result.data(), threads * sizeof(float));
  EXPECT_EQ(result[0], threads - 1);
  EXPECT_EQ(result[threads - 1], 0);
}

TEST_F(CudaDeviceTest, CopyBandwidthIsPlausible) {
  const double gbps = device_->measure_copy_bandwidth();
  EXPECT_GT(gbps, 10);
  EXPECT_LT(gbps, 20000);
  std::cout << "[ info ] device-to-device copy: " << gbps << " GB/s (read + write)\n";
}

TEST_F(CudaDeviceTest, MisuseThrowsWithoutLosingTheContext) {
  const BufferId buffer = device_->alloc(16);
  std::vector<char> host(32);
  try {
    device_->upload(buffer, host.data(), host.size());
    FAIL() << "an oversized upload must throw";
  } catch (const DeviceError& e) {
    EXPECT_FALSE(e.context_lost);
  }
  const CompileResult compiled = compile(kVectorAdd, "vadd");
  EXPECT_THROW(device_->load(compiled, "not_in_module"), DeviceError);
  LaunchDims too_big;
  too_big.block = {4096, 1, 1};  // over the 1024-thread limit: a launch error, not sticky
  try {
    device_->launch(device_->load(compiled, "vadd"), {}, too_big);
    FAIL() << "an invalid launch must throw";
  } catch (const DeviceError& e) {
    EXPECT_FALSE(e.context_lost) << e.what();
  }
  device_->synchronize();  // the context still works
}

// Runs `kernel` and exits 0 if synchronize() reports a lost context naming `error`.
void run_fatal_kernel(Device& device, KernelId kernel, const std::string& error) {
  const BufferId buffer = device.alloc(64);
  device.launch(kernel, {{KernelArg::Kind::Buffer, buffer}}, LaunchDims{});
  try {
    device.synchronize();
  } catch (const DeviceError& e) {
    std::cerr << e.what() << "\n";
    const bool named = std::string(e.what()).find(error) != std::string::npos;
    std::exit(e.context_lost && named ? 0 : 2);
  }
  std::exit(1);
}

// A sticky error poisons the context, so these run in a fresh child process.
TEST_F(CudaDeviceTest, IllegalAddressLosesTheContext) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_fatal_kernel(*device_, load(kFaults, "wild_write"), "CUDA_ERROR_ILLEGAL_ADDRESS"),
              ::testing::ExitedWithCode(0), "ILLEGAL_ADDRESS");
}

TEST_F(CudaDeviceTest, TrapLosesTheContext) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_fatal_kernel(*device_, load(kFaults, "trap"), "CUDA_ERROR"),
              ::testing::ExitedWithCode(0), "CUDA_ERROR");
}

}  // namespace
}  // namespace kforge
