// `kforge report`: turns a run folder's run.db into report.md, report.html, report.json,
// best.<ext> and best.diff.
#pragma once

#include "store/run_store.h"
#include "task/task.h"

#include <filesystem>
#include <string>

namespace kforge {

struct ReportInputs {
  std::string task_name;  // empty: the run's task_name setting
  Language language = Language::Cuda;
  std::string original_source;     // the task's kernel before optimisation
  std::string original_file_name;  // label in best.diff, e.g. "saxpy.cu"; default "original.<ext>"
  std::string device_name;         // shown in the summary when known
  std::vector<std::string> task_compile_options;  // the manifest's, stated in best.<ext>
};

struct ReportFiles {
  std::filesystem::path markdown;
  std::filesystem::path html;
  std::filesystem::path json;
  std::filesystem::path best_source;  // empty when the run has no correct candidate
  std::filesystem::path diff;         // empty when the run has no correct candidate
};

// Writes the files into out_dir (normally the run folder). Each file is written atomically.
ReportFiles write_report(const RunStore& store, const std::filesystem::path& out_dir,
                         const ReportInputs& inputs);

// ".cu", ".cl", ".hip", ".py".
std::string source_extension(Language language);

}  // namespace kforge
