// The sandboxed compiler with real planted kernels (tests/kernels/compiler) on PoCL: a
// compiler crash, the memory limit and a timeout are each that candidate's compile error and
// the next compile works; includes outside the task folder are refused in every form; a
// changed header is never served from the cache; a non-UTF-8 comment compiles; and the cost
// of compiling in a worker process instead of in-process, measured.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "backend/compile_cache.h"
#include "eval/evaluator.h"
#include "util/encoding.h"
#include "util/files.h"

namespace kforge {
namespace {
namespace fs = std::filesystem;
const fs::path kTask = fs::path(KFORGE_SOURCE_DIR) / "tests/kernels/compiler";

// A private compile cache per test, so a hit is always this test's own.
class CompilerSandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    const Availability availability = make_backend(Language::OpenCL)->probe();
    if (!availability.usable) GTEST_SKIP() << "no OpenCL device: " << availability.reason;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    cache_ = fs::temp_directory_path() / ("kforge-compiler-test-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(cache_);
    ::setenv("KFORGE_CACHE_DIR", cache_.c_str(), 1);
    ::unsetenv("KFORGE_NO_COMPILE_CACHE");
  }
  void TearDown() override {
    ::unsetenv("KFORGE_CACHE_DIR");
    std::error_code ignored;
    fs::remove_all(cache_, ignored);
  }

  static EvalOptions options() {
    EvalOptions options;
    options.worker_executable = fs::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
    options.check_timeout_s = 60;
    options.timing.max_seconds = 0.2;
    options.limits.memory_bytes = std::int64_t{16} << 30;
    options.compile_threads = 2;
    return options;
  }

  static KernelVariant variant_from(const Evaluator& evaluator, const std::string& file) {
    KernelVariant variant = evaluator.baseline_variant();
    variant.source = read_file(kTask / file);
    return variant;
  }

