#include "optimize/run_config.h"

namespace kforge::optimize {
namespace {

constexpr const char* kRunConfigKey = "run_config";

template <typename T>
void take(const nlohmann::json& object, const char* key, T& field) {
  if (const auto found = object.find(key); found != object.end() && !found->is_null()) field = found->get<T>();
}

}  // namespace

nlohmann::json to_json(const RunConfig& c) {
  const EvolutionSettings& e = c.evolution;
  return {{"task_manifest", c.task_manifest},
          {"task_name", c.task_name},
          {"evolution",
           {{"generations", e.generations},
            {"population", e.population},
            {"elite", e.elite},
            {"tournament", e.tournament},
            {"target_speedup", e.target_speedup},
            {"time_budget_s", e.time_budget_s},
            {"seed", e.seed}}},
          {"eval",
           {{"timeout_s", c.eval.timeout_s},
            {"max_seconds", c.eval.max_seconds},
            {"seeds", c.eval.seeds},
            {"no_flush", c.eval.no_flush},
            {"device", c.eval.device}}},
          {"final_seeds", c.final_seeds},
          {"llm",
           {{"spec", c.llm_spec},
            {"budget_usd", c.llm_budget_usd},
            {"budget_tokens", c.llm_budget_tokens},
            {"llm_only", c.llm_only}}},
          {"profile_counters", c.profile_counters},
          {"kforge_version", c.kforge_version}};
}

RunConfig run_config_from_json(const nlohmann::json& json) {
  RunConfig c;
  if (!json.is_object()) return c;
  take(json, "task_manifest", c.task_manifest);
  take(json, "task_name", c.task_name);
  const nlohmann::json evolution = json.value("evolution", nlohmann::json::object());
  take(evolution, "generations", c.evolution.generations);
  take(evolution, "population", c.evolution.population);
  take(evolution, "elite", c.evolution.elite);
  take(evolution, "tournament", c.evolution.tournament);
  take(evolution, "target_speedup", c.evolution.target_speedup);
  take(evolution, "time_budget_s", c.evolution.time_budget_s);
  take(evolution, "seed", c.evolution.seed);
  const nlohmann::json eval = json.value("eval", nlohmann::json::object());
  take(eval, "timeout_s", c.eval.timeout_s);
  take(eval, "max_seconds", c.eval.max_seconds);
  take(eval, "seeds", c.eval.seeds);
  take(eval, "no_flush", c.eval.no_flush);
  take(eval, "device", c.eval.device);
  take(json, "final_seeds", c.final_seeds);
  const nlohmann::json llm = json.value("llm", nlohmann::json::object());
  take(llm, "spec", c.llm_spec);
  take(llm, "budget_usd", c.llm_budget_usd);
  take(llm, "budget_tokens", c.llm_budget_tokens);
  take(llm, "llm_only", c.llm_only);
  take(json, "profile_counters", c.profile_counters);
  take(json, "kforge_version", c.kforge_version);
  return c;
}

void store_run_config(RunStore& store, const RunConfig& config, const std::string& target) {
  RunSettings settings = store.read_settings();  // keeps started_at and status on resume
  settings.task_manifest = config.task_manifest;
  settings.task_name = config.task_name;
  settings.generations = config.evolution.generations;
  settings.population = config.evolution.population;
  settings.target = target;
  settings.time_budget_s = config.evolution.time_budget_s;
  settings.seed = config.evolution.seed;
  settings.llm = config.llm_spec;
  settings.kforge_version = config.kforge_version;
  store.write_settings(settings);
  store.set_setting(kRunConfigKey, to_json(config));
}

RunConfig load_run_config(const RunStore& store) {
  if (const auto stored = store.get_setting(kRunConfigKey)) return run_config_from_json(*stored);
  // A run from before the stored config: what resume used to rebuild (the rest is defaults).
  const RunSettings settings = store.read_settings();
  RunConfig config;
  config.task_manifest = settings.task_manifest;
  config.task_name = settings.task_name;
  config.evolution.generations = settings.generations;
  config.evolution.population = settings.population;
  config.evolution.time_budget_s = settings.time_budget_s;
  config.evolution.seed = settings.seed;
  config.llm_spec = settings.llm;
  config.kforge_version = settings.kforge_version;
  const nlohmann::json llm = store.get_setting("llm_options").value_or(nlohmann::json::object());
  config.llm_budget_usd = llm.value("usd", 0.0);
  config.llm_budget_tokens = llm.value("tokens", std::int64_t{0});
  config.llm_only = llm.value("llm_only", false);
  return config;
}

}  // namespace kforge::optimize
