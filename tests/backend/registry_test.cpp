#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "backend/backend.h"

namespace kforge {
namespace {

using ::testing::HasSubstr;

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
  EXPECT_FALSE(has_backend(Language::Hip));
  EXPECT_EQ(make_backend(Language::Hip), nullptr);
}

TEST(Registry, RequiringAMissingBackendNamesIt) {
  try {
    require_backend(Language::Hip);
    FAIL() << "expected an EnvironmentError";
  } catch (const EnvironmentError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no backend for HIP (hip)"));
    EXPECT_THAT(e.what(), HasSubstr("backends: cuda opencl triton pytorch"));
  }
}

TEST(Registry, EveryRegisteredLanguageResolvesToItsRow) {
  for (const auto& row : all_languages()) {
    if (!has_backend(row.language)) continue;
    auto backend = require_backend(row.language);
    ASSERT_NE(backend, nullptr) << row.id;
    EXPECT_EQ(backend->language(), row.language);
    EXPECT_EQ(backend->name(), row.id);
  }
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
