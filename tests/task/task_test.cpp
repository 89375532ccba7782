#include "task/task.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "task/expr.h"
#include "task/manifest_search.h"
#include "support/temp_dir.h"

namespace kforge {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char* const kKernel = R"(
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
)";

const char* const kManifest = R"toml(
[task]
name = "vadd"
language = "cuda"
source = "vector_add.cu"
kernel = "vector_add"
description = "c = a + b"
compile_options = ["-use_fast_math"]

[[args]]
name = "a"
dtype = "f32"
shape = ["n"]
role = "input"
init = "uniform(-1,1)"
[[args]]
name = "b"
dtype = "f32"
shape = "n"
role = "input"
[[args]]
name = "c"
dtype = "f32"
shape = ["n"]
role = "output"
[[args]]
name = "n"
dtype = "i32"
role = "scalar"
value = "n"

[launch]
block = ["BLOCK", 1, "1"]
grid = ["ceil_div(n, BLOCK*ITEMS)"]
shared_mem = "0"

[params]
BLOCK = { values = [64, 128, 256, 512, 1024], default = 256 }
ITEMS = [1, 2, 4, 8]

[constraints]
rules = ["BLOCK * ITEMS <= 4096"]

[[sizes]]
name = "large"
n = 16777216
[[sizes]]
name = "odd"
n = 1000003

[metrics]
bytes = "3 * 4 * n"
flops = "n"
)toml";

// Writes the kernel and a manifest (kManifest with `from` replaced by `to`), returns the manifest path.
class ManifestTest : public ::testing::Test {
 protected:
  std::filesystem::path write_manifest(const std::string& text) {
    dir_.write("vector_add.cu", kKernel);
    return dir_.write("kforge.toml", text);
  }

  std::string edited(const std::string& from, const std::string& to) {
    std::string text = kManifest;
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "test bug: '" << from << "' is not in the manifest";
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
  }

  // The one-line error load_task gives for `text`, with the temp folder shortened to "DIR".
  std::string error_for(const std::string& text) {
    auto path = write_manifest(text);
    try {
      load_task(path);
    } catch (const TaskError& e) {
      std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << "error is not one line: " << message;
      for (auto at = message.find(dir_.path().string()); at != std::string::npos; at = message.find(dir_.path().string()))
        message.replace(at, dir_.path().string().size(), "DIR");
      return message;
    }
    return "no error";
  }

  testing::TempDir dir_;
};

TEST_F(ManifestTest, LoadsTheDocumentedExample) {
  Task task = load_task(write_manifest(kManifest));
  EXPECT_EQ(task.name, "vadd");
  EXPECT_EQ(task.manifest_path, dir_.path() / "kforge.toml");
  EXPECT_EQ(task.root, dir_.path());
  EXPECT_EQ(task.kernel.language, Language::Cuda);
  EXPECT_EQ(task.kernel.source, dir_.path() / "vector_add.cu");
  EXPECT_EQ(task.kernel.kernel, "vector_add");
  EXPECT_FALSE(task.reference.has_value());
  EXPECT_EQ(task.description, "c = a + b");
  EXPECT_THAT(task.compile_options, ElementsAre("-use_fast_math"));
  ASSERT_EQ(task.args.size(), 4u);
  EXPECT_EQ(task.args[1].name, "b");
  EXPECT_THAT(task.args[1].shape, ElementsAre("n"));  // a bare string is one dimension
  EXPECT_EQ(task.args[1].init, "uniform(-1,1)");
  EXPECT_EQ(task.args[2].role, ArgRole::Output);
  EXPECT_EQ(task.args[3].role, ArgRole::Scalar);
  EXPECT_EQ(task.args[3].dtype, DType::I32);
  EXPECT_EQ(task.args[3].value, "n");
  EXPECT_EQ(task.launch.block, (std::array<std::string, 3>{"BLOCK", "1", "1"}));
  EXPECT_EQ(task.launch.grid, (std::array<std::string, 3>{"ceil_div(n, BLOCK*ITEMS)", "1", "1"}));
  ASSERT_EQ(task.params.size(), 2u);
  EXPECT_EQ(task.params[0].name, "BLOCK");
  EXPECT_EQ(task.params[0].default_value, 256);
  EXPECT_THAT(task.params[1].values, ElementsAre(1, 2, 4, 8));
  EXPECT_EQ(task.params[1].default_value, 1);  // short form: the first value
  EXPECT_EQ(task.default_params(), (ParamValues{{"BLOCK", 256}, {"ITEMS", 1}}));
  EXPECT_THAT(task.constraints, ElementsAre("BLOCK * ITEMS <= 4096"));
  ASSERT_EQ(task.sizes.size(), 2u);
  EXPECT_EQ(task.sizes[0].name, "large");
  EXPECT_EQ(task.sizes[1].vars, (Bindings{{"n", 1000003}}));
  EXPECT_EQ(task.bytes_expr, "3 * 4 * n");
  EXPECT_EQ(task.flops_expr, "n");
}

