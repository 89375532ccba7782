// A minimal HTTPS POST over libcurl: one easy handle per call, so it is safe to use from many
// threads at once without sharing state.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kforge::llm {

struct HttpRequest {
  std::string url;
  // "Name: value" lines. Secrets (API keys) go here and nowhere else: nothing in this module
  // logs or stores headers.
  std::vector<std::string> headers;
  std::string body;
  std::chrono::milliseconds connect_timeout{10000};
  // Whole transfer, connect included; this is what unsticks a server that stops talking.
  std::chrono::milliseconds total_timeout{300000};
  std::size_t max_response_bytes = 64u << 20;  // a runaway body is cut off, not buffered
};

struct HttpResponse {
  int status = 0;    // 0 when no HTTP response arrived
  std::string body;
  std::optional<std::chrono::milliseconds> retry_after;  // from a Retry-After header
  std::string transport_error;  // curl's reason when the transfer failed; empty otherwise
  bool timed_out = false;
  bool too_large = false;  // cut off at max_response_bytes

  bool transport_ok() const { return transport_error.empty(); }
};

HttpResponse http_post(const HttpRequest& request);

// Retry-After is either delta-seconds or an HTTP-date; nullopt when it is neither.
std::optional<std::chrono::milliseconds> parse_retry_after(const std::string& value);

}  // namespace kforge::llm
