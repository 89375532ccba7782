#include "cli/optimize_flags.h"

#include <functional>
#include <utility>
#include <vector>

#include "cli/eval_flag_options.h"

namespace kforge::cli {
namespace {

using optimize::RunConfig;

// Each flag that sets part of the run's configuration, with how it copies that part.
const std::vector<std::pair<const char*, std::function<void(RunConfig&, const OptimizeFlags&)>>>& config_flags() {
  static const std::vector<std::pair<const char*, std::function<void(RunConfig&, const OptimizeFlags&)>>> flags = {
      {"--generations", [](RunConfig& c, const OptimizeFlags& f) { c.evolution.generations = f.config.evolution.generations; }},
      {"--population", [](RunConfig& c, const OptimizeFlags& f) { c.evolution.population = f.config.evolution.population; }},
      {"--target", [](RunConfig& c, const OptimizeFlags& f) { c.evolution.target_speedup = f.config.evolution.target_speedup; }},
      {"--time-budget", [](RunConfig& c, const OptimizeFlags& f) { c.evolution.time_budget_s = f.config.evolution.time_budget_s; }},
      {"--seed", [](RunConfig& c, const OptimizeFlags& f) { c.evolution.seed = f.config.evolution.seed; }},
      {"--llm", [](RunConfig& c, const OptimizeFlags& f) { c.llm_spec = f.config.llm_spec; }},
      {"--llm-budget-usd", [](RunConfig& c, const OptimizeFlags& f) { c.llm_budget_usd = f.config.llm_budget_usd; }},
      {"--llm-budget-tokens", [](RunConfig& c, const OptimizeFlags& f) { c.llm_budget_tokens = f.config.llm_budget_tokens; }},
      {"--llm-only", [](RunConfig& c, const OptimizeFlags& f) { c.llm_only = f.config.llm_only; }},
      {"--no-counters", [](RunConfig& c, const OptimizeFlags& f) { c.profile_counters = !f.no_counters; }},
      {"--timeout", [](RunConfig& c, const OptimizeFlags& f) { c.eval.timeout_s = f.config.eval.timeout_s; }},
      {"--max-seconds", [](RunConfig& c, const OptimizeFlags& f) { c.eval.max_seconds = f.config.eval.max_seconds; }},
      {"--seeds", [](RunConfig& c, const OptimizeFlags& f) { c.eval.seeds = f.config.eval.seeds; }},
      {"--no-flush", [](RunConfig& c, const OptimizeFlags& f) { c.eval.no_flush = f.config.eval.no_flush; }},
      {"--device", [](RunConfig& c, const OptimizeFlags& f) { c.eval.device = f.config.eval.device; }},
  };
  return flags;
}

}  // namespace

void add_optimize_flags(CLI::App& sub, OptimizeFlags& flags) {
  RunConfig& config = flags.config;
  sub.add_option("path", flags.path, "Kernel file, manifest or folder");
  sub.add_option("--resume", flags.resume, "Continue the run in this folder");
  sub.add_option("-g,--generations", config.evolution.generations, "Generations to evolve")->capture_default_str();
  sub.add_option("-p,--population", config.evolution.population, "Candidates per generation")->capture_default_str();
  sub.add_option("--target", config.evolution.target_speedup, "Stop at this speedup over the original");
  sub.add_option("--time-budget", config.evolution.time_budget_s, "Stop after this many seconds");
  sub.add_option("--runs-dir", flags.runs_dir, "Where run folders go")->capture_default_str();
  sub.add_option("--seed", config.evolution.seed, "Random seed (default: random)");
  sub.add_option("--llm", config.llm_spec, "LLM as openai:MODEL, anthropic:MODEL, replay:RUN_DIR or none");
  sub.add_option("--llm-budget-usd", config.llm_budget_usd, "Stop using the LLM after this many US dollars");
  sub.add_option("--llm-budget-tokens", config.llm_budget_tokens, "Stop using the LLM after this many tokens");
  sub.add_flag("--llm-only", config.llm_only, "Use only the LLM operators (no built-in ones)");
  sub.add_flag("--json", flags.json, "Print a JSON summary on stdout");
  sub.add_flag("--no-counters", flags.no_counters, "Profile with the analytic roofline only (no ncu)");
  add_eval_flags(sub, config.eval);
}

RunConfig new_run_config(const OptimizeFlags& flags, const CLI::App& sub, std::uint64_t random_seed) {
  RunConfig config = flags.config;
  if (sub.count("--seed") == 0 || config.evolution.seed == 0) config.evolution.seed = random_seed;
  config.profile_counters = !flags.no_counters;
  return config;
}

RunConfig resumed_config(RunConfig stored, const OptimizeFlags& flags, const CLI::App& sub) {
  for (const auto& [name, copy] : config_flags())
    if (sub.count(name) > 0) copy(stored, flags);
  return stored;
}

}  // namespace kforge::cli
