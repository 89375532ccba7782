#include "search/evolution.h"

#include <fmt/format.h>

#include <algorithm>

#include "search/selection.h"
#include "store/source_hash.h"

namespace kforge {
namespace {
// Generations in a row in which the operators proposed nothing new before the search stops as
// "converged" (one can be bad luck of the draw; two in a row is a search with nothing left).
constexpr int kConvergedAfter = 2;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<std::string> operator_names(const std::vector<std::unique_ptr<Operator>>& operators) {
  std::vector<std::string> names;
  for (const auto& op : operators) names.push_back(op->name());
  return names;
}
}  // namespace

Individual individual_from_record(const CandidateRecord& record) {
  Individual individual;
  individual.id = record.id;
  individual.generation = record.generation;
  individual.variant.source = record.source;
  individual.variant.params = record.params;
  individual.variant.options = record.compile_options;
  individual.status = record.status;
  individual.status_message = record.status_message;
  if (record.status == CandidateStatus::Correct) individual.median_ms = record.median_ms();
  individual.speedup = record.speedup().value_or(0);
  individual.speedup_ci_low = record.metrics.speedup_ci_low.value_or(individual.speedup_ci_low);
  individual.operator_name = record.operator_name;
  individual.parent_ids = record.parent_ids;
  individual.strategy = record.strategy;
  individual.compile_log = record.compile_log;
  individual.compile_stats = record.compile_stats;
  individual.profile = record.profile;
  return individual;
}

Evolution::Evolution(CandidateEvaluator& evaluator, RunStore& store, std::vector<std::unique_ptr<Operator>> operators,
                     EvolutionSettings settings, EvolutionObserver& observer)
    : evaluator_(evaluator),
      store_(store),
      observer_(observer),
      operators_(std::move(operators)),
      scheduler_(operator_names(operators_)),
      seen_(evaluator.task().kernel.language),
      settings_(settings),
      rng_(settings.seed) {}

void Evolution::load_history() {
  history_.clear();
  for (const auto& record : store_.list_candidates()) {
    if (is_in_flight(record.status)) continue;  // re-proposed below; never half-counted
    history_.push_back(individual_from_record(record));
    seen_.insert(history_.back().variant);
    if (record.operator_name == "baseline") baseline_ = history_.back();
  }
  // Work in flight when the run was killed is lost by design; its rows are discarded so
  // the resumed generation proposes afresh.
  for (const auto& record : store_.in_flight_candidates()) store_.delete_candidate(record.id);
  elapsed_before_resume_s_ = store_.get_setting("elapsed_s").value_or(0.0).get<double>();
}

Individual Evolution::evaluate_baseline() {
  Proposal proposal;
  proposal.variant = evaluator_.baseline_variant();
  proposal.operator_name = "baseline";
  proposal.strategy = "original kernel";
  seen_.insert(proposal.variant);  // so no operator proposes the original configuration again
  auto evaluated = evaluate_batch(0, {proposal});
  Individual baseline = evaluated.front();
  if (baseline.status != CandidateStatus::Correct)
    throw std::runtime_error(evaluator_.task().manifest_path.string() + ": the original kernel fails its own check (" +
                             baseline.status_message + "); fix the kernel or its manifest before optimizing");
  store_.set_baseline(store_.get_candidate(baseline.id)->metrics);
  return baseline;
}

void Evolution::set_baseline_profile(nlohmann::json profile, std::string analysis) {
  baseline_profile_ = std::move(profile);
  baseline_analysis_ = std::move(analysis);
}

EvolutionOutcome Evolution::run() {
  started_ = Clock::now();
  load_history();
  const auto last_completed = store_.last_completed_generation();
  const int first_generation = last_completed ? *last_completed + 1 : 0;
  EvolutionOutcome outcome;
  observer_.baseline_started();
  const bool from_store = baseline_.has_value();
  if (!from_store) baseline_ = evaluate_baseline();
  observer_.baseline_ready(*baseline_, from_store);
  if (first_generation == 0) {
    store_.begin_generation(0);
    store_.finish_generation({0, "", "", baseline_->id, baseline_->median_ms, 1, 1, 0});
  }
  if (!baseline_profile_.is_null()) {
    store_.set_candidate_profile(baseline_->id, baseline_profile_);
    store_.set_candidate_analysis(baseline_->id, baseline_analysis_);
    baseline_->profile = baseline_profile_;
    for (auto& individual : history_)
      if (individual.id == baseline_->id) individual.profile = baseline_profile_;
  }
  select_survivors();

  observer_.evolution_started({settings_.generations, settings_.population, operators_.size()});
  std::string reason = "generation limit reached";
  int generation = std::max(first_generation, 1);
  for (; generation <= settings_.generations; ++generation) {
    if (should_stop(reason)) break;
    run_generation(generation);
    outcome.generations_completed = generation;
    store_.set_setting("elapsed_s", elapsed_before_resume_s_ + seconds_since(started_));
  }
  if (generation > settings_.generations) should_stop(reason);
  outcome.stop_reason = reason;
  observer_.stopped(reason);
  outcome.best = best();
  outcome.baseline = baseline_;
  outcome.compile_s = compile_s_;
  outcome.evaluate_s = evaluate_s_;
  outcome.total_s = seconds_since(started_);
  store_.set_setting("time_breakdown", {{"compile_s", compile_s_}, {"evaluate_s", evaluate_s_},
                                        {"total_s", outcome.total_s}});
  return outcome;
}

void Evolution::run_generation(int generation) {
  store_.begin_generation(generation);
  observer_.generation_started(generation);
  const auto start = Clock::now();
  // Rng state depends only on the seed and generation, so a resumed run draws the same.
  rng_.seed(settings_.seed * 1000003 + static_cast<std::uint64_t>(generation));
  std::vector<Individual> children = evaluate_batch(generation, propose(generation, settings_.population));
  fruitless_generations_ = children.empty() ? fruitless_generations_ + 1 : 0;
  select_survivors();
  const auto best_now = best();
  GenerationRecord record;
  record.generation = generation;
  record.evaluated = static_cast<int>(children.size());
  record.correct = static_cast<int>(std::count_if(children.begin(), children.end(), [](const Individual& i) {
    return i.status == CandidateStatus::Correct;
  }));
  if (best_now) {
    record.best_candidate_id = best_now->id;
    record.best_median_ms = best_now->median_ms;
  }
  record.wall_s = seconds_since(start);
  store_.finish_generation(record);
  observer_.generation_finished(record, best_now ? &*best_now : nullptr);
}

std::vector<const Individual*> Evolution::pick_parents(int arity) {
  std::vector<const Individual*> parents;
  for (int p = 0; p < arity; ++p)
    if (const Individual* parent = tournament_select(population_, settings_.tournament, rng_)) parents.push_back(parent);
  return parents;
}

void Evolution::credit(const Individual& child) {
  std::vector<const Individual*> parents;
  for (const auto& individual : history_)
    if (std::find(child.parent_ids.begin(), child.parent_ids.end(), individual.id) != child.parent_ids.end())
      parents.push_back(&individual);
  for (std::size_t i = 0; i < operators_.size(); ++i)
    if (operators_[i]->name() == child.operator_name) scheduler_.record(i, improved_on_parents(child, parents));
}

std::vector<Proposal> Evolution::propose(int generation, int count) {
  std::vector<Proposal> proposals;
  if (operators_.empty()) return proposals;
  std::vector<Individual> by_speed;
  for (const Individual* individual : ranked(history_)) by_speed.push_back(*individual);
  for (const auto& individual : history_)
    if (!is_selectable(individual)) by_speed.push_back(individual);  // failures last
  OperatorContext context{evaluator_.task(), rng_, by_speed,
                          [this](const KernelVariant& v) { return seen_.contains(v); }, ""};
  const auto sampler = std::find_if(operators_.begin(), operators_.end(),
                                    [](const auto& op) { return op->name() == "sample"; });
  // Several attempts per slot: an operator may have nothing new for the parents it drew.
  // Exhausted operators (an LLM whose budget is spent) are skipped without using up an attempt.
  for (int attempt = 0, draws = 0;
       attempt < count * 6 && draws < count * 60 && static_cast<int>(proposals.size()) < count; ++draws) {
    // The first generation starts space-filling: uniform samples of the tunable space find the
    // good regions that a local walk from the baseline would take many generations to reach.
    const bool space_filling = generation == 1 && sampler != operators_.end() && attempt < count * 2;
    Operator& op = space_filling ? **sampler : *operators_[scheduler_.pick(rng_)];
    if (op.exhausted()) continue;
    ++attempt;
    const auto parents = pick_parents(op.arity());
    if (static_cast<int>(parents.size()) < op.arity()) continue;
    for (Proposal& proposal : op.propose(context, parents, 1)) {
      if (!seen_.insert(proposal.variant)) {
        if (proposal.on_stored) proposal.on_stored(std::nullopt);
        continue;
      }
      if (proposal.operator_name.empty()) proposal.operator_name = op.name();
      proposals.push_back(std::move(proposal));
    }
  }
  if (proposals.empty()) observer_.nothing_to_try(generation);
  return proposals;
}

std::vector<Individual> Evolution::evaluate_batch(int generation, std::vector<Proposal> proposals) {
  std::vector<Individual> batch;
  std::vector<KernelVariant> variants;
  for (auto& proposal : proposals) {
    CandidateRecord record;
    record.generation = generation;
    record.operator_name = proposal.operator_name;
    record.parent_ids = proposal.parent_ids;
    record.source = proposal.variant.source;
    record.params = proposal.variant.params;
    record.compile_options = proposal.variant.options;
    record.strategy = proposal.strategy;
    record.rationale = proposal.rationale;
    Individual individual;
    individual.id = store_.insert_candidate(record);
    if (proposal.on_stored) proposal.on_stored(individual.id);
    individual.generation = generation;
    individual.variant = proposal.variant;
    individual.operator_name = proposal.operator_name;
    individual.parent_ids = proposal.parent_ids;
    individual.strategy = proposal.strategy;
    store_.update_candidate_status(individual.id, CandidateStatus::Compiling);
    variants.push_back(proposal.variant);
    batch.push_back(std::move(individual));
  }
  const auto compile_start = Clock::now();
  const std::vector<CompileResult> compiled = evaluator_.compile_all(variants);
  compile_s_ += seconds_since(compile_start);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    evaluate_into(batch[i], compiled[i]);
    history_.push_back(batch[i]);
    credit(batch[i]);
    observer_.candidate_evaluated(batch[i], i + 1, batch.size());
  }
  return batch;
}

