// The seam of the search: an Operator proposes new kernel variants from parents. Built-in
// operators (tune, crossover, compiler options, source transforms) and the LLM operators
// implement this one interface; adding an operator is one new file plus one registry line.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "eval/result.h"
#include "task/task.h"

namespace kforge {

// A candidate that has been evaluated (or is about to be): what operators see of it.
struct Individual {
  std::int64_t id = 0;
  int generation = 0;
  KernelVariant variant;
  CandidateStatus status = CandidateStatus::Pending;
  std::string status_message;
  std::optional<double> median_ms;  // correct candidates only
  double speedup = 0;
  double speedup_ci_low = 0;        // low end of the speedup's 95% CI (0: unknown)
  std::string operator_name;
  std::vector<std::int64_t> parent_ids;
  std::string strategy;
  std::string compile_log;
  nlohmann::json compile_stats;
  nlohmann::json profile;
};

// A proposed variant, before evaluation.
struct Proposal {
  KernelVariant variant;
  std::vector<std::int64_t> parent_ids;
  std::string operator_name;
  std::string strategy;   // short label ("BLOCK 256->512", "__restrict__ on pointers")
  std::string rationale;  // why
  // Called once by the search: with the stored candidate's id, or nullopt when it drops the
  // proposal as a duplicate. Lets an operator link what it recorded (e.g. LLM exchanges) to
  // the candidate that came of it.
  std::function<void(std::optional<std::int64_t> candidate_id)> on_stored;
};

struct OperatorContext {
  const Task& task;
  std::mt19937_64& rng;
  // Every individual evaluated so far in this run, best (lowest median) first, failures last.
  const std::vector<Individual>& history;
  // True when an equivalent variant (same normalised source, params and options) exists.
  std::function<bool(const KernelVariant&)> already_seen;
  std::string device_name;
};

class Operator {
 public:
  virtual ~Operator() = default;
  virtual std::string name() const = 0;
  // Parents the operator needs: 0 (works from the task alone), 1 or 2.
  virtual int arity() const = 0;
  // Whether the operator can do anything for this task at all (e.g. no tunables: no tune).
  virtual bool applicable(const Task& task) const = 0;
  // Up to `count` new, not-yet-seen variants; fewer (or none) when the operator is exhausted.
  virtual std::vector<Proposal> propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                        int count) = 0;
  // True once the operator can never propose again in this run (e.g. its LLM budget is
  // spent): the search stops drawing it, and stops when every operator is exhausted.
  virtual bool exhausted() const { return false; }
};

}  // namespace kforge
