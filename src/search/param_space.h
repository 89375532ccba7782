// The task's tunable space: every combination of the listed parameter values that satisfies
// the constraints at every problem size. Large spaces are never materialised to draw from them.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "task/task.h"

namespace kforge {

class ParamSpace {
 public:
  explicit ParamSpace(const Task& task);

  const std::vector<TunableParam>& params() const { return task_.params; }
  // Combinations before constraints (the product of the value-list sizes; saturates at UINT64_MAX).
  std::uint64_t unconstrained_size() const;
  // Valid configurations, counted by enumeration: call only when unconstrained_size() is modest.
  std::uint64_t size() const;

  // Every param has one of its listed values (missing ones: their default) and every constraint
  // holds for every problem size's variables.
  bool is_valid(const ParamValues& values) const;
  // Missing params filled with their defaults; unknown names dropped.
  ParamValues complete(const ParamValues& values) const;

  // All valid configurations in odometer order (first param slowest), at most `limit` of them.
  std::vector<ParamValues> enumerate(std::size_t limit = SIZE_MAX) const;
  // A uniformly drawn valid configuration by rejection sampling; nullopt after `max_tries` misses.
  std::optional<ParamValues> random(std::mt19937_64& rng, int max_tries = 10000) const;
  // Valid configurations one param away: each param stepped +-1 and +-2 positions in its list.
  std::vector<ParamValues> neighbours(const ParamValues& values) const;
  // The valid configuration nearest to `values` (breadth-first over neighbours, up to `max_visits`
  // configurations); `values` itself when valid.
  std::optional<ParamValues> repair(const ParamValues& values, std::size_t max_visits = 4096) const;

  // Position of `value` in the param's list; nullopt when it is not listed.
  std::optional<std::size_t> index_of(const TunableParam& param, std::int64_t value) const;
  // Sum over params of the difference in list positions (an unlisted value counts as the list size).
  int distance(const ParamValues& a, const ParamValues& b) const;
  // Canonical text of a configuration: "BLOCK=256,ITEMS=1", params in the task's order.
  std::string key(const ParamValues& values) const;

 private:
  Task task_;
};

}  // namespace kforge
