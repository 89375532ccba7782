// Runs for real on whatever OpenCL device the machine has (PoCL's CPU device in CI).
#include <gtest/gtest.h>

#include <numeric>
#include <thread>
#include <vector>

#include "backend/backend.h"
#include "backend_test_util.h"

namespace kforge {
namespace {

using testing::ScopedEnv;

const char* kVectorAdd = R"(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c, int n) {
  int i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}
)";

// Writes one element past the end (or before the start) of `out`: the guard must notice.
const char* kOutOfBounds = R"(
__kernel void past_end(__global float* out, int n) {
  int i = get_global_id(0);
  if (i < n) out[i] = 1.0f;
  if (i == 0) out[n] = 42.0f;
}
__kernel void before_start(__global float* out) {
  if (get_global_id(0) == 0) out[-1] = 42.0f;
}
)";

const char* kScaled = R"(
#ifndef FACTOR
#error FACTOR must be defined
#endif
__kernel void scaled(__global float* x, float add, long offset) {
  int i = get_global_id(0);
  x[i] = x[i] * FACTOR + add + (float)offset;
}
)";

class OpenClTest : public testing::FreshCacheTest {
 protected:
  void SetUp() override {
    FreshCacheTest::SetUp();
    backend_ = make_backend(Language::OpenCL);
    const Availability availability = backend_->probe();
    if (!availability.usable) GTEST_SKIP() << "no OpenCL device: " << availability.reason;
  }

  CompileResult compile(const char* source, const std::string& kernel,
                        std::vector<std::pair<std::string, std::string>> defines = {}) {
    CompileRequest request;
    request.language = Language::OpenCL;
    request.source = source;
    request.source_name = "test.cl";
    request.kernel = kernel;
    request.defines = std::move(defines);
    return backend_->compile(request);
  }

  std::unique_ptr<Backend> backend_;
};

TEST_F(OpenClTest, ProbeReportsASaneDevice) {
  const Availability availability = backend_->probe();
  ASSERT_FALSE(availability.devices.empty());
  const DeviceInfo& info = availability.devices.front();
  EXPECT_EQ(info.backend, "opencl");
  EXPECT_FALSE(info.name.empty());
  EXPECT_NE(info.arch.find("OpenCL"), std::string::npos) << info.arch;
  EXPECT_FALSE(info.platform.empty());
  EXPECT_GT(info.compute_units, 0);
  EXPECT_GT(info.global_mem_bytes, 0);
  EXPECT_GT(info.shared_mem_per_block, 0);
  EXPECT_GT(info.max_threads_per_block, 0);
}

TEST_F(OpenClTest, CompilesVectorAddWithKernelStats) {
  const CompileResult result = compile(kVectorAdd, "vadd");
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_EQ(result.binary_format, "opencl-source");  // the worker builds it; see docs/RELIABILITY.md
  EXPECT_FALSE(result.binary.empty());
  EXPECT_FALSE(result.cache_hit);
  EXPECT_GT(result.seconds, 0);
  EXPECT_EQ(result.key.size(), 32u);
  EXPECT_EQ(result.kernel, "vadd");
  EXPECT_FALSE(result.arch.empty());
  EXPECT_GT(result.max_threads_per_block, 0);
  EXPECT_GE(result.shared_bytes, 0);
  EXPECT_GE(result.local_bytes, 0);
}

TEST_F(OpenClTest, SecondCompileIsACacheHit) {
  const CompileResult first = compile(kVectorAdd, "vadd");
  ASSERT_TRUE(first.ok) << first.log;
  const CompileResult second = compile(kVectorAdd, "vadd");
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.seconds, 0);
  EXPECT_EQ(second.key, first.key);
  EXPECT_EQ(second.binary, first.binary);
  EXPECT_EQ(second.max_threads_per_block, first.max_threads_per_block);
}

TEST_F(OpenClTest, SyntaxErrorFailsWithTheCompilerLog) {
  const CompileResult result =
      compile("__kernel void broken(__global float* x) { x[0] = undeclared_name; }", "broken");
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("undeclared_name"), std::string::npos) << result.log;
  EXPECT_NE(result.log.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << result.log;
  EXPECT_TRUE(result.binary.empty());
  // Failures are cached too: the same broken source is not rebuilt.
  EXPECT_TRUE(compile("__kernel void broken(__global float* x) { x[0] = undeclared_name; }", "broken")
                  .cache_hit);
}

