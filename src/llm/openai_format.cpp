#include "llm/openai_format.h"

namespace kforge::llm {

using nlohmann::json;

std::string OpenAiFormat::endpoint(const std::string& base_url) const {
  return join_url(base_url, "chat/completions");
}

std::vector<std::string> OpenAiFormat::headers(const std::string& api_key) const {
  std::vector<std::string> lines = {"Content-Type: application/json", "Accept: application/json"};
  // Local servers run without a key; sending "Bearer " with nothing after it confuses some.
  if (!api_key.empty()) lines.push_back("Authorization: Bearer " + api_key);
  return lines;
}

bool OpenAiFormat::is_reasoning_model(const std::string& model) {
  const auto slash = model.rfind('/');
  const std::string bare = slash == std::string::npos ? model : model.substr(slash + 1);
  for (const char* prefix : {"o1", "o3", "o4", "gpt-5"}) {
    if (bare.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

json OpenAiFormat::request_body(const std::string& model, const LlmRequest& request) const {
  json messages = json::array();
  if (!request.system.empty()) messages.push_back({{"role", "system"}, {"content", request.system}});
  for (const auto& message : request.messages) {
    messages.push_back({{"role", message.role}, {"content", message.content}});
  }
  json body = {{"model", model}, {"messages", messages}};
  if (is_reasoning_model(model)) {
    body["max_completion_tokens"] = request.max_tokens;
  } else {
    body["max_tokens"] = request.max_tokens;
    body["temperature"] = request.temperature;
  }
  return body;
}

namespace {

// `content` is a string in OpenAI's replies; some compatible servers send a list of parts.
std::string content_text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array()) {
    for (const auto& part : content) {
      if (part.is_object() && string_field(part, "type") == "text" && part.contains("text") &&
          part["text"].is_string()) {
        text += part["text"].get<std::string>();
      }
    }
  }
  return text;
}

std::int64_t int_field(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return 0;
  return object[key].get<std::int64_t>();
}

}  // namespace

ParsedCompletion OpenAiFormat::parse_reply(const std::string& body) const {
  ParsedCompletion parsed;
  const json reply = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (reply.is_discarded() || !reply.is_object()) {
    parsed.error = "invalid JSON in reply (" + std::to_string(body.size()) +
                   " bytes): " + body_excerpt(body, 120);
    return parsed;
  }
  if (reply.contains("usage") && reply["usage"].is_object()) {
    parsed.input_tokens = int_field(reply["usage"], "prompt_tokens");
    parsed.output_tokens = int_field(reply["usage"], "completion_tokens");
  }
  if (reply.contains("error")) {
    parsed.error = "error in reply: " + error_message(body);
    return parsed;
  }
  const json& choices = reply.contains("choices") ? reply["choices"] : json();
  if (!choices.is_array() || choices.empty() || !choices[0].is_object()) {
    parsed.error = "reply has no choices: " + body_excerpt(body, 120);
    return parsed;
  }
  const json& choice = choices[0];
  if (choice.contains("finish_reason") && choice["finish_reason"].is_string()) {
    parsed.finish_reason = choice["finish_reason"].get<std::string>();
  }
  const json& message = choice.contains("message") ? choice["message"] : json();
  if (message.is_object() && message.contains("content")) {
    parsed.text = content_text(message["content"]);
  }
  if (parsed.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    parsed.text.clear();
    if (message.is_object() && message.contains("refusal") && message["refusal"].is_string()) {
      parsed.error = "model refused: " + body_excerpt(message["refusal"].get<std::string>());
    } else {
      parsed.error = "empty reply (finish_reason: " +
                     (parsed.finish_reason.empty() ? "none" : parsed.finish_reason) + ")";
    }
  }
  return parsed;
}

std::string OpenAiFormat::error_message(const std::string& body) const {
  const json reply = json::parse(body, nullptr, false);
  if (!reply.is_discarded() && reply.is_object() && reply.contains("error")) {
    const json& error = reply["error"];
    if (error.is_object() && error.contains("message") && error["message"].is_string()) {
      return body_excerpt(error["message"].get<std::string>(), 300);
    }
    if (error.is_string()) return body_excerpt(error.get<std::string>(), 300);  // Ollama
  }
  return body_excerpt(body, 300);
}

}  // namespace kforge::llm
