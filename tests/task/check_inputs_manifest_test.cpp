// Manifest keys of the check-input defences (check_inits, adversarial) and the manifest limits
// that are errors before anything runs: scalars their dtype cannot hold, element and byte
// counts that overflow, and buffers that do not fit the device or the worker's memory limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "task/limits.h"
#include "task/task.h"
#include "support/temp_dir.h"

namespace kforge {
namespace {

using ::testing::HasSubstr;

const char* const kKernel = R"(
__kernel void scale(__global const float* x, __global float* y, const int n) {
  const long i = get_global_id(0);
  if (i < n) y[i] = 2.0f * x[i];
}
)";

// {X_KEYS} goes into x's [[args]] table, {N_DTYPE} is n's dtype, {N} the size.
const char* const kManifest = R"toml(
[task]
language = "opencl"
source = "scale.cl"
kernel = "scale"
[[args]]
name = "x"
dtype = "f32"
shape = ["n"]
role = "input"
{X_KEYS}
[[args]]
name = "y"
dtype = "f32"
shape = ["n"]
role = "output"
[[args]]
name = "n"
dtype = "{N_DTYPE}"
role = "scalar"
value = "n"
[launch]
block = ["64"]
grid = ["ceil_div(n, 64)"]
[[sizes]]
name = "big"
n = {N}
)toml";

class CheckManifest : public ::testing::Test {
 protected:
  std::string manifest(const std::string& x_keys, const std::string& n_dtype = "i32", const std::string& n = "1000") {
    std::string text = kManifest;
    auto put = [&](const std::string& key, const std::string& value) { text.replace(text.find(key), key.size(), value); };
    put("{X_KEYS}", x_keys);
    put("{N_DTYPE}", n_dtype);
    put("{N}", n);
    return text;
  }
  std::filesystem::path write(const std::string& text) {
    dir_.write("scale.cl", kKernel);
    return dir_.write("kforge.toml", text);
  }
  std::string error_for(const std::string& text) {
    const auto path = write(text);
    try {
      load_task(path);
    } catch (const TaskError& e) {
      std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      for (auto at = message.find(dir_.path().string()); at != std::string::npos; at = message.find(dir_.path().string()))
        message.replace(at, dir_.path().string().size(), "DIR");
      return message;
    }
    return "no error";
  }
  testing::TempDir dir_;
};

TEST_F(CheckManifest, ReadsCheckInitsAndAdversarial) {
  const Task task = load_task(write(manifest("check_inits = [\"uniform(-1000,1000)\", \"denormal\", \"nonfinite(-1,1)\"]\nadversarial = false")));
  EXPECT_THAT(task.args[0].check_inits, ::testing::ElementsAre("uniform(-1000,1000)", "denormal", "nonfinite(-1,1)"));
  EXPECT_FALSE(task.args[0].adversarial);
  EXPECT_TRUE(load_task(write(manifest(""))).args[0].adversarial) << "adversarial draws are on by default";
}

TEST_F(CheckManifest, MistakesNameTheKeyAndTheFix) {
  EXPECT_EQ(error_for(manifest("check_inits = [\"gauss(0,1)\"]")),
            "DIR/kforge.toml: [args] 'x' check_inits: 'gauss(0,1)' is not a known distribution; use uniform(a,b) "
            "normal(mean,std) randint(a,b) ones zeros arange large(a,b) ties(a,b) special(a,b) denormal nonfinite(a,b)");
  EXPECT_EQ(error_for(manifest("check_inits = \"denormal\"")),
            "DIR/kforge.toml: [args] 'x' check_inits: must be a list of strings, e.g. [\"uniform(-1000,1000)\", \"denormal\"]");
  EXPECT_EQ(error_for(manifest("adversarial = \"no\"")),
            "DIR/kforge.toml: [args] 'x' adversarial: must be true or false (without quotes)");
  EXPECT_EQ(error_for(manifest("check_inits = [\"large(-1,10)\"]")),
            "DIR/kforge.toml: [args] 'x' check_inits: 'large(-1,10)' is not a known distribution; use uniform(a,b) "
            "normal(mean,std) randint(a,b) ones zeros arange large(a,b) ties(a,b) special(a,b) denormal nonfinite(a,b)");
  EXPECT_EQ(error_for(manifest("adversarial_draws = false")),
            "DIR/kforge.toml: [[args]] #1: unknown key 'adversarial_draws'; known keys: adversarial check_inits dtype "
            "init name role shape value");
  std::string on_output = manifest("");
  on_output.replace(on_output.find("role = \"output\""), 15, "role = \"output\"\nadversarial = false");
  EXPECT_EQ(error_for(on_output),
            "DIR/kforge.toml: [args] 'y': outputs take no check_inits or adversarial (they are poisoned before each run); remove it");
  std::string on_scalar = manifest("");
  on_scalar.replace(on_scalar.find("value = \"n\""), 11, "value = \"n\"\ncheck_inits = [\"ones\"]");
  EXPECT_EQ(error_for(on_scalar),
            "DIR/kforge.toml: [args] 'n': scalars take no 'check_inits' (their value is an expression); remove it");
}

