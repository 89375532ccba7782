// What differs between LLM HTTP APIs: the endpoint, the headers, the request body and how a
// reply is read. Everything else (retries, accounting, recording) lives in HttpLlmProvider.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "llm/types.h"

namespace kforge::llm {

// A successful (2xx) body read into the parts we use. `error` is set when the body is not a
// usable reply (invalid JSON, no text); usage is still filled in when the body reports it,
// because a reply that turned out empty is billed all the same.
struct ParsedCompletion {
  std::string text;
  std::string finish_reason;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::string error;
};

class WireFormat {
 public:
  virtual ~WireFormat() = default;
  virtual std::string provider_name() const = 0;
  virtual std::string default_base_url() const = 0;
  virtual std::string endpoint(const std::string& base_url) const = 0;
  // Includes the authentication header when api_key is non-empty.
  virtual std::vector<std::string> headers(const std::string& api_key) const = 0;
  virtual nlohmann::json request_body(const std::string& model, const LlmRequest& request) const = 0;
  virtual ParsedCompletion parse_reply(const std::string& body) const = 0;
  // The human-readable message of an error body, or a short excerpt of the body.
  virtual std::string error_message(const std::string& body) const = 0;
};

// Helpers shared by the formats.
std::string join_url(const std::string& base, const std::string& path);  // no doubled '/'
std::string body_excerpt(const std::string& body, std::size_t max_chars = 200);  // one line
// object[key] when it is a string, else "" (json::value would throw on a non-string).
std::string string_field(const nlohmann::json& object, const char* key);

}  // namespace kforge::llm
