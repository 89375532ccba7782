#include "worker/sandbox_report.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace kforge {
namespace {
using nlohmann::json;

json limit_json(int resource) {
  rlimit limit{};
  if (::getrlimit(resource, &limit) != 0) return nullptr;
  if (limit.rlim_cur == RLIM_INFINITY) return "unlimited";
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

// "connected", or the error connect() gave.
std::string try_connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::string("socket: ") + std::strerror(errno);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const std::string outcome = rc == 0 ? "connected" : std::string("connect: ") + std::strerror(errno);
  ::close(fd);
  return outcome;
}
}  // namespace

json sandbox_report(const json& request) {
  std::error_code error;
  const char* tmpdir = std::getenv("TMPDIR");
  json report = {{"ok", true},
                 {"cwd", std::filesystem::current_path(error).string()},
                 {"tmpdir", tmpdir ? tmpdir : ""},
                 {"pid", ::getpid()},
                 {"pgid", ::getpgrp()},
                 {"net_namespace", std::filesystem::read_symlink("/proc/self/ns/net", error).string()},
                 {"rlimit_core", limit_json(RLIMIT_CORE)},
                 {"rlimit_fsize", limit_json(RLIMIT_FSIZE)},
                 {"rlimit_as", limit_json(RLIMIT_AS)}};
  if (request.contains("connect_port")) report["connect"] = try_connect(request.at("connect_port").get<int>());
  return report;
}

}  // namespace kforge