  fs::path cache_;
};

TEST_F(CompilerSandbox, CompilerCrashIsTheCandidatesCompileErrorAndTheNextCompileWorks) {
  EvalOptions opts = options();
  opts.compile_limits.stack_bytes = 256 << 10;  // the 1024-deep expression overflows it (8 MiB: 65536 deep)
  Evaluator evaluator(load_task(kTask / "kforge.toml"), opts);
  const CompileResult crashed = evaluator.compile(variant_from(evaluator, "deep_expression_crash.cl"));
  EXPECT_FALSE(crashed.ok);
  EXPECT_EQ(crashed.failure, CompileFailure::Crashed);
  EXPECT_EQ(first_error_line(crashed.log), "compiler crashed (signal 11)") << crashed.log;
  // check() turns it into the candidate's verdict without touching the run worker.
  const EvalResult verdict = evaluator.check(variant_from(evaluator, "deep_expression_crash.cl"), crashed);
  EXPECT_EQ(to_string(verdict.status), "compile_error");
  EXPECT_EQ(verdict.message, "compiler crashed (signal 11)");
  // The dead worker was replaced: the control compiles and is correct.
  const EvalResult after = evaluator.evaluate(evaluator.baseline_variant());
  EXPECT_EQ(to_string(after.status), "correct") << after.message;
}

TEST_F(CompilerSandbox, MacroBombHitsTheMemoryLimitNotTheMachine) {
  EvalOptions opts = options();
  opts.compile_limits.memory_bytes = std::int64_t{1} << 30;
  Evaluator evaluator(load_task(kTask / "kforge.toml"), opts);
  const auto start = std::chrono::steady_clock::now();
  const CompileResult bomb = evaluator.compile(variant_from(evaluator, "macro_bomb.cl"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(bomb.ok);
  EXPECT_EQ(bomb.failure, CompileFailure::OutOfMemory);
  EXPECT_EQ(first_error_line(bomb.log), "compiler ran out of memory (limit 1 GiB)") << bomb.log;
  EXPECT_LT(seconds, opts.compile_limits.timeout_s) << "the limit was not what stopped it";
  const CompileResult control = evaluator.compile(evaluator.baseline_variant());
  EXPECT_TRUE(control.ok) << control.log;
}

TEST_F(CompilerSandbox, ALongCompileTimesOutAndTheWorkerIsReplaced) {
  EvalOptions opts = options();
  opts.compile_limits.timeout_s = 1;
  Evaluator evaluator(load_task(kTask / "kforge.toml"), opts);
  const CompileResult slow = evaluator.compile(variant_from(evaluator, "slow_compile.cl"));
  EXPECT_FALSE(slow.ok);
  EXPECT_EQ(slow.failure, CompileFailure::TimedOut);
  EXPECT_EQ(first_error_line(slow.log), "compile timed out after 1 s") << slow.log;
  // Not remembered: a timeout depends on the machine's load, not only on the source.
  EXPECT_FALSE(CompileCache(CompileCache::default_dir()).load(slow.key).has_value());
  opts.compile_limits.timeout_s = 60;
  Evaluator relaxed(load_task(kTask / "kforge.toml"), opts);
  const CompileResult control = relaxed.compile(relaxed.baseline_variant());
  EXPECT_TRUE(control.ok) << control.log;
  EXPECT_EQ(control.failure, CompileFailure::None);
}

TEST_F(CompilerSandbox, IncludesOutsideTheTaskFolderAreRefusedInOneLine) {
  Evaluator evaluator(load_task(kTask / "kforge.toml"), options());
  const std::vector<std::pair<std::string, std::string>> attacks = {
      {"include_passwd.cl", "#include \"/etc/passwd\": absolute paths are not allowed"},
      {"include_outside.cl", "#include \"../outside_the_task.h\": the path leaves the task folder"},
      {"include_symlink.cl", "#include \"escape.h\": a symlink that leaves the task folder"},
      {"include_computed.cl", "#include TARGET: computed or malformed includes are not allowed"}};
  for (const auto& [file, expected] : attacks) {
    const CompileResult result = evaluator.compile(variant_from(evaluator, file));
    EXPECT_FALSE(result.ok) << file;
    const std::string line = first_error_line(result.log);
    EXPECT_NE(line.find(expected), std::string::npos) << file << ": " << line;
    EXPECT_EQ(result.log.find("root:"), std::string::npos) << file << " leaked /etc/passwd: " << result.log;
  }
  // Forms a line-based scanner would miss, and options that add include paths.
  for (const std::string source :
       {"%:include \"/etc/passwd\"\n", "?\?=include \"/etc/passwd\"\n", "#include_next <passwd>\n",
        "#import \"/etc/passwd\"\n", "#embed \"/etc/passwd\"\n", "  #  include </etc/passwd>\n",
        "#include \"headers/../../../kernels/outside_the_task.h\"\n"}) {
    KernelVariant variant = evaluator.baseline_variant();
    variant.source = source + variant.source;
    const CompileResult result = evaluator.compile(variant);
    EXPECT_FALSE(result.ok) << source;
    EXPECT_NE(first_error_line(result.log).find("error: #"), std::string::npos) << source << result.log;
  }
  KernelVariant with_option = evaluator.baseline_variant();
  with_option.options = {"-I/etc"};
  EXPECT_NE(evaluator.compile(with_option).log.find("'-I/etc' is not allowed"), std::string::npos);
  // A header of the task folder is allowed, nested includes included.
  const CompileResult allowed = evaluator.compile(variant_from(evaluator, "include_header.cl"));
  EXPECT_TRUE(allowed.ok) << allowed.log;
  const EvalResult checked = evaluator.check(variant_from(evaluator, "include_header.cl"), allowed);
  EXPECT_EQ(to_string(checked.status), "correct") << checked.message;
}

TEST_F(CompilerSandbox, AChangedHeaderIsNeverServedFromTheCache) {
  // A copy of the task, whose nested header we can edit.
  const fs::path copy = cache_ / "task";
  fs::create_directories(copy / "headers");
  for (const char* file : {"kforge.toml", "correct.cl", "include_header.cl", "headers/offset.h", "headers/zero.h"})
    fs::copy_file(kTask / file, copy / file);
  Evaluator evaluator(load_task(copy / "kforge.toml"), options());
  KernelVariant variant = evaluator.baseline_variant();
  variant.source = read_file(copy / "include_header.cl");
  const CompileResult first = evaluator.compile(variant);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_TRUE(evaluator.compile(variant).cache_hit);  // unchanged: served from the cache
  // The nested header now breaks the build: a stale cache entry would still say "ok".
  write_file(copy / "headers/zero.h", "#define ZERO this is not an expression\n");
  const CompileResult second = evaluator.compile(variant);
  EXPECT_FALSE(second.cache_hit);
  EXPECT_NE(second.key, first.key);
  EXPECT_FALSE(second.ok) << "a changed header was served from the cache";
}

TEST_F(CompilerSandbox, NonUtf8CommentCompilesAndChecksNormally) {
  Evaluator evaluator(load_task(kTask / "kforge.toml"), options());
  const KernelVariant variant = variant_from(evaluator, "non_utf8_comment.cl");
  ASSERT_NE(variant.source.find('\xff'), std::string::npos);
  const CompileResult compiled = evaluator.compile(variant);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  const EvalResult result = evaluator.evaluate_compiled(variant, compiled);
  EXPECT_EQ(to_string(result.status), "correct") << result.message;
  EXPECT_NO_THROW(nlohmann::json({{"log", compiled.log}, {"message", result.message}}).dump());
  // A log with such bytes is made valid, not thrown on.
  EXPECT_EQ(valid_utf8("a\xff" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(base64_decode(base64_encode(variant.source)), variant.source);
}

// The cost of the sandbox per compile on PoCL: the same distinct compiles (cache off) in this
// process and through the pool's persistent worker, one thread each, in one run. Printed for
// docs/RELIABILITY.md; the bound only catches a per-compile start-up (a process and a platform
// initialisation per compile would double the time of these small kernels).
TEST_F(CompilerSandbox, PerCompileOverheadOfTheWorkerIsSmall) {
  ::setenv("KFORGE_NO_COMPILE_CACHE", "1", 1);
  EvalOptions opts = options();
  opts.compile_threads = 1;
  Evaluator evaluator(load_task(kTask / "kforge.toml"), opts);
  std::unique_ptr<Backend> in_process = make_backend(Language::OpenCL);
  // Distinct code each time (a distinct constant), so no cache of PoCL's can serve either side.
  int serial = 0;
  const auto fresh_source = [&] {
    return "__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {\n"
           "  int i = get_global_id(0);\n  if (i < n) c[i] = a[i] + b[i] * " + std::to_string(1000 + ::getpid() % 1000) +
           "." + std::to_string(serial++) + "f;\n}\n";
  };
  const auto pooled_ms = [&] {
    KernelVariant variant = evaluator.baseline_variant();
    variant.source = fresh_source();
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(evaluator.compile(variant).ok);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  const auto direct_ms = [&] {
    CompileRequest request{Language::OpenCL, fresh_source(), "k.cl", "vector_add", {{"BLOCK", "256"}}, {}, {kTask.string()}, 0, ""};
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(in_process->compile(request).ok);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  pooled_ms();  // start-ups (the worker, PoCL in this process) stay outside the timing
  direct_ms();
  double pooled = 0, direct = 0;
  constexpr int kRounds = 8;
  for (int i = 0; i < kRounds; ++i) {  // interleaved, alternating who goes first
    if (i % 2 == 0) pooled += pooled_ms(), direct += direct_ms();
    else direct += direct_ms(), pooled += pooled_ms();
  }
  ::unsetenv("KFORGE_NO_COMPILE_CACHE");
  std::printf("[ compile ] PoCL, %d compiles: in-process %.1f ms each, sandboxed worker %.1f ms each (%+.1f ms)\n",
              kRounds, direct / kRounds, pooled / kRounds, (pooled - direct) / kRounds);
  // A process start and a platform initialisation per compile would roughly double it.
  EXPECT_LT(pooled, direct * 1.5 + 50.0 * kRounds);
}

// The same measurement with NVRTC (no GPU needed: the target architecture defaults to sm_90).
TEST(CompilerSandboxNvrtc, PerCompileOverheadOfTheWorkerIsSmall) {
  std::unique_ptr<Backend> in_process = make_backend(Language::Cuda);
  try {
    in_process->compile_target(0);
  } catch (const EnvironmentError& e) {
    GTEST_SKIP() << e.what();
  }
  ::setenv("KFORGE_NO_COMPILE_CACHE", "1", 1);
  EvalOptions opts;
  opts.worker_executable = fs::path(KFORGE_BINARY_DIR) / "bin/kforge-worker";
  opts.compile_threads = 1;
  const fs::path task = fs::path(KFORGE_SOURCE_DIR) / "tests/kernels/faulty_cuda/correct.kforge.toml";
  Evaluator evaluator(load_task(task), opts);
  const auto variant_number = [&](int i) {
    KernelVariant variant = evaluator.baseline_variant();
    variant.source = "#define KF_VARIANT " + std::to_string(i) + "\n" + variant.source;
    return variant;
  };
  const CompileResult warm = evaluator.compile(variant_number(-1));
  ASSERT_TRUE(warm.ok) << warm.log;
  EXPECT_EQ(warm.binary_format, "cubin");
  EXPECT_GT(warm.registers, 0) << "ptxas's statistics did not come back from the worker";
  double pooled = 0, direct = 0;
  constexpr int kRounds = 6;
  for (int i = 0; i < kRounds; ++i) {
    const KernelVariant variant = variant_number(i);
    auto start = std::chrono::steady_clock::now();
    const CompileResult sandboxed = evaluator.compile(variant);
    pooled += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(sandboxed.ok) << sandboxed.log;
    CompileRequest request{Language::Cuda, variant.source + "\n// direct", "k.cu", variant.kernel.empty() ? evaluator.task().kernel.kernel : variant.kernel,
                           {}, evaluator.task().compile_options, {}, 0, ""};
    for (const auto& [name, value] : variant.params) request.defines.emplace_back(name, std::to_string(value));
    start = std::chrono::steady_clock::now();
    ASSERT_TRUE(in_process->compile(request).ok);
    direct += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  ::unsetenv("KFORGE_NO_COMPILE_CACHE");
  std::printf("[ compile ] NVRTC, %d compiles: in-process %.1f ms each, sandboxed worker %.1f ms each (%+.1f ms)\n",
              kRounds, direct / kRounds, pooled / kRounds, (pooled - direct) / kRounds);
  EXPECT_LT(pooled, direct * 1.5 + 50.0 * kRounds);
}

}  // namespace
}  // namespace kforge
