// An evaluator that measures nothing: it answers from a recorded run (run.db) or a recorded
// exhaustive sweep (`kforge sweep --json`), keyed by source hash, parameters and options. The
// evolution loop runs on it without a device, so its behaviour (resume, stop reasons, dedup,
// the space-filling start) has unit tests, and search strategies can be compared offline over
// many seeds on recorded spaces, as Kernel Tuner's simulation runner does.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

#include "eval/candidate_evaluator.h"
#include "store/run_store.h"

namespace kforge {

class ReplayEvaluator : public CandidateEvaluator {
 public:
  ReplayEvaluator(Task task, std::map<std::string, EvalResult> recorded);
  // `sweep` is the output of `kforge sweep --json` for this task (an array with one entry per
  // task, or that entry alone); its configurations are of the task's own source.
  static ReplayEvaluator from_sweep(Task task, const nlohmann::json& sweep);
  // Every evaluated candidate of a recorded run of this task.
  static ReplayEvaluator from_run(Task task, const RunStore& store);

  // The lookup key: the source's content hash, the parameters and the extra options.
  static std::string key(const KernelVariant& variant);

  const Task& task() const override { return task_; }
  KernelVariant baseline_variant() const override;
  std::vector<CompileResult> compile_all(const std::vector<KernelVariant>& variants) override;
  // The recorded result; a variant never recorded is a runtime error "not in the recording".
  EvalResult evaluate_compiled(const KernelVariant& candidate, const CompileResult& compiled) override;

  std::size_t recorded() const { return recorded_.size(); }
  int evaluations() const { return evaluations_; }
  int misses() const { return misses_; }
  // What was recorded for this variant, if anything (without counting an evaluation).
  const EvalResult* recorded_result(const KernelVariant& variant) const;
  // The fastest correct recorded median: what a strategy is measured against.
  std::optional<double> best_recorded_ms() const;

 private:
  Task task_;
  std::string original_source_;
  std::map<std::string, EvalResult> recorded_;
  int evaluations_ = 0;
  int misses_ = 0;
};

}  // namespace kforge
