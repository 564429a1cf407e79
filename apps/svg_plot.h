// Inline SVG charts for the HTML reports.
#pragma once

#include <string>
#include <vector>

namespace loom {

struct ScatterPoint {
  double x = 0, y = 0;
  std::string label;  // tooltip (SVG <title>)
};

struct ScatterSeries {
  std::string name;
  std::vector<ScatterPoint> points;
};

// A log-log scatter of y against x with the y = x diagonal and dashed lines at y = x(1 +- band)
// (band 0: none), one colour per series, a legend. Points with a non-positive coordinate are
// left out (log axes). Each point is a <circle class="point">.
std::string svg_log_scatter(const std::vector<ScatterSeries>& series, const std::string& x_label,
                            const std::string& y_label, double band);

}  // namespace loom