// Before: n = 3e9 reached the kernel as a negative int and every candidate timed out.
TEST_F(CheckManifest, ScalarValuesMustFitTheirDtype) {
  EXPECT_EQ(error_for(manifest("", "i32", "3000000000")),
            "DIR/kforge.toml: [args] 'n' value: 'n' is 3000000000 at size 'big', which overflows the i32 scalar (at most "
            "2147483647); lower the size or use dtype = \"i64\" (and a 64-bit parameter in the kernel)");
  EXPECT_EQ(error_for(manifest("", "i64", "3000000000")), "no error");
  EXPECT_EQ(error_for(manifest("", "i32", "2147483647")), "no error");
}

TEST_F(CheckManifest, ElementAndByteCountsMustNotOverflow) {
  std::string squared = manifest("", "i64", "4000000000");
  squared.replace(squared.find("shape = [\"n\"]\nrole = \"input\""), 29, "shape = [\"n\", \"n\", \"n\"]\nrole = \"input\"");
  EXPECT_EQ(error_for(squared),
            "DIR/kforge.toml: [args] 'x' shape: the element count overflows 64 bits at size 'big'; lower the size's variables");
  std::string bytes = manifest("", "i64", "3000000000");
  bytes.replace(bytes.find("shape = [\"n\"]\nrole = \"input\""), 29, "shape = [\"n\", \"n\"]\nrole = \"input\"");
  EXPECT_EQ(error_for(bytes),
            "DIR/kforge.toml: [args] 'x' shape: 9000000000000000000 elements of f32 overflow a 64-bit byte count at size "
            "'big'; lower the size's variables");
}

// Before: a size larger than the device made the worker fail every candidate (bad_alloc,
// segfault or a timeout) instead of saying what is wrong with the manifest.
TEST_F(CheckManifest, BuffersMustFitTheDeviceAndTheWorker) {
  const Task task = load_task(write(manifest("", "i64", "1073741824")));  // 2 x 4 GiB
  check_memory_limits(task, std::uint64_t{32} << 30, 0, "big gpu");     // 16 GiB for two copies: fits
  try {
    check_memory_limits(task, std::uint64_t{12} << 30, 0, "small gpu");
    FAIL() << "no error for 16 GiB of buffers on a 12 GiB device";
  } catch (const TaskError& e) {
    std::string message = e.what();
    message.replace(message.find(dir_.path().string()), dir_.path().string().size(), "DIR");
    EXPECT_EQ(message,
              "DIR/kforge.toml: [[sizes]] 'big': the buffers take 8.0 GiB (the largest, 'x', 4.0 GiB) and a check "
              "holds 2 copies (16.0 GiB), more than the device's memory, small gpu (12.0 GiB); lower the size's variables");
  }
  EXPECT_THROW(check_memory_limits(task, 0, std::uint64_t{16} << 30, ""), TaskError) << "3 host copies: 24 GiB";
  check_memory_limits(task, 0, 0, "");  // unknown limits: nothing to check
}

}  // namespace
}  // namespace kforge
