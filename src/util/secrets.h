// The set of configured secrets (API keys, tokens, passwords) and the one function that
// removes them from text. Applied wherever text leaves a sandboxed process or leaves kforge:
// worker replies, the run store, exchanges.jsonl, the console and requests to the LLM. A
// candidate that somehow learns a key and echoes it in an error must not get it stored,
// printed or sent back to the LLM server in a repair prompt.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace kforge {

// What replaces a secret in redacted text.
inline constexpr const char* kRedacted = "[REDACTED]";

// Secret values shorter than this are not registered: redacting "1" or "true" everywhere
// would destroy ordinary text, and such values are not keys.
inline constexpr std::size_t kMinSecretLength = 8;

// An environment variable name that holds a credential: *KEY*, *TOKEN*, *SECRET*,
// *PASSWORD*, *PASSWD*, *CREDENTIAL*, *PRIVATE* (case-insensitive), e.g. OPENAI_API_KEY,
// KFORGE_ANTHROPIC_API_KEY, HF_TOKEN, AWS_SECRET_ACCESS_KEY.
bool looks_like_secret_name(std::string_view name);

// Adds a value to the set (ignored when shorter than kMinSecretLength). Provider configs
// call this with the key they were given, wherever it came from. Thread-safe.
void register_secret(std::string_view value);

// The set: values of every environment variable whose name looks like a secret (read once,
// on first use) plus every registered value. Longest first.
std::vector<std::string> configured_secrets();

// Text with every configured secret replaced by kRedacted.
std::string redact_secrets(std::string text);
// The same over every string (and object key) inside a JSON value.
nlohmann::json redact_secrets_json(nlohmann::json value);

}  // namespace kforge