void Evolution::evaluate_into(Individual& individual, const CompileResult& compiled) {
  const auto start = Clock::now();
  const EvalResult result = evaluator_.evaluate_compiled(individual.variant, compiled);
  evaluate_s_ += seconds_since(start);
  individual.status = result.status;
  individual.status_message = result.message;
  individual.compile_log = compiled.log;
  individual.compile_stats = compile_stats_json(compiled);
  if (result.status == CandidateStatus::Correct && result.timing) {
    // Speedups are against the baseline timed in the same session; latency is normalised to
    // the stored baseline so candidates from different sessions compare fairly.
    const double baseline_ms = baseline_ && baseline_->median_ms ? *baseline_->median_ms : result.baseline_timing->median_ms;
    individual.speedup = result.speedup;
    individual.speedup_ci_low = result.speedup_ci_low;
    individual.median_ms = baseline_ms / result.speedup;
  }
  CandidateResult stored;
  stored.status = result.status;
  stored.status_message = result.message;
  stored.compile_log = compiled.log;
  stored.compile_stats = individual.compile_stats;
  stored.metrics = candidate_metrics(result);
  if (individual.median_ms) stored.metrics.median_ms = individual.median_ms;
  if (result.timing) stored.metrics.measured_median_ms = result.timing->median_ms;
  store_.update_candidate_result(individual.id, stored);
}