TEST_F(ManifestTest, DefaultsForOptionalTables) {
  std::string text = R"toml(
[task]
source = "vector_add.cu"
[[args]]
name = "a"
dtype = "i32"
shape = ["n"]
role = "input"
[[args]]
name = "b"
dtype = "f32"
shape = [4096]
role = "input"
[[args]]
name = "c"
dtype = "f32"
shape = ["n"]
role = "inout"
[[args]]
name = "n"
dtype = "i64"
role = "scalar"
value = "n"
[launch]
block = [256]
grid = "ceil_div(n, 256)"
[[sizes]]
n = 1000
)toml";
  Task task = load_task(write_manifest(text));
  EXPECT_EQ(task.name, dir_.path().filename().string());  // the folder's name
  EXPECT_EQ(task.kernel.language, Language::Cuda);         // from the .cu extension
  EXPECT_EQ(task.kernel.kernel, "vector_add");             // the only kernel in the source
  EXPECT_EQ(task.args[0].init, "randint(0,100)");          // integer inputs get integers
  EXPECT_EQ(task.args[2].init, "uniform(-1,1)");
  EXPECT_THAT(task.args[1].shape, ElementsAre("4096"));
  EXPECT_EQ(task.sizes[0].name, "size0");
  EXPECT_TRUE(task.params.empty());
  EXPECT_FALSE(task.tolerance.has_value());
  EXPECT_EQ(task.launch.block, (std::array<std::string, 3>{"256", "1", "1"}));
}

TEST_F(ManifestTest, NamedManifestDefaultsNameToItsPrefix) {
  dir_.write("vector_add.cu", kKernel);
  std::string text = edited("name = \"vadd\"\n", "");
  auto path = dir_.write("fast_add.kforge.toml", text);
  EXPECT_EQ(load_task(path).name, "fast_add");
}

TEST_F(ManifestTest, ReferenceKernel) {
  dir_.write("ref.cu", R"(extern "C" __global__ void ref(const float* a, const float* b, float* c, int n) {})");
  Task task = load_task(write_manifest(edited("[[args]]", "[reference]\nsource = \"ref.cu\"\n\n[[args]]")));
  ASSERT_TRUE(task.reference.has_value());
  EXPECT_EQ(task.reference->kernel, "ref");
  EXPECT_EQ(task.reference->language, Language::Cuda);
  EXPECT_EQ(task.reference->source, dir_.path() / "ref.cu");
}

TEST_F(ManifestTest, ReferenceLanguageComesFromItsFile) {
  dir_.write("ref.py", "import torch\n");
  Task task = load_task(write_manifest(edited("[[args]]", "[reference]\nsource = \"ref.py\"\nkernel = \"forward\"\n\n[[args]]")));
  EXPECT_EQ(task.reference->language, Language::PyTorch);
  EXPECT_EQ(task.reference->kernel, "forward");
}

