// The LLM as the search's mutation operator. All five share one LlmSession (provider,
// recording, diagnosis cache, budget):
//   llm-generate   (arity 0) a new version of the run's best kernel, from its diagnosis
//   llm-mutate     (arity 1) one focused change to a parent
//   llm-crossover  (arity 2) combines two parents
//   llm-reflect    (arity 0) repairs the newest failed LLM candidate: its error and the change
//                  that caused it go back to the model, up to `reflect_rounds` repairs deep
//   llm-idea       (arity 1) idea-then-implement: asks for a ranked list of ideas, keeps the
//                  top share, implements each (the idea becomes the candidate's strategy)
// A pending repair goes before anything new: every LLM operator does it first when drawn, so
// a broken candidate does not wait for the random draw to pick llm-reflect.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "search/llm_operators/llm_session.h"
#include "search/operator.h"

namespace kforge {

class LlmOperator : public Operator {
 public:
  explicit LlmOperator(std::shared_ptr<LlmSession> session) : session_(std::move(session)) {}
  bool applicable(const Task&) const override { return true; }
  bool exhausted() const override { return session_->exhausted(); }
  std::vector<Proposal> propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                int count) final;

 protected:
  virtual std::optional<Proposal> propose_one(OperatorContext& context,
                                              const std::vector<const Individual*>& parents) = 0;
  LlmSession& session() { return *session_; }

 private:
  std::shared_ptr<LlmSession> session_;
};

// The newest failed LLM candidate still worth a repair, or null.
const Individual* repair_target(LlmSession& session, const OperatorContext& context);
// Asks the model to repair `failed`; nullopt when it gave nothing usable.
std::optional<Proposal> propose_repair(LlmSession& session, OperatorContext& context, const Individual& failed);

class LlmGenerate : public LlmOperator {
 public:
  using LlmOperator::LlmOperator;
  std::string name() const override { return "llm-generate"; }
  int arity() const override { return 0; }

 protected:
  std::optional<Proposal> propose_one(OperatorContext& context, const std::vector<const Individual*>& parents) override;
};

class LlmMutate : public LlmOperator {
 public:
  using LlmOperator::LlmOperator;
  std::string name() const override { return "llm-mutate"; }
  int arity() const override { return 1; }

 protected:
  std::optional<Proposal> propose_one(OperatorContext& context, const std::vector<const Individual*>& parents) override;
};

class LlmCrossover : public LlmOperator {
 public:
  using LlmOperator::LlmOperator;
  std::string name() const override { return "llm-crossover"; }
  int arity() const override { return 2; }

 protected:
  std::optional<Proposal> propose_one(OperatorContext& context, const std::vector<const Individual*>& parents) override;
};

class LlmReflect : public LlmOperator {
 public:
  using LlmOperator::LlmOperator;
  std::string name() const override { return "llm-reflect"; }
  int arity() const override { return 0; }

 protected:
  std::optional<Proposal> propose_one(OperatorContext& context, const std::vector<const Individual*>& parents) override;
};

class LlmIdea : public LlmOperator {
 public:
  using LlmOperator::LlmOperator;
  std::string name() const override { return "llm-idea"; }
  int arity() const override { return 1; }

 protected:
  std::optional<Proposal> propose_one(OperatorContext& context, const std::vector<const Individual*>& parents) override;

 private:
  struct PendingIdea {
    std::string idea;
    Individual parent;  // a copy: the search's history moves while ideas wait
  };
  bool ask_for_ideas(OperatorContext& context, const Individual& parent);
  std::deque<PendingIdea> pending_;
};

// Which of a list of ideas get implemented: the first ceil(pct% of them), at least one.
std::size_t ideas_to_keep(std::size_t listed, double keep_pct);
// "short name" of "short name: what to change", for the candidate's strategy.
std::string idea_name(const std::string& idea);

std::vector<std::unique_ptr<Operator>> make_llm_operators(const std::shared_ptr<LlmSession>& session);

}  // namespace kforge
