// `kforge optimize --resume` given something that is not a healthy kforge run: the real
// binary must say so in one line and exit 1, leaving the folder as it was.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.h"

namespace kforge {
namespace {
using namespace kforge::testing;

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void expect_one_clear_line(const CommandResult& result, const std::string& must_say) {
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find(must_say), std::string::npos) << result.output;
  EXPECT_LE(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
  EXPECT_EQ(result.output.find("terminate"), std::string::npos) << result.output;
}

TEST(ResumeErrors, CorruptDatabaseIsRefusedInOneLine) {
  const auto run = make_temp_dir("kforge-corrupt-run");
  const std::string garbage(8192, 'x');
  std::ofstream(run / "run.db", std::ios::binary) << garbage;
  const auto result = run_kforge("optimize --resume " + run.string());
  expect_one_clear_line(result, "corrupt");
  EXPECT_NE(result.output.find(run.string()), std::string::npos) << result.output;
  EXPECT_EQ(file_bytes(run / "run.db"), garbage) << "the corrupt file was modified";
  std::filesystem::remove_all(run);
}

TEST(ResumeErrors, ForeignSqliteDatabaseIsRefusedAndLeftUntouched) {
  const auto run = make_temp_dir("kforge-foreign-run");
  {
    SQLite::Database db((run / "run.db").string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE people(name TEXT); INSERT INTO people VALUES ('ada')");
  }
  const std::string before = file_bytes(run / "run.db");
  const auto result = run_kforge("optimize --resume " + run.string());
  expect_one_clear_line(result, "another program");
  EXPECT_EQ(file_bytes(run / "run.db"), before) << "the foreign database was modified";
  EXPECT_FALSE(std::filesystem::exists(run / "run.db-wal"));
  std::filesystem::remove_all(run);
}

TEST(ResumeErrors, TruncatedDatabaseIsRefusedInOneLine) {
  const auto run = make_temp_dir("kforge-truncated-run");
  {  // a real SQLite header cut off mid-page, as a crash of the copying tool would leave it
    SQLite::Database db((run / "whole.db").string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)");
  }
  const std::string whole = file_bytes(run / "whole.db");
  std::ofstream(run / "run.db", std::ios::binary) << whole.substr(0, 100);
  const auto result = run_kforge("optimize --resume " + run.string());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_LE(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
  EXPECT_NE(result.output.find("run.db"), std::string::npos) << result.output;
  std::filesystem::remove_all(run);
}

TEST(ResumeErrors, AFileInsteadOfAFolder) {
  const auto folder = make_temp_dir("kforge-file-run");
  std::ofstream(folder / "notes.txt") << "hello";
  const auto result = run_kforge("optimize --resume " + (folder / "notes.txt").string());
  expect_one_clear_line(result, "not a kforge run");
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace kforge
