#include "store/store_error.h"

#include <sqlite3.h>

namespace kforge {

std::string describe_sqlite_failure(int extended_code, const std::string& sqlite_message,
                                    const std::filesystem::path& database,
                                    const std::string& action) {
  const std::string db = database.string();
  switch (extended_code & 0xff) {  // the primary code decides the advice
    case SQLITE_FULL:
      return "disk full while " + action + " " + db + "; free some space and resume the run";
    case SQLITE_IOERR:
      return "I/O error while " + action + " " + db + " (" + sqlite_message +
             "); check the disk and resume the run";
    case SQLITE_READONLY:
      return db + " is read-only; check the permissions of the run folder";
    case SQLITE_CANTOPEN:
      return "cannot open " + db + " (" + sqlite_message + "); check that the folder exists and is writable";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return db + " is locked by another process (is another kforge running on this folder?)";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return db + " is corrupt or not a SQLite database (" + sqlite_message + ")";
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return "permission denied while " + action + " " + db;
    default:
      return "database error while " + action + " " + db + ": " + sqlite_message;
  }
}

}  // namespace kforge
