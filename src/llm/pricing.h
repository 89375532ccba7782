// What a call costs. Prices are USD per million tokens, as published by the vendors; they
// change, so the table can be overridden from the config file or the environment.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace kforge::llm {

struct ModelPrice {
  double input_per_mtok = 0;
  double output_per_mtok = 0;
};

class PriceTable {
 public:
  // The built-in table (approximate list prices); `overrides` replace or add entries.
  static PriceTable with_defaults(const std::map<std::string, ModelPrice>& overrides = {});

  void set(const std::string& model_prefix, ModelPrice price) { prices_[model_prefix] = price; }

  // Longest-prefix match, so dated snapshots ("claude-sonnet-4-20250514") and
  // provider-prefixed names ("openai/gpt-4o") find their family's price.
  std::optional<ModelPrice> find(const std::string& model) const;

  // nullopt when the model is unknown (callers report cost 0 and say so).
  std::optional<double> cost_usd(const std::string& model, std::int64_t input_tokens,
                                 std::int64_t output_tokens) const;

 private:
  std::map<std::string, ModelPrice> prices_;
};

}  // namespace kforge::llm
