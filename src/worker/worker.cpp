#include "worker/worker.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "util/files.h"
#include "worker/compile_mode.h"
#include "protocol/worker_protocol.h"
#include "worker/session.h"

namespace kforge {
namespace {
using nlohmann::json;

// The protocol owns the real stdout; anything kernels or runtimes print goes to stderr.
FILE* take_protocol_stream() {
  const int protocol_fd = ::dup(STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  return ::fdopen(protocol_fd, "w");
}

void reply(FILE* out, const json& message) {
  const std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  std::fputs(line.c_str(), out);
  std::fflush(out);
}

struct Options {
  Language language = Language::OpenCL;
  int device = 0;
  std::string oneshot;  // request file: answer it and exit (a profiler's target process)
  bool compile_only = false;  // the sandboxed compiler: no device (worker/compile_mode.h)
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--compile-only") {
      options.compile_only = true;
      continue;
    }
    if (i + 1 >= argc) break;
    if (flag == "--backend") {
      auto language = parse_language(argv[++i]);
      if (!language) throw std::runtime_error(std::string("unknown backend ") + argv[i]);
      options.language = *language;
    } else if (flag == "--device") {
      options.device = std::stoi(argv[++i]);
    } else if (flag == "--oneshot") {
      options.oneshot = argv[++i];
    }
  }
  return options;
}

// Profilers (ncu, rocprofv3) launch the process they profile themselves, so they cannot
// use the orchestrator's pipes: read the one request from a file, answer on stdout, exit.
int answer_oneshot(WorkerSession& session, const std::string& request_file, FILE* out) {
  try {
    const json reply_message = session.handle(json::parse(read_file(request_file)));
    reply(out, reply_message);
    return reply_message.value("ok", false) ? 0 : 1;
  } catch (const std::exception& e) {
    reply(out, error_reply(e.what()));
    return 1;
  }
}
}  // namespace

int run_worker(int argc, char** argv) {
  // Keep freed memory in the heap: every check allocates and frees host buffers of the same
  // large sizes, and returning them to the kernel makes each check pay the page faults again.
  ::mallopt(M_MMAP_MAX, 0);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  FILE* out = take_protocol_stream();
  std::unique_ptr<WorkerSession> session;
  try {
    const Options options = parse_options(argc, argv);
    if (options.compile_only) return run_compile_worker(options.language, options.device, out);
    session = std::make_unique<WorkerSession>(options.language, options.device);
    if (!options.oneshot.empty()) return answer_oneshot(*session, options.oneshot, out);
    reply(out, ready_reply());
  } catch (const std::exception& e) {
    reply(out, error_reply(std::string("worker could not open the device: ") + e.what()));
    return 2;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json request;
    try {
      request = json::parse(line);
    } catch (const std::exception& e) {
      reply(out, error_reply(std::string("malformed request: ") + e.what()));
      continue;
    }
    if (request.value("op", "") == worker_ops::kExit) break;
    try {
      reply(out, session->handle(request));
    } catch (const DeviceError& e) {
      reply(out, error_reply(e.what(), e.context_lost));
      // A poisoned context makes every later answer wrong: leave and let the orchestrator
      // start a fresh worker.
      if (e.context_lost) return 3;
    } catch (const std::exception& e) {
      reply(out, error_reply(e.what()));
    }
  }
  return 0;
}

}  // namespace kforge
