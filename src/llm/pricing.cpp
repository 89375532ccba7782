#include "llm/pricing.h"

namespace kforge::llm {

PriceTable PriceTable::with_defaults(const std::map<std::string, ModelPrice>& overrides) {
  PriceTable table;
  // USD per million input / output tokens. Approximate list prices; override when they change.
  const std::map<std::string, ModelPrice> defaults = {
      {"gpt-4o", {2.50, 10.00}},
      {"gpt-4o-mini", {0.15, 0.60}},
      {"gpt-4.1", {2.00, 8.00}},
      {"gpt-4.1-mini", {0.40, 1.60}},
      {"gpt-4.1-nano", {0.10, 0.40}},
      {"gpt-5", {1.25, 10.00}},
      {"gpt-5-mini", {0.25, 2.00}},
      {"gpt-5-nano", {0.05, 0.40}},
      {"o1", {15.00, 60.00}},
      {"o3", {2.00, 8.00}},
      {"o3-mini", {1.10, 4.40}},
      {"o4-mini", {1.10, 4.40}},
      {"claude-opus-4", {15.00, 75.00}},
      {"claude-opus-4-5", {5.00, 25.00}},
      {"claude-sonnet-4", {3.00, 15.00}},
      {"claude-haiku-4-5", {1.00, 5.00}},
      {"claude-3-7-sonnet", {3.00, 15.00}},
      {"claude-3-5-sonnet", {3.00, 15.00}},
      {"claude-3-5-haiku", {0.80, 4.00}},
      {"claude-3-haiku", {0.25, 1.25}},
  };
  table.prices_ = defaults;
  for (const auto& [model, price] : overrides) table.prices_[model] = price;
  return table;
}

std::optional<ModelPrice> PriceTable::find(const std::string& model) const {
  // "openai/gpt-4o" (OpenRouter, LiteLLM style): price by the part after the last slash.
  const auto slash = model.rfind('/');
  const std::string bare = slash == std::string::npos ? model : model.substr(slash + 1);
  std::optional<ModelPrice> best;
  std::size_t best_length = 0;
  for (const auto& [prefix, price] : prices_) {
    if (prefix.size() >= best_length && bare.compare(0, prefix.size(), prefix) == 0) {
      best = price;
      best_length = prefix.size();
    }
  }
  return best;
}

std::optional<double> PriceTable::cost_usd(const std::string& model, std::int64_t input_tokens,
                                           std::int64_t output_tokens) const {
  const auto price = find(model);
  if (!price) return std::nullopt;
  return (static_cast<double>(input_tokens) * price->input_per_mtok +
          static_cast<double>(output_tokens) * price->output_per_mtok) /
         1e6;
}

}  // namespace kforge::llm