TEST_F(OpenClTest, MissingEntryPointFails) {
  const CompileResult result = compile(kVectorAdd, "no_such_kernel");
  EXPECT_FALSE(result.ok);
  EXPECT_NE(result.log.find("no_such_kernel"), std::string::npos) << result.log;
  EXPECT_NE(result.log.find("CL_INVALID_KERNEL_NAME"), std::string::npos) << result.log;
}

TEST_F(OpenClTest, DefinesReachTheCompiler) {
  EXPECT_FALSE(compile(kScaled, "scaled").ok);
  const CompileResult with_define = compile(kScaled, "scaled", {{"FACTOR", "3"}});
  EXPECT_TRUE(with_define.ok) << with_define.log;
}

TEST_F(OpenClTest, ConcurrentCompilesAllSucceed) {
  std::vector<CompileResult> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { results[t] = compile(kScaled, "scaled", {{"FACTOR", std::to_string(t + 1)}}); });
  for (auto& thread : threads) thread.join();
  for (const auto& result : results) EXPECT_TRUE(result.ok) << result.log;
}

TEST_F(OpenClTest, BadDeviceSelectionIsReported) {
  const ScopedEnv select("KFORGE_OPENCL_DEVICE", "9:9");
  const Availability availability = backend_->probe();
  EXPECT_FALSE(availability.usable);
  EXPECT_NE(availability.reason.find("KFORGE_OPENCL_DEVICE"), std::string::npos) << availability.reason;
  EXPECT_FALSE(compile(kVectorAdd, "vadd").ok);
  EXPECT_THROW(backend_->open_device(0), DeviceError);
}

TEST_F(OpenClTest, ExplicitDeviceSelectionWorks) {
  const ScopedEnv select("KFORGE_OPENCL_DEVICE", "0:0");
  const Availability availability = backend_->probe();
  EXPECT_TRUE(availability.usable) << availability.reason;
  EXPECT_EQ(availability.devices.size(), 1u);
}

class OpenClDeviceTest : public OpenClTest {
 protected:
  void SetUp() override {
    OpenClTest::SetUp();
    if (IsSkipped()) return;
    device_ = backend_->open_device(0);
  }

  std::unique_ptr<Device> device_;
};

TEST_F(OpenClDeviceTest, InfoMatchesProbe) {
  EXPECT_EQ(device_->info().name, backend_->probe().devices.front().name);
}

TEST_F(OpenClDeviceTest, VectorAddComputesTheRightAnswer) {
  const CompileResult compiled = compile(kVectorAdd, "vadd");
  ASSERT_TRUE(compiled.ok) << compiled.log;
  const int n = 1000;  // not a multiple of the block: exercises the bounds check
  std::vector<float> a(n), b(n), c(n, -1.0f);
  std::iota(a.begin(), a.end(), 0.0f);
  for (int i = 0; i < n; ++i) b[i] = 0.5f * static_cast<float>(i);
  const BufferId da = device_->alloc(n * sizeof(float));
  const BufferId db = device_->alloc(n * sizeof(float));
  const BufferId dc = device_->alloc(n * sizeof(float));
  device_->upload(da, a.data(), n * sizeof(float));
  device_->upload(db, b.data(), n * sizeof(float));
  const KernelId kernel = device_->load(compiled, "vadd");
  LaunchDims dims;
  dims.block = {64, 1, 1};
  dims.grid = {(n + 63) / 64, 1, 1};
  device_->launch(kernel, {{KernelArg::Kind::Buffer, da}, {KernelArg::Kind::Buffer, db},
                           {KernelArg::Kind::Buffer, dc}, {KernelArg::Kind::I32, -1, n}},
                  dims);
  device_->synchronize();
  device_->download(dc, c.data(), n * sizeof(float));
  for (int i = 0; i < n; ++i) ASSERT_FLOAT_EQ(c[i], 1.5f * static_cast<float>(i)) << "at " << i;
  EXPECT_TRUE(device_->guards_intact(da));
  EXPECT_TRUE(device_->guards_intact(db));
  EXPECT_TRUE(device_->guards_intact(dc));
  device_->free(da);
  device_->free(db);
  device_->free(dc);
}

