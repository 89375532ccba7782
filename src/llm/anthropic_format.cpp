#include "llm/anthropic_format.h"

namespace kforge::llm {

using nlohmann::json;

std::string AnthropicFormat::endpoint(const std::string& base_url) const {
  return join_url(base_url, "v1/messages");
}

std::vector<std::string> AnthropicFormat::headers(const std::string& api_key) const {
  std::vector<std::string> lines = {"Content-Type: application/json", "Accept: application/json",
                                    std::string("anthropic-version: ") + kApiVersion};
  if (!api_key.empty()) lines.push_back("x-api-key: " + api_key);
  return lines;
}

json AnthropicFormat::request_body(const std::string& model, const LlmRequest& request) const {
  // The Messages API has no "system" role: such messages join the top-level system prompt.
  std::string system = request.system;
  json messages = json::array();
  for (const auto& message : request.messages) {
    if (message.role == "system") {
      system += (system.empty() ? "" : "\n\n") + message.content;
    } else {
      messages.push_back({{"role", message.role}, {"content", message.content}});
    }
  }
  json body = {{"model", model},
               {"max_tokens", request.max_tokens},
               {"temperature", request.temperature},
               {"messages", messages}};
  if (!system.empty()) body["system"] = system;
  return body;
}

ParsedCompletion AnthropicFormat::parse_reply(const std::string& body) const {
  ParsedCompletion parsed;
  const json reply = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (reply.is_discarded() || !reply.is_object()) {
    parsed.error = "invalid JSON in reply (" + std::to_string(body.size()) +
                   " bytes): " + body_excerpt(body, 120);
    return parsed;
  }
  if (reply.contains("usage") && reply["usage"].is_object()) {
    const json& usage = reply["usage"];
    auto count = [&](const char* key) -> std::int64_t {
      return usage.contains(key) && usage[key].is_number() ? usage[key].get<std::int64_t>() : 0;
    };
    // Cached prompt tokens are reported apart from input_tokens; they are still input.
    parsed.input_tokens = count("input_tokens") + count("cache_creation_input_tokens") +
                          count("cache_read_input_tokens");
    parsed.output_tokens = count("output_tokens");
  }
  if (string_field(reply, "type") == "error") {
    parsed.error = "error in reply: " + error_message(body);
    return parsed;
  }
  if (reply.contains("stop_reason") && reply["stop_reason"].is_string()) {
    parsed.finish_reason = reply["stop_reason"].get<std::string>();
  }
  if (!reply.contains("content") || !reply["content"].is_array()) {
    parsed.error = "reply has no content: " + body_excerpt(body, 120);
    return parsed;
  }
  // Only text blocks are the answer; thinking and tool blocks are skipped.
  for (const auto& block : reply["content"]) {
    if (block.is_object() && string_field(block, "type") == "text" && block.contains("text") &&
        block["text"].is_string()) {
      parsed.text += block["text"].get<std::string>();
    }
  }
  if (parsed.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    parsed.text.clear();
    parsed.error = "empty reply (stop_reason: " +
                   (parsed.finish_reason.empty() ? "none" : parsed.finish_reason) + ")";
  }
  return parsed;
}

std::string AnthropicFormat::error_message(const std::string& body) const {
  const json reply = json::parse(body, nullptr, false);
  if (!reply.is_discarded() && reply.is_object() && reply.contains("error") &&
      reply["error"].is_object()) {
    const json& error = reply["error"];
    std::string message = string_field(error, "type");
    if (error.contains("message") && error["message"].is_string()) {
      message += (message.empty() ? "" : ": ") + error["message"].get<std::string>();
    }
    if (!message.empty()) return body_excerpt(message, 300);
  }
  return body_excerpt(body, 300);
}

}  // namespace kforge::llm
