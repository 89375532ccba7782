// The evolutionary search of `kforge optimize`: generations of proposals from the operators,
// compiled in parallel, evaluated in the sandboxed worker, recorded in the run store as each
// state changes (so a killed run resumes), selected with tournaments and elitism.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "eval/evaluator.h"
#include "search/dedup.h"
#include "search/evolution_observer.h"
#include "search/operator.h"
#include "search/operator_scheduler.h"
#include "store/run_store.h"

namespace kforge {

struct EvolutionSettings {
  int generations = 8;
  int population = 8;           // survivors per generation; also offspring per generation
  int elite = 2;                // the best this many always survive
  int tournament = 3;
  double target_speedup = 0;    // stop once reached (0: off)
  double time_budget_s = 0;     // stop after this much wall time (0: off)
  std::uint64_t seed = 1;
};

struct EvolutionOutcome {
  std::optional<Individual> best;       // fastest significantly faster candidate, else the baseline
  std::optional<Individual> baseline;
  int generations_completed = 0;
  std::string stop_reason;
  double compile_s = 0;                 // wall time in compilation
  double evaluate_s = 0;                // wall time in the worker (checks and timing)
  double total_s = 0;
};

class Evolution {
 public:
  // `observer` hears of every step (the console, a test); it must outlive the Evolution.
  Evolution(CandidateEvaluator& evaluator, RunStore& store, std::vector<std::unique_ptr<Operator>> operators,
            EvolutionSettings settings, EvolutionObserver& observer = quiet_observer());

  // Evaluates the baseline (or takes it from the store when resuming), then evolves.
  EvolutionOutcome run();
  // The original kernel's profile and diagnosis, stored with the baseline candidate so the
  // LLM's analysis and the report's roofline can use them.
  void set_baseline_profile(nlohmann::json profile, std::string analysis);

 private:
  void load_history();
  Individual evaluate_baseline();
  void run_generation(int generation);
  std::vector<Proposal> propose(int generation, int count);
  std::vector<Individual> evaluate_batch(int generation, std::vector<Proposal> proposals);
  void evaluate_into(Individual& individual, const CompileResult& compiled);
  std::vector<const Individual*> pick_parents(int arity);
  void select_survivors();
  bool should_stop(std::string& reason) const;
  std::optional<Individual> best() const;
  void credit(const Individual& child);

  CandidateEvaluator& evaluator_;
  RunStore& store_;
  EvolutionObserver& observer_;
  std::vector<std::unique_ptr<Operator>> operators_;
  OperatorScheduler scheduler_;
  SeenSet seen_;
  EvolutionSettings settings_;
  std::mt19937_64 rng_;
  std::vector<Individual> history_;     // everything evaluated, in id order
  std::vector<Individual> population_;  // current survivors, best first
  std::optional<Individual> baseline_;
  nlohmann::json baseline_profile_;
  std::string baseline_analysis_;
  std::chrono::steady_clock::time_point started_;
  double compile_s_ = 0;
  double evaluate_s_ = 0;
  double elapsed_before_resume_s_ = 0;
  int fruitless_generations_ = 0;  // consecutive generations the operators proposed nothing new in
};

// The search's view of a stored candidate.
Individual individual_from_record(const CandidateRecord& record);

}  // namespace kforge