TEST_F(ManifestTest, TritonArgsExcludeConstexprAndBlockIsOptional) {
  dir_.write("add.py", R"(
import triton
import triton.language as tl
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pass
)");
  std::string text = R"toml(
[task]
source = "add.py"
[[args]]
name = "x"
dtype = "f32"
shape = ["n"]
role = "input"
[[args]]
name = "y"
dtype = "f32"
shape = ["n"]
role = "input"
[[args]]
name = "out"
dtype = "f32"
shape = ["n"]
role = "output"
[[args]]
name = "n"
dtype = "i32"
role = "scalar"
value = "n"
[launch]
grid = ["ceil_div(n, BLOCK_SIZE)"]
[params]
BLOCK_SIZE = [1024, 512]
[[sizes]]
n = 98432
)toml";
  Task task = load_task(write_manifest(text));
  EXPECT_EQ(task.kernel.language, Language::Triton);
  EXPECT_EQ(task.kernel.kernel, "add_kernel");
  EXPECT_EQ(task.default_params(), (ParamValues{{"BLOCK_SIZE", 1024}}));
  EXPECT_EQ(task.launch.block, (std::array<std::string, 3>{"1", "1", "1"}));
}

// A Triton task that brings its own host code: a launcher and an input builder, no [[args]].
class TritonHarnessTest : public ManifestTest {
 protected:
  void SetUp() override {
    dir_.write("add.py", R"(
import torch
import triton
import triton.language as tl
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pass
def add(x, y, BLOCK=256):
    def nested_helper():
        pass
    return x
def add_ref(x, y):
    return x + y
)");
    dir_.write("inputs.py", "import torch\ndef make_inputs(n, device):\n    return torch.ones(n), torch.ones(n)\n");
  }

  static std::string manifest(const std::string& task_extra, const std::string& rest = "") {
    return "[task]\nsource = \"add.py\"\nkernel = \"add_kernel\"\n" + task_extra +
           "\n[params]\nBLOCK = [256, 512]\n[[sizes]]\nn = 1000\n" + rest;
  }
};

TEST_F(TritonHarnessTest, LauncherAndInputBuilderReplaceArgsAndLaunch) {
  Task task = load_task(write_manifest(manifest("launcher = \"add\"\ninputs = \"inputs.py:make_inputs\"",
                                                "[reference]\nsource = \"add.py\"\nkernel = \"add_ref\"\n")));
  ASSERT_TRUE(task.harness.has_value());
  EXPECT_EQ(task.harness->launcher, "add");
  EXPECT_EQ(task.harness->inputs_source.filename(), "inputs.py");
  EXPECT_EQ(task.harness->inputs_function, "make_inputs");
  EXPECT_TRUE(task.args.empty());
  ASSERT_TRUE(task.reference.has_value());
  EXPECT_EQ(task.reference->language, Language::PyTorch);  // a plain function, not a @triton.jit kernel
  EXPECT_EQ(task.reference->kernel, "add_ref");

  Task same_file = load_task(write_manifest(manifest("launcher = \"add\"\ninputs = \"add_ref\"")));
  EXPECT_EQ(same_file.harness->inputs_source.filename(), "add.py");
}

