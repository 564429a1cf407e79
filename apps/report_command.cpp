#include "apps/report_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <CLI/CLI.hpp>

#include "apps/report_html.h"
#include "apps/report_writer.h"
#include "sim/error.h"
#include "sim/text_file.h"
#include "sweep/point_log.h"

namespace loom {

namespace fs = std::filesystem;

void add_report_command(CLI::App& app, ReportArgs& args) {
  CLI::App* r = app.add_subcommand("report", "Write RESULT_DIR/report.html (roofline, latency, energy, data "
                                             "movement; Pareto front for sweeps) from a run's or a sweep's results");
  r->add_option("dir", args.dir, "Result directory of loom run, sweep or merge")->required();
}

namespace {

// The renderers name fields by JSON path; the user needs the file too.
template <typename Render>
std::string rendered(const std::string& file, Render render) {
  try {
    return render();
  } catch (const InputError& e) {
    throw InputError(file, e.field(), e.expected());
  }
}

}  // namespace

std::string write_report_html(const std::string& dir) {
  const fs::path d(dir);
  const std::string out = (d / "report.html").string();
  if (fs::exists(d / "sweep.json")) {
    const Json manifest = load_json_file((d / "sweep.json").string());
    const std::string pareto_file = (d / "pareto.json").string();
    if (!fs::exists(pareto_file)) {
      throw InputError(pareto_file, "(file)", "a finished sweep (pareto.json is written at the end; resume the sweep)");
    }
    const Json pareto = load_json_file(pareto_file);
    // Streamed: every point is counted, every k-th kept for the plot (kMaxReportPoints).
    const int64_t expected = manifest.is_object() ? manifest.value("points_done", int64_t{0}) : 0;
    const int64_t every = std::max<int64_t>(1, (expected + kMaxReportPoints - 1) / kMaxReportPoints);
    std::vector<Json> points;
    SweepPointCounts all;
    for_each_point_line((d / "points.jsonl").string(), [&](Json& r, int64_t) {
      const bool failed = r.contains("error") && !r["error"].is_null();
      const bool feasible = r.value("feasible", false);
      ++(failed ? all.failed : feasible ? all.feasible : all.infeasible);
      if (all.points++ % every == 0) points.push_back(std::move(r));
    });
    write_file_atomically(out, rendered(d.string(), [&] { return render_sweep_report(manifest, points, pareto, &all); }));
    return out;
  }
  if (fs::exists(d / "validation.json") && fs::exists(out)) {
    // loom validate renders its page from the simulation itself, not from validation.json.
    return out;
  }
  const std::string report = (d / "report.json").string();
  if (!fs::exists(report)) {
    throw InputError(dir, "RESULT_DIR", "a result directory of loom run (report.json) or loom sweep (sweep.json)");
  }
  const Json doc = load_json_file(report);
  if (doc.is_object() && doc.value("kind", "") == "train") {
    throw InputError(report, "kind", "a `loom run` report: `loom train` writes its own report.html next to this "
                                     "report.json (run loom train again to redraw it)");
  }
  if (!doc.is_object() || !doc.contains("summary")) {
    throw InputError(report, "summary", "a report.json written by this loom version (it has no \"summary\"; run again)");
  }
  write_file_atomically(out, rendered(report, [&] { return render_run_report(doc["summary"]); }));
  return out;
}

void write_run_files(const std::string& out_dir, Json report, const NetworkEvaluation& evaluation,
                     const std::string& layers_csv, const std::string& resolved_json) {
  report["summary"] = evaluation_to_json(evaluation);
  const std::string page = render_run_report(report["summary"]);  // rendered before anything is written
  const std::string report_text = report.dump(2) + "\n";
  make_output_dir(out_dir);
  // A previous run's report.json goes first: its presence means the set beside it is
  // complete, which a kill between the renames below would otherwise make untrue.
  std::error_code ec;
  fs::remove(fs::path(out_dir) / "report.json", ec);
  write_file_atomically((fs::path(out_dir) / "report.html").string(), page);
  write_report_files(out_dir, report_text, layers_csv, resolved_json);
}

int report_command(const ReportArgs& args) {
  const fs::path d(args.dir);
  const bool validation = fs::exists(d / "validation.json") && !fs::exists(d / "sweep.json");
  const std::string page = write_report_html(args.dir);
  std::printf(validation ? "%s is loom validate's page (re-run loom validate to refresh it)\n" : "wrote %s\n",
              page.c_str());
  return 0;
}

}  // namespace loom
