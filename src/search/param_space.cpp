#include "search/param_space.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <set>

namespace kforge {
namespace {

// Calls `visit` with every combination of listed values in odometer order until it returns false.
void for_each_combination(const std::vector<TunableParam>& params, const std::function<bool(const ParamValues&)>& visit) {
  std::vector<std::size_t> index(params.size(), 0);
  ParamValues values;
  for (const auto& param : params) values[param.name] = param.values.front();
  while (true) {
    if (!visit(values)) return;
    std::size_t digit = params.size();
    while (digit > 0) {  // the last param turns fastest
      --digit;
      if (++index[digit] < params[digit].values.size()) break;
      index[digit] = 0;
      values[params[digit].name] = params[digit].values.front();
      if (digit == 0) return;
    }
    if (params.empty()) return;
    values[params[digit].name] = params[digit].values[index[digit]];
  }
}

}  // namespace

ParamSpace::ParamSpace(const Task& task) : task_(task) {}

std::uint64_t ParamSpace::unconstrained_size() const {
  std::uint64_t size = 1;
  for (const auto& param : task_.params) {
    const std::uint64_t count = param.values.size();
    if (count != 0 && size > std::numeric_limits<std::uint64_t>::max() / count) return std::numeric_limits<std::uint64_t>::max();
    size *= count;
  }
  return size;
}

std::uint64_t ParamSpace::size() const {
  std::uint64_t count = 0;
  for_each_combination(task_.params, [&](const ParamValues& values) {
    if (is_valid(values)) ++count;
    return true;
  });
  return count;
}

ParamValues ParamSpace::complete(const ParamValues& values) const {
  ParamValues completed;
  for (const auto& param : task_.params) {
    auto it = values.find(param.name);
    completed[param.name] = it == values.end() ? param.default_value : it->second;
  }
  return completed;
}

bool ParamSpace::is_valid(const ParamValues& values) const {
  const ParamValues completed = complete(values);
  for (const auto& param : task_.params)
    if (!index_of(param, completed.at(param.name))) return false;
  try {
    return std::all_of(task_.sizes.begin(), task_.sizes.end(),
                       [&](const ProblemSize& size) { return satisfies_constraints(task_, completed, size.vars); });
  } catch (const std::exception&) {  // e.g. a division by zero in a rule: not a usable configuration
    return false;
  }
}

std::vector<ParamValues> ParamSpace::enumerate(std::size_t limit) const {
  std::vector<ParamValues> valid;
  if (limit == 0) return valid;
  for_each_combination(task_.params, [&](const ParamValues& values) {
    if (is_valid(values)) valid.push_back(values);
    return valid.size() < limit;
  });
  return valid;
}

std::optional<ParamValues> ParamSpace::random(std::mt19937_64& rng, int max_tries) const {
  for (int attempt = 0; attempt < max_tries; ++attempt) {
    ParamValues values;
    for (const auto& param : task_.params) {
      std::uniform_int_distribution<std::size_t> pick(0, param.values.size() - 1);
      values[param.name] = param.values[pick(rng)];
    }
    if (is_valid(values)) return values;
  }
  return std::nullopt;
}

std::vector<ParamValues> ParamSpace::neighbours(const ParamValues& values) const {
  const ParamValues origin = complete(values);
  std::vector<ParamValues> found;
  for (const auto& param : task_.params) {
    const auto index = index_of(param, origin.at(param.name));
    if (!index) continue;
    for (int delta : {-2, -1, 1, 2}) {
      const auto moved = static_cast<std::ptrdiff_t>(*index) + delta;
      if (moved < 0 || moved >= static_cast<std::ptrdiff_t>(param.values.size())) continue;
      ParamValues neighbour = origin;
      neighbour[param.name] = param.values[static_cast<std::size_t>(moved)];
      if (is_valid(neighbour)) found.push_back(std::move(neighbour));
    }
  }
  return found;
}

std::optional<ParamValues> ParamSpace::repair(const ParamValues& values, std::size_t max_visits) const {
  ParamValues start = complete(values);
  // Unlisted values have no neighbours: snap them to the default first.
  for (const auto& param : task_.params)
    if (!index_of(param, start[param.name])) start[param.name] = param.default_value;
  std::deque<ParamValues> queue{start};
  std::set<std::string> visited{key(start)};
  for (std::size_t visits = 0; !queue.empty() && visits < max_visits; ++visits) {
    ParamValues current = std::move(queue.front());
    queue.pop_front();
    if (is_valid(current)) return current;
    for (const auto& param : task_.params) {
      const std::size_t index = *index_of(param, current.at(param.name));
      for (std::size_t moved : {index - 1, index + 1}) {  // index - 1 wraps past the end when index is 0
        if (moved >= param.values.size()) continue;
        ParamValues next = current;
        next[param.name] = param.values[moved];
        if (visited.insert(key(next)).second) queue.push_back(std::move(next));
      }
    }
  }
  return std::nullopt;
}

std::optional<std::size_t> ParamSpace::index_of(const TunableParam& param, std::int64_t value) const {
  auto it = std::find(param.values.begin(), param.values.end(), value);
  if (it == param.values.end()) return std::nullopt;
  return static_cast<std::size_t>(it - param.values.begin());
}

int ParamSpace::distance(const ParamValues& a, const ParamValues& b) const {
  const ParamValues full_a = complete(a), full_b = complete(b);
  int total = 0;
  for (const auto& param : task_.params) {
    const auto ia = index_of(param, full_a.at(param.name));
    const auto ib = index_of(param, full_b.at(param.name));
    if (ia && ib) {
      total += static_cast<int>(*ia > *ib ? *ia - *ib : *ib - *ia);
    } else if (full_a.at(param.name) != full_b.at(param.name)) {
      total += static_cast<int>(param.values.size());
    }
  }
  return total;
}

std::string ParamSpace::key(const ParamValues& values) const {
  const ParamValues completed = complete(values);
  std::string text;
  for (const auto& param : task_.params)
    text += (text.empty() ? "" : ",") + param.name + "=" + std::to_string(completed.at(param.name));
  return text;
}

}  // namespace kforge
