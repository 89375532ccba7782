#include "backend/compile_cache.h"

#include <gtest/gtest.h>

#include "backend_test_util.h"
#include "util/files.h"

namespace kforge {
namespace {

using testing::FreshCacheTest;
using testing::ScopedEnv;

CompileRequest sample_request() {
  CompileRequest request;
  request.source = "__kernel void k(__global float* x) { x[0] = 1; }";
  request.kernel = "k";
  request.defines = {{"BLOCK", "128"}};
  request.options = {"-cl-fast-relaxed-math"};
  return request;
}

CompileResult sample_result(const std::string& key) {
  CompileResult result;
  result.ok = true;
  result.log = "warning: something\n";
  result.binary = std::string("\x7f" "ELF\0\1\2binary", 13);
  result.binary_format = "cubin";
  result.seconds = 1.5;
  result.registers = 32;
  result.shared_bytes = 1024;
  result.local_bytes = 0;
  result.spill_bytes = 8;
  result.max_threads_per_block = 1024;
  result.key = key;
  result.kernel = "k";
  result.lowered_name = "_Z1kPf";
  result.arch = "sm_90";
  return result;
}

using CompileCacheTest = FreshCacheTest;

TEST_F(CompileCacheTest, KeyDependsOnEverythingThatChangesTheBinary) {
  const CompileRequest base = sample_request();
  const std::string key = compile_cache_key(base, "opencl", "dev", "v1");
  EXPECT_EQ(key, compile_cache_key(base, "opencl", "dev", "v1"));
  EXPECT_EQ(key.size(), 32u);

  CompileRequest changed = base;
  changed.defines[0].second = "256";
  EXPECT_NE(key, compile_cache_key(changed, "opencl", "dev", "v1"));
  changed = base;
  changed.options.push_back("-O0");
  EXPECT_NE(key, compile_cache_key(changed, "opencl", "dev", "v1"));
  changed = base;
  changed.kernel = "other";
  EXPECT_NE(key, compile_cache_key(changed, "opencl", "dev", "v1"));
  changed = base;
  changed.source += " ";
  EXPECT_NE(key, compile_cache_key(changed, "opencl", "dev", "v1"));
  EXPECT_NE(key, compile_cache_key(base, "cuda", "dev", "v1"));
  EXPECT_NE(key, compile_cache_key(base, "opencl", "dev2", "v1"));
  EXPECT_NE(key, compile_cache_key(base, "opencl", "dev", "v2"));
}

TEST_F(CompileCacheTest, StoreThenLoadRoundTripsEveryField) {
  const CompileCache cache(CompileCache::default_dir());
  const CompileResult stored = sample_result("abc123");
  cache.store(stored);
  const auto loaded = cache.load("abc123");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_TRUE(loaded->cache_hit);
  EXPECT_EQ(loaded->seconds, 0);
  EXPECT_EQ(loaded->ok, stored.ok);
  EXPECT_EQ(loaded->log, stored.log);
  EXPECT_EQ(loaded->binary, stored.binary);
  EXPECT_EQ(loaded->binary_format, stored.binary_format);
  EXPECT_EQ(loaded->registers, 32);
  EXPECT_EQ(loaded->shared_bytes, 1024);
  EXPECT_EQ(loaded->local_bytes, 0);
  EXPECT_EQ(loaded->spill_bytes, 8);
  EXPECT_EQ(loaded->max_threads_per_block, 1024);
  EXPECT_EQ(loaded->key, "abc123");
  EXPECT_EQ(loaded->lowered_name, "_Z1kPf");
  EXPECT_EQ(loaded->arch, "sm_90");
  EXPECT_TRUE(std::filesystem::exists(cache_root_ / "compile" / "abc123.bin"));
  EXPECT_TRUE(std::filesystem::exists(cache_root_ / "compile" / "abc123.json"));
}

TEST_F(CompileCacheTest, MissingOrDamagedEntriesAreMisses) {
  const CompileCache cache(CompileCache::default_dir());
  EXPECT_FALSE(cache.load("nothing").has_value());
  cache.store(sample_result("damaged"));
  write_file(cache_root_ / "compile" / "damaged.json", "{ not json");
  EXPECT_FALSE(cache.load("damaged").has_value());
  cache.store(sample_result("truncated"));
  write_file(cache_root_ / "compile" / "truncated.bin", "short");
  EXPECT_FALSE(cache.load("truncated").has_value());
}

TEST_F(CompileCacheTest, CompileWithCacheRunsTheCompilerOnce) {
  int calls = 0;
  auto compile = [&](bool&) {
    ++calls;
    return sample_result("");
  };
  const CompileResult first = compile_with_cache("k1", compile);
  EXPECT_FALSE(first.cache_hit);
  EXPECT_EQ(first.key, "k1");
  EXPECT_GE(first.seconds, 0);
  const CompileResult second = compile_with_cache("k1", compile);
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.seconds, 0);
  EXPECT_EQ(second.binary, first.binary);
  EXPECT_EQ(calls, 1);
}

TEST_F(CompileCacheTest, FailedCompilesAreCachedWithTheirLog) {
  int calls = 0;
  auto compile = [&](bool&) {
    ++calls;
    CompileResult failed;
    failed.log = "k.cu(3): error: expected a \";\"";
    return failed;
  };
  compile_with_cache("bad", compile);
  const CompileResult again = compile_with_cache("bad", compile);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(again.cache_hit);
  EXPECT_FALSE(again.ok);
  EXPECT_NE(again.log.find("expected a"), std::string::npos);
}

TEST_F(CompileCacheTest, UncacheableFailuresAreRetried) {
  int calls = 0;
  auto compile = [&](bool& cacheable) {
    ++calls;
    cacheable = false;
    return CompileResult{};
  };
  compile_with_cache("flaky", compile);
  compile_with_cache("flaky", compile);
  EXPECT_EQ(calls, 2);
}

TEST_F(CompileCacheTest, EnvironmentVariableDisablesTheCache) {
  const ScopedEnv off("KFORGE_NO_COMPILE_CACHE", "1");
  int calls = 0;
  auto compile = [&](bool&) {
    ++calls;
    return sample_result("");
  };
  compile_with_cache("k2", compile);
  const CompileResult second = compile_with_cache("k2", compile);
  EXPECT_EQ(calls, 2);
  EXPECT_FALSE(second.cache_hit);
  EXPECT_FALSE(std::filesystem::exists(cache_root_ / "compile" / "k2.json"));
}

}  // namespace
}  // namespace kforge
