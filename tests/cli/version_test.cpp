// `kforge --version` prints the version that CMakeLists.txt's project() declares (through the
// generated util/version.h), so the version is written in one place only, with the commit and
// the backends compiled in.
#include <gtest/gtest.h>

#include <regex>

#include "cli_runner.h"
#include "util/files.h"
#include "util/version.h"

namespace kforge {
namespace {

TEST(Version, ComesFromTheProjectDeclarationInCMake) {
  const std::string cmake = read_file(testing::source_dir() / "CMakeLists.txt");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(cmake, match, std::regex(R"(project\(kforge VERSION ([0-9.]+))")));
  EXPECT_EQ(std::string(kVersion), match[1].str());

  const auto result = testing::run_kforge("--version");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.output.rfind("kforge " + match[1].str() + " (commit ", 0), 0u) << result.output;
  EXPECT_NE(result.output.find(kCommit), std::string::npos) << "names the commit it was built from";
  EXPECT_NE(result.output.find("backends compiled in: "), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("opencl"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace kforge
