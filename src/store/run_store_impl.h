// Internals shared by the files that implement RunStore (not part of the public API).
#pragma once

#include "store/run_store.h"
#include "store/run_lock.h"
#include "util/secrets.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace kforge {

struct RunStore::Impl {
  Impl(std::filesystem::path dir, std::filesystem::path db_path, int flags, std::unique_ptr<RunLock> writer_lock = nullptr)
      : run_lock(std::move(writer_lock)), run_dir(std::move(dir)), database(std::move(db_path)), db(database.string(), flags) {}

  std::unique_ptr<RunLock> run_lock;  // writers only; declared first so it is released last
  std::filesystem::path run_dir;
  std::filesystem::path database;
  // One connection, one lock: SQLite connections must not run two statements at once,
  // and the orchestrator records results from several compile threads.
  mutable std::mutex mutex;
  SQLite::Database db;

  // Runs body under the lock; SQLite failures become StoreError with advice.
  template <typename Body>
  auto locked(const char* action, Body&& body) const -> decltype(body()) {
    std::lock_guard<std::mutex> lock(mutex);
    try {
      return body();
    } catch (const SQLite::Exception& e) {
      throw StoreError(describe_sqlite_failure(e.getExtendedErrorCode(), e.getErrorStr(),
                                               database, action));
    } catch (const nlohmann::json::exception& e) {
      throw StoreError(database.string() + ": unreadable JSON in the database (" + e.what() + ")");
    }
  }
};

namespace store_sql {

// SQL expression for "now" as ISO 8601 UTC with milliseconds.
inline constexpr const char* kNow = "strftime('%Y-%m-%dT%H:%M:%fZ','now')";

// JSON columns: null json <-> SQL NULL, anything else as compact text. Everything written
// to the store passes redact_secrets (util/secrets.h): no configured key ever reaches run.db.
inline void bind_json(SQLite::Statement& statement, int index, const nlohmann::json& value) {
  if (value.is_null())
    statement.bind(index);
  else
    statement.bind(index, redact_secrets_json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}
// Free text (sources, messages, logs, replies).
inline void bind_text(SQLite::Statement& statement, int index, const std::string& text) {
  statement.bind(index, redact_secrets(text));
}
inline nlohmann::json column_json(const SQLite::Column& column) {
  if (column.isNull()) return nullptr;
  const std::string text = column.getString();
  if (text.empty()) return nullptr;
  return nlohmann::json::parse(text);
}
inline void bind_optional(SQLite::Statement& statement, int index, const std::optional<double>& v) {
  if (v) statement.bind(index, *v); else statement.bind(index);
}
inline void bind_optional(SQLite::Statement& statement, int index,
                          const std::optional<std::int64_t>& v) {
  if (v) statement.bind(index, *v); else statement.bind(index);
}

}  // namespace store_sql
}  // namespace kforge
