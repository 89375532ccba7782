#include "search/builtin_operators.h"

#include "search/operators/compiler_options.h"
#include "search/operators/crossover.h"
#include "search/operators/restrict.h"
#include "search/operators/sample.h"
#include "search/operators/tune.h"
#include "search/operators/unroll.h"

namespace kforge {

std::vector<std::unique_ptr<Operator>> builtin_operators(const Task& task) {
  std::vector<std::unique_ptr<Operator>> all;
  all.push_back(std::make_unique<SampleOperator>());
  all.push_back(std::make_unique<TuneOperator>());
  all.push_back(std::make_unique<CrossoverOperator>());
  all.push_back(std::make_unique<CompilerOptionsOperator>());
  all.push_back(std::make_unique<RestrictOperator>());
  all.push_back(std::make_unique<UnrollOperator>());
  std::vector<std::unique_ptr<Operator>> applicable;
  for (auto& op : all)
    if (op->applicable(task)) applicable.push_back(std::move(op));
  return applicable;
}

}  // namespace kforge
