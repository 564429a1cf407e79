// Self-contained HTML reports for a run and for a sweep: one file, inline CSS and SVG charts
// (apps/svg_charts.h), no JavaScript and no URL, so a report opens offline and can be mailed or
// archived as is. Pure functions from the result JSON to the page: no file I/O here (the
// callers in `loom run`, `loom sweep` and `loom report` read and write the files). The same
// input always gives the same bytes. What the pages show: docs/reports.md.
//
// Inputs are read strictly: a missing field or a value of the wrong type or range throws
// InputError with file "" and the field's JSON path, which the caller re-labels with the file:
//   render_run_report:   "summary.layers[2].roofline.bound" (a path inside report.json);
//   render_sweep_report: the first component names the document: "sweep.objectives[0].metric"
//                        (sweep.json), "points[17].metrics.latency_s" (points[i] is line i + 1
//                        of points.jsonl), "pareto.front[2].cycle" (pareto.json).
// Unknown extra keys are ignored (consumers of the result files must accept added fields).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/json_reader.h"

namespace loom {

// A run's page from report.json's "summary" object (schema: docs/reports.md).
std::string render_run_report(const Json& summary);

// How many points a sweep has in all, when the page gets only a sample of them.
struct SweepPointCounts {
  int64_t points = 0, feasible = 0, infeasible = 0, failed = 0;
};

// Points a sweep page plots at most: beyond this, write_report_html passes an even sample
// (every k-th line) and the counts of all. 20,000 points make a page of about 7 MB; a
// sweep may have 10^7, which would make one of several GB.
inline constexpr int64_t kMaxReportPoints = 20'000;

// A sweep's page from its manifest (sweep.json), its points (points.jsonl, one Json per line,
// in file order; or a sample of them, with `all` counting every point) and its front
// (pareto.json).
std::string render_sweep_report(const Json& manifest, const std::vector<Json>& points, const Json& pareto,
                                const SweepPointCounts* all = nullptr);

}  // namespace loom
