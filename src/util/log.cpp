#include "util/log.h"
#include "util/secrets.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace kforge::log {
namespace {
Level g_level = Level::Normal;
std::mutex g_mutex;
bool g_progress_open = false;  // a progress line without newline is on screen

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

void close_progress_line() {
  if (g_progress_open) {
    std::fputc('\n', stderr);
    g_progress_open = false;
  }
}
}  // namespace

void set_level(Level new_level) { g_level = new_level; }
Level level() { return g_level; }
bool color_enabled() { return stderr_is_terminal() && std::getenv("NO_COLOR") == nullptr; }

void write_line(Level minimum, const std::string& line) {
  if (static_cast<int>(g_level) < static_cast<int>(minimum)) return;
  const std::string shown = redact_secrets(line);  // no configured key is ever printed
  std::lock_guard lock(g_mutex);
  close_progress_line();
  std::fputs(shown.c_str(), stderr);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

void step(int index, int total, const std::string& title) {
  const bool color = color_enabled();
  write_line(Level::Normal, fmt::format("{}[{}/{}] {}{}", color ? "\033[1;36m" : "", index, total,
                                        title, color ? "\033[0m" : ""));
}

void progress(const std::string& label, std::size_t done, std::size_t total) {
  if (g_level == Level::Quiet || total == 0) return;
  std::lock_guard lock(g_mutex);
  const int width = 30;
  const int filled = static_cast<int>(width * done / total);
  const std::string bar = std::string(filled, '#') + std::string(width - filled, '.');
  if (stderr_is_terminal()) {
    std::fprintf(stderr, "\r%s [%s] %zu/%zu", label.c_str(), bar.c_str(), done, total);
    g_progress_open = done < total;
    if (done == total) std::fputc('\n', stderr);
  } else {
    // Non-terminal: one line at each 10% step, so logs stay readable.
    const std::size_t step_now = done * 10 / total;
    const std::size_t step_before = done == 0 ? 0 : (done - 1) * 10 / total;
    if (done == total || step_now != step_before || done == 1)
      std::fprintf(stderr, "%s [%s] %zu/%zu\n", label.c_str(), bar.c_str(), done, total);
  }
  std::fflush(stderr);
}

}  // namespace kforge::log
