// `loom report RESULT_DIR`: (re)writes RESULT_DIR/report.html from the result files a
// `loom run` (report.json's "summary") or a `loom sweep` / `loom merge` (sweep.json,
// points.jsonl, pareto.json) left there. `run` and `sweep` call it themselves when they
// finish. Pages: docs/reports.md.
#pragma once

#include <string>

#include "mapper/network_evaluation.h"

namespace CLI { class App; }

namespace loom {

struct ReportArgs {
  std::string dir;
};

void add_report_command(CLI::App& app, ReportArgs& args);
int report_command(const ReportArgs& args);

// Renders the page for the results in `dir` and writes dir/report.html atomically; returns
// its path. InputError naming the file when the directory holds no results it knows. A
// `loom validate` directory keeps the page validate wrote (rendered from the simulation,
// not from validation.json): its path is returned unchanged.
std::string write_report_html(const std::string& dir);

// `loom run`'s files: report.json (with the evaluation as its "summary"), layers.csv,
// resolved_config.json and report.html, each written atomically, report.json last.
void write_run_files(const std::string& out_dir, Json report, const NetworkEvaluation& evaluation,
                     const std::string& layers_csv, const std::string& resolved_json);

}  // namespace loom
