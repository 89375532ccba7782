#include "cli/optimize_flags.h"

#include <fmt/format.h>

#include "cli/eval_flag_options.h"

namespace kforge::cli {
namespace {
// Range checks with readable messages (CLI11's own print the whole double range).
CLI::Validator at_least(double minimum) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        try {
          if (std::stod(text) >= minimum) return "";
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        return "must be " + fmt::format("{}", minimum) + " or more, not " + text;
      },
      fmt::format(">={}", minimum));
}


using optimize::RunConfig;

// Each flag that sets part of the run's configuration, with how it copies that part from the
// configuration parsed from this command line (`from`) into the stored one (`to`).
using CopyPart = void (*)(RunConfig& to, const RunConfig& from);
struct ConfigFlag {
  const char* name;
  CopyPart copy;
};

constexpr ConfigFlag kConfigFlags[] = {
    {"--generations", [](RunConfig& to, const RunConfig& from) { to.evolution.generations = from.evolution.generations; }},
    {"--population", [](RunConfig& to, const RunConfig& from) { to.evolution.population = from.evolution.population; }},
    {"--target", [](RunConfig& to, const RunConfig& from) { to.evolution.target_speedup = from.evolution.target_speedup; }},
    {"--time-budget", [](RunConfig& to, const RunConfig& from) { to.evolution.time_budget_s = from.evolution.time_budget_s; }},
    {"--seed", [](RunConfig& to, const RunConfig& from) { to.evolution.seed = from.evolution.seed; }},
    {"--llm", [](RunConfig& to, const RunConfig& from) { to.llm_spec = from.llm_spec; }},
    {"--llm-budget-usd", [](RunConfig& to, const RunConfig& from) { to.llm_budget_usd = from.llm_budget_usd; }},
    {"--llm-budget-tokens", [](RunConfig& to, const RunConfig& from) { to.llm_budget_tokens = from.llm_budget_tokens; }},
    {"--llm-only", [](RunConfig& to, const RunConfig& from) { to.llm_only = from.llm_only; }},
    {"--no-counters", [](RunConfig& to, const RunConfig& from) { to.profile_counters = from.profile_counters; }},
    {"--timeout", [](RunConfig& to, const RunConfig& from) { to.eval.timeout_s = from.eval.timeout_s; }},
    {"--max-seconds", [](RunConfig& to, const RunConfig& from) { to.eval.max_seconds = from.eval.max_seconds; }},
    {"--seeds", [](RunConfig& to, const RunConfig& from) { to.eval.seeds = from.eval.seeds; }},
    {"--no-flush", [](RunConfig& to, const RunConfig& from) { to.eval.no_flush = from.eval.no_flush; }},
    {"--device", [](RunConfig& to, const RunConfig& from) { to.eval.device = from.eval.device; }},
};

}  // namespace

void add_optimize_flags(CLI::App& sub, OptimizeFlags& flags) {
  RunConfig& config = flags.config;
  sub.add_option("path", flags.path, "Kernel file, manifest or folder");
  sub.add_option("--resume", flags.resume, "Continue the run in this folder");
  sub.add_option("-g,--generations", config.evolution.generations, "Generations to evolve")->capture_default_str()->check(at_least(1));
  sub.add_option("-p,--population", config.evolution.population, "Candidates per generation")->capture_default_str()->check(at_least(1));
  sub.add_option("--target", config.evolution.target_speedup, "Stop at this speedup over the original")->check(at_least(0));
  sub.add_option("--time-budget", config.evolution.time_budget_s, "Stop after this many seconds")->check(at_least(0));
  sub.add_option("--runs-dir", flags.runs_dir, "Where run folders go")->capture_default_str();
  sub.add_option("--seed", config.evolution.seed, "Random seed (default: random)");
  sub.add_option("--llm", config.llm_spec, "LLM as openai:MODEL, anthropic:MODEL, replay:RUN_DIR or none");
  sub.add_option("--llm-budget-usd", config.llm_budget_usd, "Stop using the LLM after this many US dollars")->check(at_least(0));
  sub.add_option("--llm-budget-tokens", config.llm_budget_tokens, "Stop using the LLM after this many tokens")->check(at_least(0));
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
  RunConfig given = flags.config;
  given.profile_counters = !flags.no_counters;
  for (const ConfigFlag& flag : kConfigFlags)
    if (sub.count(flag.name) > 0) flag.copy(stored, given);
  return stored;
}

}  // namespace kforge::cli
