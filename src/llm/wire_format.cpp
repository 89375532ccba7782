#include "llm/wire_format.h"

namespace kforge::llm {

std::string join_url(const std::string& base, const std::string& path) {
  std::string joined = base;
  while (!joined.empty() && joined.back() == '/') joined.pop_back();
  if (!path.empty() && path.front() != '/') joined += '/';
  return joined + path;
}

std::string body_excerpt(const std::string& body, std::size_t max_chars) {
  std::string excerpt;
  for (char c : body) {
    if (excerpt.size() >= max_chars) {
      excerpt += "...";
      break;
    }
    excerpt += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  }
  return excerpt.empty() ? "(empty body)" : excerpt;
}

std::string string_field(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return "";
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

}  // namespace kforge::llm
