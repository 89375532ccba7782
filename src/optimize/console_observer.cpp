#include "optimize/console_observer.h"

#include <fmt/format.h>

#include "optimize/pipeline_steps.h"
#include "util/log.h"

namespace kforge::optimize {
namespace {

std::string params_text(const ParamValues& params) {
  std::string text;
  for (const auto& [name, value] : params) text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, value);
  return text;
}

}  // namespace

void ConsoleObserver::baseline_started() { announce_step(PipelineStep::Baseline); }

void ConsoleObserver::baseline_ready(const Individual& baseline, bool from_store) {
  // A fresh baseline already had its candidate line.
  if (from_store) log::info("  baseline #{} from the run store: {:.4f} ms", baseline.id, baseline.median_ms.value_or(0));
}

void ConsoleObserver::evolution_started(const EvolutionPlan& plan) {
  announce_step(PipelineStep::Evolve, fmt::format(": {} generations x {} candidates, {} operators", plan.generations,
                                                  plan.population, plan.operators));
}

void ConsoleObserver::nothing_to_try(int generation) {
  log::info("  generation {}: the operators found nothing new to try", generation);
}

void ConsoleObserver::candidate_evaluated(const Individual& candidate, std::size_t index, std::size_t batch_size) {
  const std::string parents =
      candidate.parent_ids.empty() ? "" : fmt::format("(#{})", fmt::join(candidate.parent_ids, ",#"));
  const std::string outcome = candidate.status == CandidateStatus::Correct
                                  ? fmt::format("{:.4f} ms  {:.2f}x", candidate.median_ms.value_or(0), candidate.speedup)
                                  : candidate.status_message.substr(0, 100);
  log::info("  #{:<4} {:<18} {:<28} {:<13} {}", candidate.id, candidate.operator_name + parents,
            candidate.strategy.substr(0, 28), to_string(candidate.status), outcome);
  log::verbose("        params {} options [{}]", params_text(candidate.variant.params),
               fmt::join(candidate.variant.options, " "));
  if (candidate.generation > 0) log::progress(fmt::format("  gen {}", candidate.generation), index, batch_size);
}

void ConsoleObserver::generation_finished(const GenerationRecord& record, const Individual* best) {
  log::info("  generation {}: {} evaluated, {} correct, best #{} {:.4f} ms ({:.2f}x)", record.generation,
            record.evaluated, record.correct, best ? best->id : 0, best ? best->median_ms.value_or(0) : 0.0,
            best ? best->speedup : 0.0);
}

void ConsoleObserver::stopped(const std::string& reason) { log::info("  stopped: {}", reason); }

void ConsoleObserver::llm_activity(const std::string& line) { log::info("  {}", line); }

void ConsoleObserver::llm_notice(llm::NoticeLevel level, const std::string& text) {
  if (level == llm::NoticeLevel::Warning) log::warn("{}", text);
  else log::verbose("{}", text);
}

}  // namespace kforge::optimize
