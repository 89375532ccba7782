#include "store/schema.h"

#include "store/store_error.h"

#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <sqlite3.h>

#include <string>

namespace kforge::store_schema {
namespace {

// JSON columns hold text produced by nlohmann::json::dump(); NULL means "absent".
// median_ms duplicates metrics.median_ms so that best/top-N queries can use an index.
constexpr const char* kTables = R"SQL(
CREATE TABLE kforge_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE candidates (
  id              INTEGER PRIMARY KEY,
  generation      INTEGER NOT NULL,
  operator        TEXT NOT NULL,
  parent_ids      TEXT NOT NULL DEFAULT '[]',
  source          TEXT NOT NULL,
  source_hash     TEXT NOT NULL,
  params          TEXT NOT NULL DEFAULT '{}',
  compile_options TEXT NOT NULL DEFAULT '[]',
  strategy        TEXT NOT NULL DEFAULT '',
  rationale       TEXT NOT NULL DEFAULT '',
  status          TEXT NOT NULL,
  status_message  TEXT NOT NULL DEFAULT '',
  compile_log     TEXT NOT NULL DEFAULT '',
  compile_stats   TEXT,
  metrics         TEXT,
  median_ms       REAL,
  profile         TEXT,
  analysis        TEXT NOT NULL DEFAULT '',
  created_at      TEXT NOT NULL,
  evaluated_at    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX candidates_by_generation ON candidates(generation);
CREATE INDEX candidates_by_status ON candidates(status, median_ms);
CREATE INDEX candidates_by_hash ON candidates(source_hash);
CREATE TABLE evaluations (
  id           INTEGER PRIMARY KEY,
  candidate_id INTEGER NOT NULL REFERENCES candidates(id) ON DELETE CASCADE,
  kind         TEXT NOT NULL,
  size_name    TEXT NOT NULL DEFAULT '',
  result       TEXT,
  created_at   TEXT NOT NULL
);
CREATE INDEX evaluations_by_candidate ON evaluations(candidate_id);
CREATE TABLE llm_exchanges (
  id            INTEGER PRIMARY KEY,
  candidate_id  INTEGER,
  provider      TEXT NOT NULL,
  model         TEXT NOT NULL,
  purpose       TEXT NOT NULL DEFAULT '',
  request       TEXT,
  response      TEXT NOT NULL DEFAULT '',
  status        TEXT NOT NULL DEFAULT '',
  input_tokens  INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd      REAL NOT NULL DEFAULT 0,
  latency_s     REAL NOT NULL DEFAULT 0,
  attempts      INTEGER NOT NULL DEFAULT 1,
  error         TEXT NOT NULL DEFAULT '',
  created_at    TEXT NOT NULL
);
CREATE INDEX llm_by_candidate ON llm_exchanges(candidate_id);
CREATE TABLE generations (
  generation        INTEGER PRIMARY KEY,
  started_at        TEXT NOT NULL,
  finished_at       TEXT NOT NULL DEFAULT '',
  best_candidate_id INTEGER,
  best_median_ms    REAL,
  evaluated         INTEGER NOT NULL DEFAULT 0,
  correct           INTEGER NOT NULL DEFAULT 0,
  wall_s            REAL NOT NULL DEFAULT 0
);
CREATE TABLE events (
  id         INTEGER PRIMARY KEY,
  time       TEXT NOT NULL,
  generation INTEGER,
  message    TEXT NOT NULL
);
)SQL";

[[noreturn]] void not_a_run(const std::filesystem::path& run_dir, const std::string& why) {
  throw StoreError(run_dir.string() + ": not a kforge run folder (" + why +
                   "); pass a folder made by kforge optimize");
}

}  // namespace

void create(SQLite::Database& db) {
  SQLite::Transaction transaction(db);
  db.exec(kTables);
  db.exec("INSERT INTO kforge_meta(key, value) VALUES ('application', 'kforge'), "
          "('schema_version', '" + std::to_string(kVersion) + "')");
  db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  db.exec("PRAGMA user_version = " + std::to_string(kVersion));
  transaction.commit();
}

void verify(SQLite::Database& db, const std::filesystem::path& run_dir) {
  // The first read of the file is where SQLite notices garbage (SQLITE_NOTADB/CORRUPT).
  int application_id = 0;
  try {
    application_id = db.execAndGet("PRAGMA application_id").getInt();
  } catch (const SQLite::Exception& e) {
    const int code = e.getErrorCode();
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
      not_a_run(run_dir, "run.db is corrupt or not a SQLite database");
    throw;
  }
  if (application_id != kApplicationId || !db.tableExists("kforge_meta"))
    not_a_run(run_dir, "run.db is a SQLite database of another program");
  SQLite::Statement query(db, "SELECT value FROM kforge_meta WHERE key = 'schema_version'");
  if (!query.executeStep()) not_a_run(run_dir, "run.db has no schema version");
  int version = 0;
  try {
    version = std::stoi(query.getColumn(0).getString());
  } catch (const std::exception&) {
    not_a_run(run_dir, "run.db has an unreadable schema version");
  }
  if (version > kVersion)
    throw StoreError(run_dir.string() + ": run.db has schema version " + std::to_string(version) +
                     " but this kforge reads up to version " + std::to_string(kVersion) +
                     "; use a newer kforge");
  for (const char* table : {"settings", "candidates", "evaluations", "llm_exchanges",
                            "generations", "events"})
    if (!db.tableExists(table))
      not_a_run(run_dir, std::string("run.db lacks the ") + table + " table; it is damaged");
}

}  // namespace kforge::store_schema
