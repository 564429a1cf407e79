// Inline SVG charts for the run and sweep HTML reports (apps/report_html.h): a roofline, bar
// charts (one bar per row, stacked or grouped series) and a scatter with several mark kinds.
// Every chart is a pure function from numbers and text to an <svg> element: axes with ticks
// and labels, a legend where there is more than one series, and a <title> tooltip on every
// mark. Every mark carries a class (given by the caller) so tests and the headless-browser
// check (tests/browser/check_report.py) can count them. Text is escaped here; callers pass
// plain text. No xmlns attribute: inline SVG in HTML needs none, and the pages hold no URL.
// Output depends only on the input (fixed-precision formatting), so it is byte-for-byte stable.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace loom {

// A number with an SI prefix and `digits` significant digits: si_format(2.5e-6, "s") = "2.5 µs",
// si_format(1.2e12, "FLOP/s") = "1.2 TFLOP/s", si_format(0, "J") = "0 J". An empty unit gives
// the bare number with its prefix ("2.5µ"), as the tick labels use.
std::string si_format(double value, const std::string& unit, int digits = 4);

// ---------------------------------------------------------------------------------------------
// Roofline (log-log): x = operational intensity (FLOP/byte), y = FLOP/s.
struct RoofLine {
  std::string name;  // compute roof name, or the memory level of a bandwidth roof
  double value = 0;  // FLOP/s for a compute roof, bytes/s for a bandwidth roof (> 0)
};

struct RooflinePoint {
  std::string tooltip;
  std::optional<double> intensity;  // FLOP/byte; none: no DRAM traffic (drawn at the right edge)
  double flops_per_second = 0;      // achieved; <= 0 is drawn on the bottom edge
  bool memory_bound = false;        // colour
};

struct RooflineChart {
  std::vector<RoofLine> compute_roofs;    // any order; the highest is the peak
  std::vector<RoofLine> bandwidth_roofs;  // innermost first, DRAM (the layers' intensity) last
  std::vector<RooflinePoint> layers;      // <circle class="layer-point">, one each
  std::optional<RooflinePoint> total;     // <path class="network-point">
};

// One horizontal line per compute roof (class "compute-roof"), starting where it meets the
// DRAM roof; one diagonal per bandwidth roof (class "bandwidth-roof"), ending where it meets
// the peak compute roof, at that roof's ridge point (<rect class="ridge-point">).
std::string svg_roofline(const RooflineChart& chart);

// ---------------------------------------------------------------------------------------------
// Horizontal bars: one row per category, top to bottom in the given order.
struct BarChart {
  std::string x_label;               // axis title, unit included, e.g. "latency (s)"
  std::string mark_class;            // class of every bar
  std::vector<std::string> series;   // one colour each; a legend when there are two or more
  std::vector<std::string> rows;     // row labels (long ones are shortened; tooltips keep them)
  std::vector<std::vector<double>> values;         // [row][series], >= 0, in axis units
  std::vector<std::vector<std::string>> tooltips;  // [row][series]
  bool stacked = true;    // false: grouped (one thin bar per series inside the row)
  bool allow_log = false; // grouped only: a log axis when the positive values span > 10x
  bool keep_zero = false; // draw zero-width bars too (one mark per row, e.g. latency)
};

// One <rect class=mark_class> per row x series whose value is > 0 (every one with keep_zero).
std::string svg_bar_chart(const BarChart& chart);

// ---------------------------------------------------------------------------------------------
// Scatter with several kinds of marks over shared axes.
enum class MarkShape { circle, ring, cross, diamond, square };

struct ScatterMark {
  double x = 0, y = 0;
  std::string tooltip;
};

struct MarkSet {
  std::string legend;      // legend text ("" = not in the legend)
  std::string mark_class;  // class attribute of every mark (may hold several classes)
  MarkShape shape = MarkShape::circle;
  std::string colour = "#0072B2";
  double size = 4;                 // radius in pixels
  bool connect = false;            // a polyline through the marks in x order (class "<first class>-line")
  std::vector<ScatterMark> marks;
};

struct ScatterChart {
  std::string x_label, y_label;
  std::vector<MarkSet> sets;  // drawn in order, later on top
  // Thin dashed lines between pairs of points (e.g. an analytic point and its cycle-level value).
  std::vector<std::pair<ScatterMark, ScatterMark>> links;
  // Marks with no coordinates (e.g. points that failed to evaluate), in a strip under the plot.
  MarkSet unplaced;
  std::string unplaced_label;
};

// Each axis is logarithmic when all its values are > 0 and span more than a decade, else linear.
std::string svg_scatter(const ScatterChart& chart);

}  // namespace loom