void Evolution::select_survivors() {
  population_ = next_population(history_, {settings_.population, settings_.elite, 1.0 / 3},
                                evaluator_.task().kernel.language);
}

// The fastest candidate whose speedup is significant (CI above 1); else the baseline: a
// faster median inside the noise is not reported as an improvement.
std::optional<Individual> Evolution::best() const {
  if (const Individual* improvement = best_improvement(history_)) return *improvement;
  if (baseline_ && is_selectable(*baseline_)) return *baseline_;
  const auto by_speed = ranked(history_);
  if (by_speed.empty()) return std::nullopt;
  return *by_speed.front();
}

bool Evolution::should_stop(std::string& reason) const {
  if (!operators_.empty() &&
      std::all_of(operators_.begin(), operators_.end(), [](const auto& op) { return op->exhausted(); })) {
    reason = "every operator is exhausted";
    return true;
  }
  if (fruitless_generations_ >= kConvergedAfter) {
    reason = fmt::format("converged: the operators found nothing new to try for {} generations", kConvergedAfter);
    return true;
  }
  const auto best_now = best();
  if (settings_.target_speedup > 0 && best_now && best_now->speedup >= settings_.target_speedup) {
    reason = fmt::format("target speedup {:.2f}x reached", settings_.target_speedup);
    return true;
  }
  if (settings_.time_budget_s > 0 && elapsed_before_resume_s_ + seconds_since(started_) >= settings_.time_budget_s) {
    reason = fmt::format("time budget of {:.0f} s spent", settings_.time_budget_s);
    return true;
  }
  return false;
}

}  // namespace kforge
