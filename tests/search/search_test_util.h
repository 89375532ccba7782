// Shared helpers for the search tests: the real example manifests and hand-made individuals.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "search/dedup.h"
#include "search/operator.h"
#include "task/task.h"
#include "util/files.h"

namespace kforge::testing {

inline const std::vector<std::string>& example_names() {
  static const std::vector<std::string> names{"conv2d",    "histogram", "matrix_transpose", "row_softmax",
                                              "saxpy",     "sgemm",     "sum_reduction",    "vector_add"};
  return names;
}

inline Task load_example(const std::string& name, const std::string& language) {
  return load_task(std::filesystem::path(KFORGE_SOURCE_DIR) / "examples" / name / language / "kforge.toml");
}

inline Task load_faulty_correct() {
  return load_task(std::filesystem::path(KFORGE_SOURCE_DIR) / "tests/kernels/faulty/correct.kforge.toml");
}

// The task's own kernel with its default params, as the search's first individual.
inline Individual baseline_of(const Task& task, std::int64_t id = 1) {
  Individual individual;
  individual.id = id;
  individual.variant.source = read_file(task.kernel.source);
  individual.variant.params = task.default_params();
  individual.status = CandidateStatus::Correct;
  individual.median_ms = 1.0;
  return individual;
}

inline Individual timed(std::int64_t id, double median_ms, std::string source = "k", ParamValues params = {}) {
  Individual individual;
  individual.id = id;
  individual.variant.source = std::move(source);
  individual.variant.params = std::move(params);
  individual.status = CandidateStatus::Correct;
  individual.median_ms = median_ms;
  return individual;
}

inline Individual failed(std::int64_t id, CandidateStatus status = CandidateStatus::Incorrect) {
  Individual individual;
  individual.id = id;
  individual.variant.source = "broken";
  individual.status = status;
  individual.median_ms = 0.001;  // a stray timing must never make a failure look fit
  return individual;
}

// An operator context whose already_seen is backed by a SeenSet the test controls.
struct ContextFixture {
  explicit ContextFixture(const Task& t, std::uint64_t seed = 7) : task(t), rng(seed), seen(t.kernel.language) {}

  OperatorContext context() {
    return OperatorContext{task, rng, history, [this](const KernelVariant& v) { return seen.contains(v); }, "test"};
  }

  Task task;
  std::mt19937_64 rng;
  std::vector<Individual> history;
  SeenSet seen;
};

}  // namespace kforge::testing
