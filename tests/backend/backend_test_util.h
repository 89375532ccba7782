// Helpers for the backend tests: a private compile cache per test and scoped env changes.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace kforge::testing {

// Sets an environment variable for one scope and restores the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    if (value)
      ::setenv(name, value->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (previous_)
      ::setenv(name_, previous_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

// Every test starts with an empty compile cache of its own, so a hit is always this test's.
class FreshCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    cache_root_ = std::filesystem::temp_directory_path() /
                  ("kforge-backend-test-" + std::to_string(::getpid()) + "-" +
                   info->test_suite_name() + "-" + info->name());
    std::filesystem::remove_all(cache_root_);
    cache_env_.emplace("KFORGE_CACHE_DIR", cache_root_.string());
    no_cache_env_.emplace("KFORGE_NO_COMPILE_CACHE", std::nullopt);
  }
  void TearDown() override {
    no_cache_env_.reset();
    cache_env_.reset();
    std::filesystem::remove_all(cache_root_);
  }

  std::filesystem::path cache_root_;
  std::optional<ScopedEnv> cache_env_;
  std::optional<ScopedEnv> no_cache_env_;
};

}  // namespace kforge::testing