TEST_F(OpenClDeviceTest, ScalarArgumentsOfEveryKind) {
  const CompileResult compiled = compile(kScaled, "scaled", {{"FACTOR", "2"}});
  ASSERT_TRUE(compiled.ok) << compiled.log;
  std::vector<float> x{1, 2, 3, 4};
  const BufferId buffer = device_->alloc(x.size() * sizeof(float));
  device_->upload(buffer, x.data(), x.size() * sizeof(float));
  const KernelId kernel = device_->load(compiled, "scaled");
  LaunchDims dims;
  dims.block = {4, 1, 1};
  KernelArg add{KernelArg::Kind::F32, -1, 0, 0.5};
  KernelArg offset{KernelArg::Kind::I64, -1, 10, 0};
  device_->launch(kernel, {{KernelArg::Kind::Buffer, buffer}, add, offset}, dims);
  device_->download(buffer, x.data(), x.size() * sizeof(float));
  EXPECT_EQ(x, (std::vector<float>{12.5f, 14.5f, 16.5f, 18.5f}));
}

TEST_F(OpenClDeviceTest, NewBuffersReadAsZeros) {
  const BufferId buffer = device_->alloc(64);
  std::vector<unsigned char> bytes(64, 0xFF);
  device_->download(buffer, bytes.data(), bytes.size());
  EXPECT_EQ(bytes, std::vector<unsigned char>(64, 0));
}

TEST_F(OpenClDeviceTest, GuardCatchesAWritePastTheEnd) {
  const CompileResult compiled = compile(kOutOfBounds, "past_end");
  ASSERT_TRUE(compiled.ok) << compiled.log;
  const int n = 100;
  const BufferId out = device_->alloc(n * sizeof(float));
  const BufferId untouched = device_->alloc(n * sizeof(float));
  EXPECT_TRUE(device_->guards_intact(out));
  LaunchDims dims;
  dims.block = {n, 1, 1};
  device_->launch(device_->load(compiled, "past_end"),
                  {{KernelArg::Kind::Buffer, out}, {KernelArg::Kind::I32, -1, n}}, dims);
  device_->synchronize();
  EXPECT_FALSE(device_->guards_intact(out));
  EXPECT_TRUE(device_->guards_intact(untouched));
}

TEST_F(OpenClDeviceTest, GuardCatchesAWriteBeforeTheStart) {
  const CompileResult compiled = compile(kOutOfBounds, "before_start");
  ASSERT_TRUE(compiled.ok) << compiled.log;
  const BufferId out = device_->alloc(16 * sizeof(float));
  device_->launch(device_->load(compiled, "before_start"), {{KernelArg::Kind::Buffer, out}}, LaunchDims{});
  device_->synchronize();
  EXPECT_FALSE(device_->guards_intact(out));
}

TEST_F(OpenClDeviceTest, LaunchTimedReturnsAPositiveTime) {
  const CompileResult compiled = compile(kVectorAdd, "vadd");
  ASSERT_TRUE(compiled.ok) << compiled.log;
  const int n = 1 << 16;
  const BufferId a = device_->alloc(n * sizeof(float));
  const BufferId b = device_->alloc(n * sizeof(float));
  const BufferId c = device_->alloc(n * sizeof(float));
  const KernelId kernel = device_->load(compiled, "vadd");
  LaunchDims dims;
  dims.block = {256, 1, 1};
  dims.grid = {n / 256, 1, 1};
  const std::vector<KernelArg> args{{KernelArg::Kind::Buffer, a}, {KernelArg::Kind::Buffer, b},
                                    {KernelArg::Kind::Buffer, c}, {KernelArg::Kind::I32, -1, n}};
  device_->flush_cache();
  const double ms = device_->launch_timed(kernel, args, dims);
  EXPECT_GT(ms, 0);
  EXPECT_LT(ms, 10000);
}

TEST_F(OpenClDeviceTest, CopyBandwidthIsPositive) {
  const double gbps = device_->measure_copy_bandwidth();
  EXPECT_GT(gbps, 0);
  EXPECT_LT(gbps, 100000);
}

TEST_F(OpenClDeviceTest, MisuseThrowsDeviceErrorWithoutLosingTheContext) {
  const BufferId buffer = device_->alloc(16);
  std::vector<char> host(32);
  try {
    device_->upload(buffer, host.data(), host.size());
    FAIL() << "an oversized upload must throw";
  } catch (const DeviceError& e) {
    EXPECT_FALSE(e.context_lost);
  }
  EXPECT_THROW(device_->download(12345, host.data(), 4), DeviceError);
  EXPECT_THROW(device_->load(CompileResult{}, "x"), DeviceError);
  const CompileResult compiled = compile(kVectorAdd, "vadd");
  ASSERT_TRUE(compiled.ok);
  EXPECT_THROW(device_->load(compiled, "not_in_program"), DeviceError);
}

}  // namespace
}  // namespace kforge
