// `unroll`: puts `#pragma unroll` before the kernel's loops that have none. Loops whose bound
// looks like a compile-time constant (a number, a tunable, a macro) are fully unrolled; loops
// with run-time bounds get `#pragma unroll 4`. Pragmas never change what the code computes.
#pragma once

#include <optional>
#include <set>

#include "search/operator.h"

namespace kforge {

enum class UnrollKind {
  Full,     // `#pragma unroll` before constant-bound loops
  Partial,  // `#pragma unroll 4` before run-time-bound loops
};

struct UnrollResult {
  std::string source;
  int loops = 0;  // loops that gained a pragma
};

// The source with pragmas before the kernel's loops of that kind; nullopt when there are none.
// `constants` are names known to be compile-time values (the task's tunables); object-like
// macros defined in the source and ALL_CAPS names count as constants too.
std::optional<UnrollResult> add_unroll_pragmas(const std::string& source, Language language, const std::string& kernel,
                                               const std::set<std::string>& constants, UnrollKind kind);

class UnrollOperator : public Operator {
 public:
  std::string name() const override { return "unroll"; }
  int arity() const override { return 1; }
  bool applicable(const Task& task) const override;
  std::vector<Proposal> propose(OperatorContext& context, const std::vector<const Individual*>& parents,
                                int count) override;
};

}  // namespace kforge
