// The Anthropic Messages API wire format: POST {base}/v1/messages, key in x-api-key, system
// prompt as a top-level field rather than a message.
#pragma once

#include "llm/wire_format.h"

namespace kforge::llm {

class AnthropicFormat : public WireFormat {
 public:
  static constexpr const char* kApiVersion = "2023-06-01";

  std::string provider_name() const override { return "anthropic"; }
  std::string default_base_url() const override { return "https://api.anthropic.com"; }
  std::string endpoint(const std::string& base_url) const override;
  std::vector<std::string> headers(const std::string& api_key) const override;
  nlohmann::json request_body(const std::string& model, const LlmRequest& request) const override;
  ParsedCompletion parse_reply(const std::string& body) const override;
  std::string error_message(const std::string& body) const override;
};

}  // namespace kforge::llm