TEST_F(TritonHarnessTest, MistakesNameTheKeyAndTheFix) {
  EXPECT_THAT(error_for(manifest("launcher = \"add\"")),
              HasSubstr("[task]: 'launcher' needs 'inputs' too; add inputs = \"<function that builds the inputs>\""));
  EXPECT_THAT(error_for(manifest("inputs = \"inputs.py:make_inputs\"")), HasSubstr("'inputs' needs 'launcher' too"));
  EXPECT_THAT(error_for(manifest("launcher = \"launch\"\ninputs = \"inputs.py:make_inputs\"")),
              HasSubstr("[task] launcher: 'launch' is not a top-level function in add.py; define def launch("));
  EXPECT_THAT(error_for(manifest("launcher = \"nested_helper\"\ninputs = \"inputs.py:make_inputs\"")),
              HasSubstr("'nested_helper' is not a top-level function"));
  EXPECT_THAT(error_for(manifest("launcher = \"add\"\ninputs = \"inputs.py:build\"")),
              HasSubstr("[task] inputs: 'build' is not a top-level function in inputs.py"));
  EXPECT_THAT(error_for(manifest("launcher = \"add\"\ninputs = \"missing.py:make_inputs\"")),
              HasSubstr("[task] inputs source: 'missing.py' does not exist"));
  EXPECT_THAT(error_for(manifest("launcher = \"add\"\ninputs = \"inputs.py:make_inputs\"", "[launch]\ngrid = [1]\n")),
              HasSubstr("[launch]: not used when [task] names a launcher"));
  EXPECT_THAT(error_for(manifest("launcher = \"add\"\ninputs = \"inputs.py:make_inputs\"",
                                 "[reference]\nsource = \"add.py\"\nkernel = \"ref\"\n")),
              HasSubstr("[reference] kernel: 'ref' is not a top-level function in add.py"));
  EXPECT_THAT(error_for(edited("kernel = \"vector_add\"", "kernel = \"vector_add\"\nlauncher = \"add\"\ninputs = \"x\"")),
              HasSubstr("[task]: only Triton tasks take a launcher and inputs"));
}

TEST_F(ManifestTest, ToleranceOverridesDefaults) {
  Task task = load_task(write_manifest(edited("[metrics]", "[tolerance]\natol = 1e-5\nrtol = 0\n[metrics]")));
  ASSERT_TRUE(task.tolerance.has_value());
  EXPECT_DOUBLE_EQ(tolerance_for(task, DType::F16).atol, 1e-5);
  EXPECT_DOUBLE_EQ(tolerance_for(task, DType::F16).rtol, 0);
}

