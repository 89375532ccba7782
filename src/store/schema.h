// run.db's tables and the checks that tell a kforge run from any other file.
#pragma once

#include <SQLiteCpp/Database.h>

#include <filesystem>

namespace kforge::store_schema {

// Bumped whenever a table changes; a newer database is refused rather than misread.
constexpr int kVersion = 1;
// PRAGMA application_id: "KFRG", so `file run.db` and our checks can recognise the file.
constexpr int kApplicationId = 0x4b465247;

// Creates every table in a fresh database (one transaction).
void create(SQLite::Database& db);
// Throws StoreError("<run_dir>: not a kforge run folder (...)") unless db carries the
// kforge schema at a version this build reads.
void verify(SQLite::Database& db, const std::filesystem::path& run_dir);

}  // namespace kforge::store_schema
