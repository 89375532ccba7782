// `kforge sweep TASK`: evaluates every valid configuration of the tunable parameters: the
// exhaustive optimum that the search is benchmarked against, and a tuning table for engineers.
#include <fmt/format.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/interrupts.h"
#include "cli/eval_flag_options.h"
#include "search/param_space.h"
#include "util/log.h"

namespace kforge::cli {
namespace {
struct SweepArgs {
  std::string path;
  std::size_t limit = 5000;
  std::string shard;  // "K/N": every N-th configuration from the K-th (0-based)
  bool json = false;
  EvalFlags eval;
};

struct SweepRow {
  std::string key;
  EvalResult result;
};

// "K/N" -> {K, N}; {0, 1} when empty. Throws CLI::ValidationError on anything else.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& text) {
  if (text.empty()) return {0, 1};
  std::size_t index = 0, count = 0;
  char slash = 0, tail = 0;
  if (std::sscanf(text.c_str(), "%zu %c %zu %c", &index, &slash, &count, &tail) != 3 || slash != '/' || count == 0 ||
      index >= count)
    throw CLI::ValidationError("--shard", "'" + text + "' is not K/N with 0 <= K < N (e.g. 0/3)");
  return {index, count};
}

std::vector<SweepRow> sweep(Evaluator& evaluator, std::size_t limit, std::pair<std::size_t, std::size_t> shard) {
  const ParamSpace space(evaluator.task());
  std::vector<KernelVariant> variants;
  const auto all = space.enumerate(limit);
  for (std::size_t i = shard.first; i < all.size(); i += shard.second) {
    const ParamValues& params = all[i];
    KernelVariant variant = evaluator.baseline_variant();
    variant.params = params;
    variants.push_back(std::move(variant));
  }
  log::info("{}: {} configurations", evaluator.task().name, variants.size());
  const std::vector<CompileResult> compiled = evaluator.compile_all(variants);
  std::vector<SweepRow> rows;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    rows.push_back({space.key(variants[i].params), evaluator.evaluate_compiled(variants[i], compiled[i])});
    log::progress("  sweep", i + 1, variants.size());
  }
  return rows;
}
}  // namespace

Action setup_sweep(CLI::App& sub) {
  auto args = std::make_shared<SweepArgs>();
  sub.add_option("task", args->path, "Manifest, task folder or kernel file")->required();
  sub.add_option("--limit", args->limit, "At most this many configurations")->capture_default_str();
  sub.add_option("--shard", args->shard,
                 "K/N: only every N-th configuration from the K-th (0-based), so N machines or calls "
                 "share one sweep; their --json outputs concatenate");
  sub.add_flag("--json", args->json, "Machine-readable output");
  add_eval_flags(sub, args->eval);
  return [args] {
    install_interrupt_handling();  // before any thread: Ctrl-C leaves no worker behind
    const auto shard = parse_shard(args->shard);
    nlohmann::json all = nlohmann::json::array();
    for (const Task& task : load_tasks(args->path)) {
      Evaluator evaluator(task, eval_options(args->eval, task.kernel.language));
      std::vector<SweepRow> rows = sweep(evaluator, args->limit, shard);
      std::stable_sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) {
        const bool a_ok = a.result.timing.has_value(), b_ok = b.result.timing.has_value();
        if (a_ok != b_ok) return a_ok;
        return a_ok && a.result.speedup > b.result.speedup;
      });
      nlohmann::json entries = nlohmann::json::array();
      for (const auto& row : rows) {
        nlohmann::json entry = to_json(candidate_metrics(row.result));
        entry["config"] = row.key;
        entries.push_back(entry);
        if (!args->json)
          fmt::print("{:<48} {:<13} {}\n", row.key, to_string(row.result.status),
                     row.result.timing ? fmt::format("{:.4f} ms  {:.2f}x  {:.1f} GB/s", row.result.timing->median_ms,
                                                     row.result.speedup, row.result.gbps)
                                       : row.result.message.substr(0, 80));
      }
      all.push_back({{"task", task.name}, {"device", evaluator.device().info}, {"copy_gbps", evaluator.device().copy_gbps},
                     {"configurations", entries}});
    }
    if (args->json) fmt::print("{}\n", all.dump(2));
    return 0;
  };
}

}  // namespace kforge::cli
