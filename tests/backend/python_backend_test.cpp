#include "backend/python/python_backend.h"

#include <gtest/gtest.h>

#include "backend/python/python_env.h"

namespace kforge {
namespace {

CompileRequest python_request(const std::string& source) {
  CompileRequest request;
  request.language = Language::Triton;
  request.source = source;
  request.source_name = "kernel.py";
  request.kernel = "add_kernel";
  return request;
}

TEST(PythonBackend, ValidSourceIsItsOwnBinary) {
  auto backend = make_python_backend(Language::Triton);
  // Syntax only: the import of a module that is not installed is never executed.
  const std::string source = "import not_installed_anywhere\n\ndef add_kernel(x):\n    return x\n";
  const CompileResult result = backend->compile(python_request(source));
  ASSERT_TRUE(result.ok) << result.log;
  EXPECT_EQ(result.binary, source);
  EXPECT_EQ(result.binary_format, "python-source");
  EXPECT_EQ(result.kernel, "add_kernel");
  EXPECT_FALSE(result.key.empty());
}

TEST(PythonBackend, SyntaxErrorNamesTheFileAndLine) {
  auto backend = make_python_backend(Language::PyTorch);
  const CompileResult result = backend->compile(python_request("import torch\ndef broken(:\n"));
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.binary.empty());
  EXPECT_EQ(result.log.rfind("kernel.py:2: error: SyntaxError", 0), 0u) << result.log;
}

TEST(PythonBackend, WorkerCommandRunsTheScriptWithTheLanguage) {
  const auto command = python_worker_command(Language::Triton, 3);
  ASSERT_EQ(command.size(), 6u);
  EXPECT_NE(command[1].find("kforge_worker.py"), std::string::npos);
  EXPECT_EQ(command[2], "--backend");
  EXPECT_EQ(command[3], "triton");
  EXPECT_EQ(command[5], "3");
  EXPECT_TRUE(is_python_language(Language::PyTorch));
  EXPECT_FALSE(is_python_language(Language::Cuda));
}

}  // namespace
}  // namespace kforge
