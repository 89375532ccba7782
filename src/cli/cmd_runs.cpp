// `kforge runs`, `kforge show RUN_DIR [CANDIDATE]` and `kforge report RUN_DIR`.
#include <fmt/format.h>

#include "cli/commands.h"
#include "report/report.h"
#include "store/run_store.h"
#include "util/files.h"

namespace kforge::cli {
namespace {

std::string ms(std::optional<double> value) { return value ? fmt::format("{:.4f} ms", *value) : "-"; }

void print_candidate(const CandidateRecord& c) {
  fmt::print("candidate #{} (generation {}, operator {}, parents [{}])\n", c.id, c.generation, c.operator_name,
             fmt::join(c.parent_ids, ", "));
  fmt::print("status     {}{}\n", to_string(c.status), c.status_message.empty() ? "" : ": " + c.status_message);
  if (!c.strategy.empty()) fmt::print("strategy   {}\n", c.strategy);
  if (!c.rationale.empty()) fmt::print("rationale  {}\n", c.rationale);
  std::string params;
  for (const auto& [name, value] : c.params) params += fmt::format("{}={} ", name, value);
  fmt::print("params     {}\noptions    {}\n", params, fmt::join(c.compile_options, " "));
  fmt::print("latency    {}  speedup {}\n", ms(c.median_ms()),
             c.speedup() ? fmt::format("{:.2f}x", *c.speedup()) : "-");
  if (!c.compile_stats.is_null()) fmt::print("compile    {}\n", c.compile_stats.dump());
  if (!c.analysis.empty()) fmt::print("analysis   {}\n", c.analysis);
}

// Message content as text: a plain string (OpenAI), or an array of {type: text} blocks (Anthropic).
std::string content_text(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array())
    for (const auto& block : content)
      if (block.is_object() && block.value("type", "") == "text") text += block.value("text", "");
  return text;
}

// The conversation of one exchange as the model saw it, then its reply (or what the server sent).
void print_exchange_text(const LlmExchange& exchange) {
  fmt::print("\n=== exchange #{} ({}, {} {}) ===\n", exchange.id, exchange.purpose, exchange.provider, exchange.model);
  const nlohmann::json parsed = nlohmann::json::parse(exchange.request_json, nullptr, false);
  const nlohmann::json request = parsed.is_discarded() ? nlohmann::json(exchange.request_json) : parsed;
  if (request.is_object()) {
    if (request.contains("system")) fmt::print("--- system ---\n{}\n", content_text(request["system"]));
    for (const auto& message : request.value("messages", nlohmann::json::array()))
      fmt::print("--- {} ---\n{}\n", message.value("role", "?"),
                 content_text(message.value("content", nlohmann::json())));
  } else {
    fmt::print("--- request ---\n{}\n", request.is_string() ? request.get<std::string>() : request.dump());
  }
  fmt::print("--- response ({}) ---\n{}\n", exchange.outcome(), exchange.stored_response());
  if (!exchange.error.empty()) fmt::print("--- error ---\n{}\n", exchange.error);
}

int show(const std::string& run_dir, std::optional<std::int64_t> id, bool with_source, bool with_llm) {
  const RunStore store = RunStore::open_read_only(run_dir);
  if (!id) {
    const RunSettings s = store.read_settings();
    fmt::print("run {}: task {}, status {}, started {}\n", run_dir, s.task_name, store.status(), s.started_at);
    for (const auto& g : store.list_generations())
      fmt::print("  generation {:>3}: {:>3} evaluated, {:>3} correct, best #{} {}\n", g.generation, g.evaluated,
                 g.correct, g.best_candidate_id.value_or(0), ms(g.best_median_ms));
    for (const auto& [status, count] : store.status_counts()) fmt::print("  {:<14} {}\n", status, count);
    const LlmTotals llm = store.llm_totals();
    if (llm.exchanges > 0)
      fmt::print("  LLM: {} exchanges, {} tokens in, {} out, ${:.4f}\n", llm.exchanges, llm.input_tokens,
                 llm.output_tokens, llm.cost_usd);
    if (const auto best = store.best_candidate()) print_candidate(*best);
    return 0;
  }
  const auto lineage = store.lineage(*id);  // throws for an unknown id
  print_candidate(lineage.back());
  fmt::print("lineage    ");
  for (const auto& ancestor : lineage)
    fmt::print("#{} {} ({}) {} ", ancestor.id, ancestor.operator_name, ms(ancestor.median_ms()),
               &ancestor == &lineage.back() ? "" : "->");
  fmt::print("\n");
  for (const auto& exchange : store.list_llm_exchanges(*id))
    fmt::print("llm        #{} {} {} {} tokens in/out {}/{} ${:.4f}{}\n", exchange.id, exchange.purpose,
               exchange.model, exchange.outcome(), exchange.input_tokens, exchange.output_tokens, exchange.cost_usd,
               exchange.error.empty() ? "" : " error: " + exchange.error);
  if (with_llm)
    for (const auto& exchange : store.list_llm_exchanges(*id)) print_exchange_text(exchange);
  if (with_source) fmt::print("\n{}\n", lineage.back().source);
  return 0;
}

// One run of `kforge runs --json`; absent figures are null.
nlohmann::json run_json(const RunSummary& run) {
  auto optional = [](const auto& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); };
  if (!run.error.empty()) return {{"path", run.path.string()}, {"error", run.error}};
  return {{"path", run.path.string()},        {"task", run.task_name},
          {"status", run.status},             {"started_at", run.started_at},
          {"last_generation", optional(run.last_generation)}, {"candidates", run.candidates},
          {"correct", run.correct},           {"best_median_ms", optional(run.best_median_ms)},
          {"best_speedup", optional(run.best_speedup)}};
}

}  // namespace

