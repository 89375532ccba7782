// The OpenAI Chat Completions wire format, spoken by OpenAI and by most self-hosted servers
// (vLLM, llama.cpp server, Ollama, LM Studio): POST {base}/chat/completions.
#pragma once

#include "llm/wire_format.h"

namespace kforge::llm {

class OpenAiFormat : public WireFormat {
 public:
  std::string provider_name() const override { return "openai"; }
  std::string default_base_url() const override { return "https://api.openai.com/v1"; }
  std::string endpoint(const std::string& base_url) const override;
  std::vector<std::string> headers(const std::string& api_key) const override;
  nlohmann::json request_body(const std::string& model, const LlmRequest& request) const override;
  ParsedCompletion parse_reply(const std::string& body) const override;
  std::string error_message(const std::string& body) const override;

  // OpenAI's reasoning models (o1, o3, o4, gpt-5) reject `max_tokens` and `temperature`.
  static bool is_reasoning_model(const std::string& model);
};

}  // namespace kforge::llm
