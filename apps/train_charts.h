// Inline SVG charts of the `loom train` report (apps/train_report.h): a Gantt chart of the
// per-step timeline (one row per device x lane, bars coloured by phase, time axis in ms) and
// stacked bars of memory per device against its capacity. Like apps/svg_charts.h: pure
// functions from numbers and text to an <svg> element, a <title> tooltip on every mark, a
// class on every mark (for tests and the headless-browser check), text escaped here, output
// byte-for-byte stable.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace loom {

// ---------------------------------------------------------------------------------------------
// Gantt chart.
struct GanttBar {
  size_t row = 0;
  double start = 0, end = 0;  // seconds
  std::string phase;          // picks the colour (GanttChart::phases)
  std::string label;          // tooltip: what ran
};

struct GanttChart {
  std::vector<std::string> rows;  // labels, top to bottom
  std::vector<GanttBar> bars;
  // Legend order and colour of each phase; phases not listed are drawn grey, and only listed
  // phases that some bar uses appear in the legend.
  std::vector<std::pair<std::string, std::string>> phases;
  double end_seconds = 0;   // the axis' end; 0 = the latest bar's end
  size_t max_bars = 2000;   // more bars than this: adjacent tiny bars of one phase are merged
  std::string mark_class = "timeline-bar";
};

// A merged bar: `count` bars of one row and phase, from the first's start to the last's end.
struct MergedBar {
  GanttBar bar;
  size_t count = 1;
  std::string last_label;
};

// Sorted by (row, start). While there are more than `max_bars` bars, neighbours in a row with
// the same phase are merged when the gap between them is at most g pixels and one of them is
// narrower than g pixels, for g = 1, 2, 4, ... 256 pixels (`seconds_per_pixel` converts);
// past that, every pair of same-phase neighbours merges. Fewer bars: returned as they are.
std::vector<MergedBar> merge_gantt_bars(const std::vector<GanttBar>& bars, size_t max_bars, double seconds_per_pixel);

// One <rect class=mark_class> per (merged) bar; a legend of the phases above the plot; a note
// under the axis when bars were merged.
std::string svg_gantt(const GanttChart& chart);

// ---------------------------------------------------------------------------------------------
// Stacked horizontal bars with a capacity mark per row (memory per device).
struct CapacityBarChart {
  std::string x_label;               // axis title with its unit, e.g. "memory (GiB)"
  std::string mark_class;            // class of every bar segment
  std::vector<std::string> series;   // stacked components, one colour each
  std::vector<std::string> rows;     // row labels
  std::vector<std::vector<double>> values;         // [row][series], >= 0, axis units
  std::vector<std::vector<std::string>> tooltips;  // [row][series]
  std::vector<double> capacity;      // [row], axis units; 0 = unknown (no mark)
  std::string capacity_label = "capacity";
  std::string unit;                  // the axis unit, for the capacity marks' tooltips ("GiB")
};

// Segments as <rect class=mark_class>; each known capacity as <line class="capacity-mark">;
// rows whose stack exceeds their capacity get their label in red.
std::string svg_capacity_bars(const CapacityBarChart& chart);

}  // namespace loom
