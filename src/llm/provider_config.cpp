#include "llm/provider_config.h"

namespace kforge::llm {

std::string to_string(ProviderKind kind) {
  switch (kind) {
    case ProviderKind::OpenAi: return "openai";
    case ProviderKind::Anthropic: return "anthropic";
    case ProviderKind::Replay: return "replay";
  }
  return "unknown";
}

std::string ProviderConfig::describe() const {
  if (kind == ProviderKind::Replay) return "replay:" + replay_path.string();
  std::string text = to_string(kind) + ":" + model;
  if (!base_url.empty()) text += " @ " + base_url;
  return text;
}

bool is_local_url(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return false;
  const std::string rest = url.substr(scheme_end + 3);
  for (const char* host : {"localhost", "127.", "[::1]", "0.0.0.0"}) {
    if (rest.rfind(host, 0) == 0) return true;
  }
  return false;
}

}  // namespace kforge::llm
