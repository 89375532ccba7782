#include "util/secrets.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>

extern char** environ;

namespace kforge {
namespace {

struct SecretSet {
  std::mutex mutex;
  bool environment_read = false;
  std::vector<std::string> values;  // longest first, so a key that contains another goes whole

  void add_locked(std::string_view value) {
    if (value.size() < kMinSecretLength) return;
    if (std::find(values.begin(), values.end(), value) != values.end()) return;
    values.emplace_back(value);
    std::stable_sort(values.begin(), values.end(),
                     [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  }

  void read_environment_locked() {
    if (environment_read) return;
    environment_read = true;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const std::string_view variable(*entry);
      const auto equals = variable.find('=');
      if (equals == std::string_view::npos) continue;
      if (looks_like_secret_name(variable.substr(0, equals))) add_locked(variable.substr(equals + 1));
    }
  }
};

SecretSet& secret_set() {
  static SecretSet set;
  return set;
}

std::string upper(std::string_view text) {
  std::string result(text);
  for (char& c : result) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return result;
}

}  // namespace

bool looks_like_secret_name(std::string_view name) {
  const std::string upper_name = upper(name);
  for (const char* marker : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE"})
    if (upper_name.find(marker) != std::string::npos) return true;
  return false;
}

void register_secret(std::string_view value) {
  SecretSet& set = secret_set();
  std::lock_guard lock(set.mutex);
  set.read_environment_locked();
  set.add_locked(value);
}

std::vector<std::string> configured_secrets() {
  SecretSet& set = secret_set();
  std::lock_guard lock(set.mutex);
  set.read_environment_locked();
  return set.values;
}

std::string redact_secrets(std::string text) {
  if (text.size() < kMinSecretLength) return text;
  for (const std::string& secret : configured_secrets()) {
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + std::strlen(kRedacted)))
      text.replace(at, secret.size(), kRedacted);
  }
  return text;
}

nlohmann::json redact_secrets_json(nlohmann::json value) {
  if (value.is_string()) return redact_secrets(value.get<std::string>());
  if (value.is_array()) {
    for (auto& element : value) element = redact_secrets_json(std::move(element));
    return value;
  }
  if (value.is_object()) {
    nlohmann::json result = nlohmann::json::object();
    for (auto& [key, element] : value.items()) result[redact_secrets(key)] = redact_secrets_json(element);
    return result;
  }
  return value;
}

}  // namespace kforge
