#include "report/report.h"

#include "report/html_report.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/report_data.h"
#include "util/files.h"

namespace kforge {

ReportFiles write_report(const RunStore& store, const std::filesystem::path& out_dir,
                         const ReportInputs& inputs) {
  const ReportData data = collect_report_data(store, inputs);
  ReportFiles files;
  files.markdown = out_dir / "report.md";
  files.html = out_dir / "report.html";
  files.json = out_dir / "report.json";
  write_file(files.markdown, render_markdown(data));
  write_file(files.html, render_html(data));
  write_file(files.json, render_json(data).dump(2) + "\n");
  if (data.best) {
    files.best_source = out_dir / ("best" + data.extension);
    files.diff = out_dir / "best.diff";
    write_file(files.best_source, data.deliverable);
    write_file(files.diff, data.diff);
  }
  return files;
}

}  // namespace kforge