TEST_F(ManifestTest, ErrorMessagesNameFileKeyProblemAndFix) {
  struct Case {
    std::string from, to, expected;
  };
  const std::vector<Case> cases{
      {"dtype = \"f32\"\nshape = [\"n\"]\nrole = \"output\"", "dtype = \"f33\"\nshape = [\"n\"]\nrole = \"output\"",
       "DIR/kforge.toml: [args] 'c': unknown dtype 'f33'; use one of f16 bf16 f32 f64 i8 u8 i32 u32 i64"},
      {"role = \"output\"", "role = \"out\"",
       "DIR/kforge.toml: [args] 'c': unknown role 'out'; use one of input output inout scalar"},
      {"language = \"cuda\"", "language = \"cobol\"",
       "DIR/kforge.toml: [task] language: unknown language 'cobol'; use one of cuda opencl hip triton pytorch"},
      {"source = \"vector_add.cu\"", "source = \"missing.cu\"",
       "DIR/kforge.toml: [task] source: 'missing.cu' does not exist (looked for DIR/missing.cu); give the path relative to the manifest"},
      {"kernel = \"vector_add\"", "kernel = \"vector_sub\"",
       "DIR/kforge.toml: [task] kernel: 'vector_sub' is not a kernel in vector_add.cu; found: vector_add"},
      {"shape = [\"n\"]\nrole = \"output\"", "shape = [\"m\"]\nrole = \"output\"",
       "DIR/kforge.toml: [args] 'c' shape[0]: expression 'm': unknown identifier 'm' (known: BLOCK, ITEMS, n) at size 'large'"},
      {"grid = [\"ceil_div(n, BLOCK*ITEMS)\"]", "grid = [\"ceil_div(n, BLOCK*ITEMS*WARPS)\"]",
       "DIR/kforge.toml: [launch] grid[0]: expression 'ceil_div(n, BLOCK*ITEMS*WARPS)': unknown identifier 'WARPS' (known: BLOCK, ITEMS, n) at size 'large'"},
      {"grid = [\"ceil_div(n, BLOCK*ITEMS)\"]", "grid = [\"n / 100000000\"]",
       "DIR/kforge.toml: [launch] grid[0]: 'n / 100000000' is 0 at size 'large'; it must be at least 1"},
      {"grid = [\"ceil_div(n, BLOCK*ITEMS)\"]", "grid = [\"1\", \"1\", \"1\", \"1\"]",
       "DIR/kforge.toml: [launch] grid: needs 1 to 3 dimensions, got 4"},
      {"default = 256", "default = 100",
       "DIR/kforge.toml: [params] 'BLOCK': default 100 is not among its values; add it to values or change default"},
      {"ITEMS = [1, 2, 4, 8]", "ITEMS = []", "DIR/kforge.toml: [params] 'ITEMS': has no values; list at least one integer"},
      {"ITEMS = [1, 2, 4, 8]", "ITEMS = [1, 2, 2]",
       "DIR/kforge.toml: [params] 'ITEMS': value 2 is listed twice; remove the duplicate"},
      {"ITEMS = [1, 2, 4, 8]", "ITEMS = [\"1\"]",
       "DIR/kforge.toml: [params] 'ITEMS': values must be integers; use numbers like 64, not strings"},
      {"ITEMS = [1, 2, 4, 8]", "n = [1, 2]", "DIR/kforge.toml: [[sizes]] 'large' n: is also a tunable in [params]; rename one of them"},
      {"rules = [\"BLOCK * ITEMS <= 4096\"]", "rules = [\"BLOCK * ITEMS <= 128\"]",
       "DIR/kforge.toml: [constraints] rules: 'BLOCK * ITEMS <= 128' is false for the default params (BLOCK=256, ITEMS=1) at size 'large'; change the defaults or the rule"},
      {"rules = [\"BLOCK * ITEMS <= 4096\"]", "rules = [\"BLOCK <= 4096 || WARPS > 1\"]",
       "DIR/kforge.toml: [constraints] rules: expression 'BLOCK <= 4096 || WARPS > 1': unknown identifier 'WARPS' (known: BLOCK, ITEMS, n) at size 'large'"},
      {"shape = [\"n\"]\nrole = \"input\"\ninit", "shpe = [\"n\"]\nrole = \"input\"\ninit",
       "DIR/kforge.toml: [[args]] #1: unknown key 'shpe'; known keys: adversarial check_inits dtype init name role shape value"},
      {"init = \"uniform(-1,1)\"", "init = \"gauss(0,1)\"",
       "DIR/kforge.toml: [args] 'a' init: 'gauss(0,1)' is not a known distribution; use uniform(a,b) normal(mean,std) randint(a,b) ones zeros arange"},
      {"role = \"output\"", "role = \"output\"\ninit = \"ones\"",
       "DIR/kforge.toml: [args] 'c': init has no effect on outputs (they are poisoned before each run); remove it or use role = \"inout\""},
      {"dtype = \"i32\"\nrole = \"scalar\"", "dtype = \"u8\"\nrole = \"scalar\"",
       "DIR/kforge.toml: [args] 'n': dtype 'u8' is not supported for scalars; use one of i32 i64 f32 f64"},
      {"value = \"n\"", "", "DIR/kforge.toml: [args] 'n': missing 'value'; add value = \"n\" (an expression over sizes and params)"},
      {"name = \"b\"", "name = \"a\"", "DIR/kforge.toml: [args] 'a': duplicate name; names must be unique"},
      {"[[args]]\nname = \"n\"\ndtype = \"i32\"\nrole = \"scalar\"\nvalue = \"n\"\n", "",
       "DIR/kforge.toml: [[args]]: 3 arguments but kernel 'vector_add' takes 4 (a, b, c, n); list one [[args]] per parameter, in order"},
      {"role = \"output\"", "role = \"input\"",
       "DIR/kforge.toml: [[args]]: no argument has role \"output\" or \"inout\"; mark the buffers the kernel writes"},
      {"name = \"odd\"\nn = 1000003", "name = \"odd\"\nm = 1000003",
       "DIR/kforge.toml: [[sizes]] 'odd': missing 'n' which size 'large' defines; every size sets the same variables"},
      {"n = 16777216", "n = \"lots\"",
       "DIR/kforge.toml: [[sizes]] 'large' n: expression 'lots': unknown identifier 'lots' (known: none); sizes must be integers or constant expressions like \"2**24\""},
      {"block = [\"BLOCK\", 1, \"1\"]\n", "",
       "DIR/kforge.toml: [launch]: missing 'block'; add block = [\"BLOCK\", \"1\", \"1\"] (threads per block)"},
      {"[launch]", "[lunch]", "DIR/kforge.toml: top level: unknown key 'lunch'; known keys: args constraints launch metrics params reference sizes task tolerance"},
      {"bytes = \"3 * 4 * n\"", "bytes = \"3 * 4 * N\"",
       "DIR/kforge.toml: [metrics] bytes: expression '3 * 4 * N': unknown identifier 'N' (known: BLOCK, ITEMS, n) at size 'large'"},
      {"[metrics]", "[tolerance]\natol = 1e-3\n[metrics]",
       "DIR/kforge.toml: [tolerance]: missing or non-numeric 'rtol'; set both atol and rtol, e.g. atol = 1e-5"},
      {"shape = \"n\"", "shape = true",
       "DIR/kforge.toml: [args] 'b' shape: must be an expression string such as \"ceil_div(n, BLOCK)\" or an integer"},
      {"name = \"odd\"", "name = \"large\"", "DIR/kforge.toml: [[sizes]] 'large': duplicate name; names must be unique"},
  };
  for (const auto& c : cases) EXPECT_EQ(error_for(edited(c.from, c.to)), c.expected) << "edit: " << c.to;
}

