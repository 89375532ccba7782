// Opening folders that are not (healthy) kforge runs, and write failures.
#include "store/run_store.h"
#include "support/temp_dir.h"
#include "util/files.h"

#include <SQLiteCpp/Database.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sqlite3.h>

namespace kforge {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::TempDir;

std::string open_error(const std::filesystem::path& dir) {
  try {
    RunStore::open(dir);
  } catch (const StoreError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RunStoreOpen, MissingFolderOrDatabaseIsNotARun) {
  TempDir tmp;
  EXPECT_THAT(open_error(tmp.path() / "nope"),
              AllOf(HasSubstr("nope: not a kforge run folder"), HasSubstr("kforge optimize")));
  EXPECT_EQ(open_error(tmp.path()),
            tmp.path().string() +
                ": not a kforge run folder (no run.db); pass a folder made by kforge optimize");
  EXPECT_THROW(RunStore::open_read_only(tmp.path()), StoreError);
}

TEST(RunStoreOpen, GarbageFileIsReportedAsCorrupt) {
  TempDir tmp;
  write_file(tmp.path() / "run.db", std::string(8192, 'x'));
  auto message = open_error(tmp.path());
  EXPECT_THAT(message, AllOf(HasSubstr("not a kforge run folder"), HasSubstr("corrupt")));
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

TEST(RunStoreOpen, ForeignSqliteDatabaseIsRefusedAndLeftUntouched) {
  TempDir tmp;
  const auto db_path = tmp.path() / "run.db";
  {
    SQLite::Database db(db_path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE people(name TEXT)");
  }
  EXPECT_THAT(open_error(tmp.path()), HasSubstr("another program"));
  SQLite::Database db(db_path.string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "delete");  // not switched to WAL
}

TEST(RunStoreOpen, NewerSchemaVersionIsRefused) {
  TempDir tmp;
  RunStore::create(tmp.path() / "run");
  {
    SQLite::Database db((tmp.path() / "run" / "run.db").string(), SQLite::OPEN_READWRITE);
    db.exec("UPDATE kforge_meta SET value = '99' WHERE key = 'schema_version'");
  }
  EXPECT_THAT(open_error(tmp.path() / "run"), AllOf(HasSubstr("schema version 99"),
                                                    HasSubstr("newer kforge")));
}

TEST(RunStoreOpen, CreateRefusesAnExistingRun) {
  TempDir tmp;
  RunStore::create(tmp.path() / "run");
  EXPECT_THROW(RunStore::create(tmp.path() / "run"), StoreError);
  EXPECT_NO_THROW(RunStore::open(tmp.path() / "run"));
}

TEST(RunStoreOpen, UsesWalAndFullSync) {
  TempDir tmp;
  RunStore::create(tmp.path() / "run");
  SQLite::Database db((tmp.path() / "run" / "run.db").string(), SQLite::OPEN_READONLY);
  EXPECT_EQ(db.execAndGet("PRAGMA journal_mode").getString(), "wal");  // persistent mode
}

TEST(RunStoreOpen, ReadOnlyStoreRefusesWrites) {
  TempDir tmp;
  RunStore::create(tmp.path() / "run").set_setting("a", 1);
  auto store = RunStore::open_read_only(tmp.path() / "run");
  EXPECT_EQ(*store.get_setting("a"), 1);
  try {
    store.set_setting("a", 2);
    FAIL() << "write on a read-only store succeeded";
  } catch (const StoreError& e) {
    EXPECT_THAT(e.what(), HasSubstr("read-only"));
  }
}

TEST(RunStoreWrite, DiskFullSurfacesAsAClearError) {
  TempDir tmp;
  auto store = RunStore::create(tmp.path() / "run");
  store.limit_size_for_testing(40);  // pages: room for the schema, not for megabytes of source
  CandidateRecord big;
  big.source = std::string(1 << 20, 'k');
  try {
    store.insert_candidate(big);
    FAIL() << "a full database accepted a 1 MiB row";
  } catch (const StoreError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("disk full while writing " +
                                              (tmp.path() / "run" / "run.db").string(), 0),
              0u)
        << e.what();
  }
  // The store stays usable for small writes and nothing half-written is visible.
  EXPECT_EQ(store.count_candidates(), 0);
  EXPECT_NO_THROW(store.set_setting("after", true));
}

TEST(StoreErrorText, NamesTheFileAndTheProblem) {
  const std::filesystem::path db = "runs/x/run.db";
  EXPECT_EQ(describe_sqlite_failure(SQLITE_FULL, "database or disk is full", db, "writing"),
            "disk full while writing runs/x/run.db; free some space and resume the run");
  EXPECT_THAT(describe_sqlite_failure(SQLITE_IOERR_WRITE, "disk I/O error", db, "writing"),
              HasSubstr("I/O error while writing runs/x/run.db"));
  EXPECT_THAT(describe_sqlite_failure(SQLITE_BUSY, "database is locked", db, "writing"),
              HasSubstr("locked by another process"));
}

}  // namespace
}  // namespace kforge
