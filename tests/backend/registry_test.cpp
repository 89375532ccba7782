#include <gtest/gtest.h>

#include "backend/backend.h"

namespace kforge {
namespace {

TEST(Registry, MakesCudaAndOpenClBackends) {
  auto cuda = make_backend(Language::Cuda);
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->name(), "cuda");
  EXPECT_EQ(cuda->language(), Language::Cuda);
  auto opencl = make_backend(Language::OpenCL);
  ASSERT_NE(opencl, nullptr);
  EXPECT_EQ(opencl->name(), "opencl");
  EXPECT_EQ(opencl->language(), Language::OpenCL);
}

TEST(Registry, LanguagesWithoutABackendGiveNull) {
  EXPECT_EQ(make_backend(Language::Hip), nullptr);
}

TEST(Registry, AllBackendsListsEachOnce) {
  const auto backends = all_backends();
  ASSERT_EQ(backends.size(), 4u);
  EXPECT_EQ(backends[0]->name(), "cuda");
  EXPECT_EQ(backends[1]->name(), "opencl");
  EXPECT_EQ(backends[2]->name(), "triton");
  EXPECT_EQ(backends[3]->name(), "pytorch");
}

TEST(Registry, ProbeNeverThrows) {
  for (const auto& backend : all_backends()) {
    Availability availability;
    EXPECT_NO_THROW(availability = backend->probe()) << backend->name();
    EXPECT_FALSE(availability.reason.empty()) << backend->name();
    if (availability.usable) {
      EXPECT_FALSE(availability.devices.empty()) << backend->name();
    }
  }
}

}  // namespace
}  // namespace kforge