TEST_F(ManifestTest, StructuralErrors) {
  EXPECT_THAT(error_for("[task\nname = 1"), HasSubstr("DIR/kforge.toml:1:"));
  EXPECT_THAT(error_for("[task\nname = 1"), HasSubstr("invalid TOML"));
  EXPECT_EQ(error_for("[launch]\ngrid = [1]\n"),
            "DIR/kforge.toml: [task]: missing; add a [task] table (see docs/TASK_FORMAT.md)");
  std::string no_sizes = kManifest;
  no_sizes.erase(no_sizes.find("[[sizes]]"), no_sizes.find("[metrics]") - no_sizes.find("[[sizes]]"));
  EXPECT_EQ(error_for(no_sizes),
            "DIR/kforge.toml: [[sizes]]: missing; add at least one [[sizes]] table, e.g. name = \"large\" and n = 1048576");
  try {
    load_task(dir_.path() / "nope.toml");
    FAIL();
  } catch (const TaskError& e) {
    EXPECT_THAT(e.what(), HasSubstr("nope.toml: no such manifest; run `kforge init KERNEL_SOURCE`"));
  }
}

TEST_F(ManifestTest, LanguageInferredFromExtensionOrRequired) {
  dir_.write("weird.kern", "__global__ void k(float* x) {}");
  std::string text = edited("language = \"cuda\"\nsource = \"vector_add.cu\"", "source = \"weird.kern\"");
  EXPECT_EQ(error_for(text),
            "DIR/kforge.toml: [task]: missing 'language' and cannot tell it from 'weird.kern'; add language = \"cuda\" (or opencl, hip, triton)");
}

TEST_F(ManifestTest, Helpers) {
  Task task = load_task(write_manifest(edited("[metrics]\nbytes = \"3 * 4 * n\"\nflops = \"n\"", "")));
  const ProblemSize& odd = task.sizes[1];
  Bindings b = bindings_for(task, odd, {{"ITEMS", 4}});
  EXPECT_EQ(b, (Bindings{{"BLOCK", 256}, {"ITEMS", 4}, {"n", 1000003}}));
  EXPECT_EQ(element_count(task.args[0], b), 1000003);
  EXPECT_EQ(element_count(task.args[3], b), 1);  // scalars
  EXPECT_DOUBLE_EQ(bytes_moved(task, b), 3.0 * 4 * 1000003);
  EXPECT_FALSE(flops(task, b).has_value());
  EXPECT_EQ(eval_int(task.launch.grid[0], b), 977);
  EXPECT_TRUE(satisfies_constraints(task, {{"BLOCK", 1024}, {"ITEMS", 4}}, odd.vars));
  EXPECT_FALSE(satisfies_constraints(task, {{"BLOCK", 1024}, {"ITEMS", 8}}, odd.vars));
  EXPECT_TRUE(satisfies_constraints(task, {{"ITEMS", 8}}, odd.vars));  // BLOCK keeps its default
}

