#include "worker/compile_mode.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/backend.h"
#include "backend/compile_protocol.h"

namespace kforge {
namespace {
using nlohmann::json;

// Set once before any compile; read by the fatal-signal handler.
int g_protocol_fd = -1;
rlim_t g_address_limit = RLIM_INFINITY;
constexpr char kOutOfMemoryLine[] =
    "{\"ok\":false,\"out_of_memory\":true,\"error\":\"compiler ran out of memory\"}\n";

// Address space in use, from /proc/self/statm; async-signal-safe (open/read/close only).
rlim_t address_space_bytes() {
  const int fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[64] = {};
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  rlim_t pages = 0;
  for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9'; ++i) pages = pages * 10 + static_cast<rlim_t>(text[i] - '0');
  return pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
}

// A compiler that hits the address-space limit dies of it: LLVM reports "out of memory" and
// abort()s (errno still ENOMEM), or faults on a failed allocation near the limit. Tell that
// apart from a real crash (a stack overflow on a deep expression is a small process), say
// which on the protocol line, and leave; otherwise die of the signal, as the orchestrator
// expects of a crash.
void on_fatal_signal(int sig) {
  const int saved_errno = errno;
  const bool near_limit = g_address_limit != RLIM_INFINITY && address_space_bytes() > g_address_limit / 4 * 3;
  if (g_protocol_fd >= 0 && ((sig == SIGABRT && saved_errno == ENOMEM) || near_limit)) {
    [[maybe_unused]] const ssize_t ignored = ::write(g_protocol_fd, kOutOfMemoryLine, sizeof kOutOfMemoryLine - 1);
    ::_exit(4);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_fatal_signal_handlers(int protocol_fd) {
  g_protocol_fd = protocol_fd;
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) == 0) g_address_limit = limit.rlim_cur;
  // The handler must run even when the compiler overflowed its stack.
  static std::vector<char> alternate_stack(1 << 16);
  stack_t stack{};
  stack.ss_sp = alternate_stack.data();
  stack.ss_size = alternate_stack.size();
  ::sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE}) ::sigaction(sig, &action, nullptr);
}

void reply(std::FILE* out, const json& message) {
  const std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::fputs(line.c_str(), out);
  std::fflush(out);
}
}  // namespace

int run_compile_worker(Language language, int device_index, std::FILE* out) {
  ::prctl(PR_SET_NAME, "kforge-compile");  // tells it from the run worker in ps and top
  std::unique_ptr<Backend> backend = make_backend(language);
  if (!backend) {
    reply(out, {{"ok", false}, {"error", "no compiler for " + to_string(language)}, {"environment", true}});
    return 2;
  }
  try {
    // OpenCL: platform and device now, once; CUDA: nothing (Backend::prepare_compile_worker).
    backend->prepare_compile_worker(device_index);
  } catch (const std::exception& e) {
    reply(out, {{"ok", false}, {"error", e.what()}, {"environment", true}});
    return 2;
  }
  install_fatal_signal_handlers(::fileno(out));
  reply(out, {{"ok", true}, {"ready", true}, {"mode", "compile"}});
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    try {
      const json request = json::parse(line);
      const std::string op = request.value("op", "");
      if (op == "exit") break;
      if (op != "compile") {
        reply(out, {{"ok", false}, {"error", "unknown request '" + op + "' (compile-only worker)"}});
        continue;
      }
      const CompileResult result =
          backend->compile_uncached(compile_request_from_json(request), compile_target_from_json(request));
      reply(out, {{"ok", true}, {"result", compile_result_json(result)}});
    } catch (const std::bad_alloc&) {
      std::fputs(kOutOfMemoryLine, out);  // the heap may be exhausted: no JSON building
      std::fflush(out);
      return 4;
    } catch (const std::exception& e) {
      reply(out, {{"ok", false}, {"error", e.what()}});
    }
  }
  return 0;
}

}  // namespace kforge
