// Exchanges as JSON lines (one LlmExchange per line, in call order, in its one JSON mapping of
// core/llm_exchange.h): the file format of `exchanges.jsonl`, which the replay provider reads back.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

#include "llm/exchange_sink.h"

namespace kforge::llm {

class JsonlExchangeSink : public ExchangeSink {
 public:
  // Appends to `path` (creating it and its folder); throws std::runtime_error if it cannot.
  explicit JsonlExchangeSink(const std::filesystem::path& path);
  void record(const LlmExchange& exchange) override;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::mutex mutex_;
  std::ofstream out_;
};

// Reads a file written by JsonlExchangeSink. A line that does not parse (e.g. the last line of
// a run that was killed mid-write) is skipped with a warning to `notices`; a missing file throws.
std::vector<LlmExchange> read_exchanges_jsonl(const std::filesystem::path& path, const NoticeFn& notices = {});

}  // namespace kforge::llm
