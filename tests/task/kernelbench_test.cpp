#include "task/kernelbench.h"

#include <gtest/gtest.h>

#include "task/detect.h"
#include "support/temp_dir.h"

namespace kforge {
namespace {

const char* kProblem = R"(import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(8)]


def get_init_inputs():
    return []
)";

TEST(KernelBench, ProblemNeedsModelAndBothInputFunctionsAtTopLevel) {
  EXPECT_TRUE(is_kernelbench_source(kProblem));
  EXPECT_FALSE(is_kernelbench_source("import torch\nclass Model(nn.Module):\n    pass\n"));
  // Indented definitions belong to something else.
  EXPECT_FALSE(is_kernelbench_source("class A:\n  class Model:\n    pass\n  def get_inputs():\n    pass\n"
                                     "  def get_init_inputs():\n    pass\n"));
}

TEST(KernelBench, ImplicitTaskIsPyTorchWithOneSizeAndNoTunables) {
  testing::TempDir dir;
  const auto file = dir.write("relu.py", kProblem);
  const Task task = kernelbench_task(file);
  EXPECT_EQ(task.name, "relu");
  EXPECT_EQ(task.kernel.language, Language::PyTorch);
  EXPECT_EQ(task.kernel.kernel, "Model");
  EXPECT_EQ(task.manifest_path, file);
  ASSERT_EQ(task.sizes.size(), 1u);
  EXPECT_EQ(task.sizes[0].name, "default");
  EXPECT_TRUE(task.params.empty());
}

TEST(KernelBench, NotAProblemIsATaskError) {
  testing::TempDir dir;
  const auto file = dir.write("plain.py", "import torch\n");
  EXPECT_FALSE(is_kernelbench_problem(file));
  EXPECT_THROW(kernelbench_task(file), TaskError);
}

TEST(KernelBench, DetectListsTheModel) {
  testing::TempDir dir;
  const auto file = dir.write("relu.py", kProblem);
  const auto kernels = detect_kernels(file);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].name, "Model");
  EXPECT_EQ(kernels[0].language, Language::PyTorch);
  EXPECT_EQ(kernels[0].line, 5);
}

}  // namespace
}  // namespace kforge
