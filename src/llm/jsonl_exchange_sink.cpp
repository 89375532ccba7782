#include "llm/jsonl_exchange_sink.h"

#include <stdexcept>
#include <string>

#include "util/secrets.h"

namespace kforge::llm {

using nlohmann::json;

JsonlExchangeSink::JsonlExchangeSink(const std::filesystem::path& path) : path_(path) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  out_.open(path, std::ios::app | std::ios::binary);
  if (!out_) throw std::runtime_error("cannot open " + path.string() + " for writing");
}

void JsonlExchangeSink::record(const LlmExchange& exchange) {
  // Invalid UTF-8 in a reply must not make dump() throw: replace it instead.
  // Every configured secret is removed, whatever field it hides in.
  const std::string line = redact_secrets(
      redact_secrets_json(to_json(exchange)).dump(-1, ' ', false, json::error_handler_t::replace));
  std::lock_guard lock(mutex_);
  out_ << line << '\n';
  out_.flush();  // a crash loses at most the exchange being written
  if (!out_) throw std::runtime_error("cannot write to " + path_.string());
}

std::vector<LlmExchange> read_exchanges_jsonl(const std::filesystem::path& path, const NoticeFn& notices) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::vector<LlmExchange> exchanges;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json object = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded() || !object.is_object()) {
      notify(notices, NoticeLevel::Warning,
             path.string() + ":" + std::to_string(line_number) + ": not a JSON exchange record, skipped");
      continue;
    }
    exchanges.push_back(exchange_from_json(object));
  }
  return exchanges;
}

}  // namespace kforge::llm
