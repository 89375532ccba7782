// Naming new run folders and listing existing ones for `kforge runs`.
#include "store/run_store.h"

#include <algorithm>
#include <cctype>
#include <ctime>

namespace kforge {
namespace {

// Task names become part of a folder name: keep it portable.
std::string folder_safe(const std::string& name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  return out.empty() ? "task" : out;
}

RunSummary summarize(const std::filesystem::path& dir) {
  RunSummary summary;
  summary.path = dir;
  try {
    auto store = RunStore::open_read_only(dir);
    const RunSettings settings = store.read_settings();
    summary.task_name = settings.task_name;
    summary.status = settings.status;
    summary.started_at = settings.started_at;
    summary.last_generation = store.last_completed_generation();
    summary.candidates = store.count_candidates();
    CandidateFilter correct;
    correct.statuses = {CandidateStatus::Correct};
    summary.correct = store.count_candidates(correct);
    if (auto best = store.best_candidate()) {
      summary.best_median_ms = best->median_ms();
      summary.best_speedup = best->speedup();
      if (!summary.best_speedup && summary.best_median_ms)
        if (auto baseline = store.baseline())
          if (auto base_ms = baseline->median_ms; base_ms && *summary.best_median_ms > 0)
            summary.best_speedup = *base_ms / *summary.best_median_ms;
    }
  } catch (const std::exception& e) {
    summary.error = e.what();
  }
  return summary;
}

}  // namespace

std::filesystem::path RunStore::new_run_dir(const std::filesystem::path& runs_root,
                                            const std::string& task_name) {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  const std::string base = std::string(stamp) + "-" + folder_safe(task_name);
  auto candidate = runs_root / base;
  for (int n = 2; std::filesystem::exists(candidate); ++n)
    candidate = runs_root / (base + "-" + std::to_string(n));
  return candidate;
}

std::vector<RunSummary> RunStore::list_runs(const std::filesystem::path& runs_root) {
  std::vector<RunSummary> runs;
  std::error_code ec;
  if (!std::filesystem::is_directory(runs_root, ec)) return runs;
  for (const auto& entry : std::filesystem::directory_iterator(runs_root, ec)) {
    // Only folders with a run.db are runs; anything else in runs/ is not ours to judge.
    if (entry.is_directory(ec) && std::filesystem::exists(entry.path() / kDatabaseName, ec))
      runs.push_back(summarize(entry.path()));
  }
  // Folder names start with a timestamp, so name order is start order.
  std::sort(runs.begin(), runs.end(), [](const RunSummary& a, const RunSummary& b) {
    return a.path.filename().string() > b.path.filename().string();
  });
  return runs;
}

}  // namespace kforge
