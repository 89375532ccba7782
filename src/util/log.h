// Console logging: step banners, candidate lines and progress bars go to stderr so that
// --json output on stdout stays machine-readable.
#pragma once

#include <fmt/format.h>

#include <string>

namespace kforge::log {

enum class Level { Quiet = 0, Normal = 1, Verbose = 2 };
void set_level(Level level);
Level level();
bool color_enabled();

void write_line(Level minimum, const std::string& line);

template <typename... Args>
void info(fmt::format_string<Args...> format, Args&&... args) {
  write_line(Level::Normal, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void verbose(fmt::format_string<Args...> format, Args&&... args) {
  write_line(Level::Verbose, fmt::format(format, std::forward<Args>(args)...));
}
// Warnings and errors print even in quiet mode.
template <typename... Args>
void warn(fmt::format_string<Args...> format, Args&&... args) {
  write_line(Level::Quiet, "warning: " + fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void error(fmt::format_string<Args...> format, Args&&... args) {
  write_line(Level::Quiet, "error: " + fmt::format(format, std::forward<Args>(args)...));
}

// "[2/6] profile" banner.
void step(int index, int total, const std::string& title);
// Redraws one progress line in place on a terminal; prints every 10% otherwise.
void progress(const std::string& label, std::size_t done, std::size_t total);

}  // namespace kforge::log
