// The one exception type the run store throws: a one-line, user-facing message.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace kforge {

struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Turns an SQLite result code into a message a user can act on, e.g.
// "disk full while writing runs/x/run.db". `action` is what the store was doing
// ("writing", "reading", "opening").
std::string describe_sqlite_failure(int extended_code, const std::string& sqlite_message,
                                    const std::filesystem::path& database,
                                    const std::string& action);

}  // namespace kforge