TEST_F(ManifestTest, MetricsAndInoutBytes) {
  Task task = load_task(write_manifest(edited("role = \"output\"", "role = \"inout\"")));
  Bindings b = bindings_for(task, task.sizes[0], task.default_params());
  EXPECT_DOUBLE_EQ(bytes_moved(task, b), 3.0 * 4 * 16777216);  // the manifest's formula
  EXPECT_DOUBLE_EQ(*flops(task, b), 16777216);
  task.bytes_expr.clear();
  EXPECT_DOUBLE_EQ(bytes_moved(task, b), 4.0 * 4 * 16777216);  // inout is read and written
}

TEST(Tolerance, DefaultsPerDType) {
  Task task;
  EXPECT_DOUBLE_EQ(tolerance_for(task, DType::F32).atol, 1e-4);
  EXPECT_DOUBLE_EQ(tolerance_for(task, DType::F32).rtol, 1e-4);
  EXPECT_DOUBLE_EQ(tolerance_for(task, DType::F16).rtol, 1e-2);
  EXPECT_DOUBLE_EQ(tolerance_for(task, DType::BF16).atol, 2e-2);
  EXPECT_DOUBLE_EQ(tolerance_for(task, DType::F64).atol, 1e-9);
  EXPECT_DOUBLE_EQ(tolerance_for(task, DType::I32).atol, 0);
  EXPECT_DOUBLE_EQ(tolerance_for(task, DType::U8).rtol, 0);
}

TEST(Enums, RoundTripAndSizes) {
  for (auto d : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I8, DType::U8, DType::I32, DType::U32, DType::I64})
    EXPECT_EQ(parse_dtype(to_string(d)), d);
  for (auto l : {Language::Cuda, Language::OpenCL, Language::Hip, Language::Triton, Language::PyTorch})
    EXPECT_EQ(parse_language(to_string(l)), l);
  for (auto r : {ArgRole::Input, ArgRole::Output, ArgRole::InOut, ArgRole::Scalar}) EXPECT_EQ(parse_role(to_string(r)), r);
  EXPECT_EQ(to_string(DType::BF16), "bf16");
  EXPECT_EQ(parse_dtype("float"), std::nullopt);
  EXPECT_EQ(dtype_size(DType::BF16), 2u);
  EXPECT_EQ(dtype_size(DType::I64), 8u);
  EXPECT_EQ(dtype_size(DType::U8), 1u);
  EXPECT_TRUE(is_floating(DType::BF16));
  EXPECT_FALSE(is_floating(DType::U32));
}

TEST(FindManifests, FolderManifestAndSource) {
  testing::TempDir dir;
  auto a = dir.write("a/kforge.toml", "[task]\nsource = \"k.cu\"\n");
  auto fast = dir.write("a/fast.kforge.toml", "[task]\nsource = \"./k.cu\"\n");
  dir.write("a/other.kforge.toml", "[task]\nsource = \"other.cu\"\n");
  dir.write("a/broken.kforge.toml", "[task\n");
  dir.write("a/notes.toml", "x = 1\n");
  dir.write(".git/kforge.toml", "");
  auto b = dir.write("b/c/kforge.toml", "");
  auto source = dir.write("a/k.cu", "");
  auto all = find_manifests(dir.path());
  EXPECT_THAT(all, ElementsAre(dir.path() / "a/broken.kforge.toml", fast, a, dir.path() / "a/other.kforge.toml", b));
  EXPECT_THAT(find_manifests(fast), ElementsAre(fast));
  EXPECT_THAT(find_manifests(source), ElementsAre(fast, a));
  EXPECT_THROW(find_manifests(dir.path() / "missing"), TaskError);
}

}  // namespace
}  // namespace kforge