Action setup_runs(CLI::App& sub) {
  auto runs_dir = std::make_shared<std::string>("runs");
  auto json_output = std::make_shared<bool>(false);
  sub.add_option("--runs-dir", *runs_dir, "Folder holding run folders")->capture_default_str();
  sub.add_flag("--json", *json_output, "Print the runs as JSON on stdout");
  return [runs_dir, json_output] {
    const auto runs = RunStore::list_runs(*runs_dir);
    if (*json_output) {
      nlohmann::json all = nlohmann::json::array();
      for (const auto& run : runs) all.push_back(run_json(run));
      fmt::print("{}\n", all.dump(2));
      return 0;
    }
    for (const auto& run : runs) {
      if (!run.error.empty()) {
        fmt::print("{:<48} unreadable: {}\n", run.path.string(), run.error);
        continue;
      }
      fmt::print("{:<48} {:<20} {:<11} gen {:>3}  {:>4} candidates  best {}  {}\n", run.path.string(), run.task_name,
                 run.status, run.last_generation.value_or(0), run.candidates, ms(run.best_median_ms),
                 run.best_speedup ? fmt::format("{:.2f}x", *run.best_speedup) : "");
    }
    if (runs.empty()) fmt::print("no runs under {}\n", *runs_dir);
    return 0;
  };
}

Action setup_show(CLI::App& sub) {
  struct Args {
    std::string run_dir;
    std::optional<std::int64_t> candidate;
    bool source = false;
    bool llm = false;
  };
  auto args = std::make_shared<Args>();
  sub.add_option("run_dir", args->run_dir, "Run folder")->required();
  sub.add_option("candidate", args->candidate, "Candidate id");
  sub.add_flag("--source", args->source, "Print the candidate's source");
  sub.add_flag("--llm", args->llm, "Print the full text of the candidate's LLM exchanges");
  return [args] { return show(args->run_dir, args->candidate, args->source, args->llm); };
}

Action setup_report(CLI::App& sub) {
  auto run_dir = std::make_shared<std::string>();
  sub.add_option("run_dir", *run_dir, "Run folder")->required();
  return [run_dir] {
    const RunStore store = RunStore::open_read_only(*run_dir);
    const RunSettings settings = store.read_settings();
    ReportInputs inputs;
    inputs.task_name = settings.task_name;
    // The original kernel is the baseline candidate's source: the task file may have changed since.
    for (const auto& candidate : store.list_candidates())
      if (candidate.operator_name == "baseline") inputs.original_source = candidate.source;
    const std::string language = settings.target.substr(0, settings.target.find(':'));
    inputs.language = parse_language(language).value_or(Language::Cuda);
    const ReportFiles files = write_report(store, *run_dir, inputs);
    fmt::print("wrote {}\n      {}\n      {}\n", files.markdown.string(), files.html.string(), files.json.string());
    if (!files.best_source.empty()) fmt::print("      {}\n      {}\n", files.best_source.string(), files.diff.string());
    return 0;
  };
}

}  // namespace kforge::cli
