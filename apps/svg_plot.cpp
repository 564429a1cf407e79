#include "apps/svg_plot.h"

#include <algorithm>
#include <cmath>

#include "apps/html_page.h"
#include "sim/text_format.h"

namespace loom {

namespace {

// Colour-blind-safe (Okabe-Ito), cycled.
const char* kColours[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"};

std::string tick_label(double v) {
  std::string s;
  append_format(s, "%g", v);
  return s;
}

}  // namespace

std::string svg_log_scatter(const std::vector<ScatterSeries>& series, const std::string& x_label,
                            const std::string& y_label, double band) {
  double lo = INFINITY, hi = -INFINITY;
  for (const ScatterSeries& s : series)
    for (const ScatterPoint& p : s.points)
      if (p.x > 0 && p.y > 0) {
        lo = std::min({lo, p.x, p.y});
        hi = std::max({hi, p.x, p.y});
      }
  if (!(lo <= hi)) return "<p>(no points to plot)</p>\n";
  // Both axes share one decade-aligned range, so the diagonal is the 45-degree line.
  const double d0 = std::floor(std::log10(lo)), d1 = std::max(d0 + 1, std::ceil(std::log10(hi)));
  const double left = 70, top = 20, size = 420, width = left + size + 200, height = top + size + 50;
  auto px = [&](double v) { return left + (std::log10(v) - d0) / (d1 - d0) * size; };
  auto py = [&](double v) { return top + size - (std::log10(v) - d0) / (d1 - d0) * size; };
  std::string out;
  append_format(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
                width, height, width, height);
  append_format(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n", left,
                top, size, size);
  for (double d = d0; d <= d1; ++d) {
    const double v = std::pow(10.0, d);
    append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", px(v), top, px(v),
                  top + size);
    append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>\n", left, py(v),
                  left + size, py(v));
    append_format(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n", px(v),
                  top + size + 15, tick_label(v).c_str());
    append_format(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s</text>\n", left - 5,
                  py(v) + 4, tick_label(v).c_str());
  }
  const double a = std::pow(10.0, d0), b = std::pow(10.0, d1);
  append_format(out, "<line class=\"diagonal\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>\n", px(a),
                py(a), px(b), py(b));
  if (band > 0)
    for (double f : {1 + band, 1 - band}) {
      // y = f x is a parallel line on log axes; clip it to the square.
      const double x0 = f > 1 ? a : a / f, x1 = f > 1 ? b / f : b;
      append_format(out,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n",
                    px(x0), py(f * x0), px(x1), py(f * x1));
    }
  append_format(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n", left + size / 2,
                top + size + 35, html_escape(x_label).c_str());
  append_format(out,
                "<text x=\"15\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 15 %.1f)\">%s</text>\n",
                top + size / 2, top + size / 2, html_escape(y_label).c_str());
  for (size_t i = 0; i < series.size(); ++i) {
    const char* colour = kColours[i % (sizeof kColours / sizeof *kColours)];
    for (const ScatterPoint& p : series[i].points) {
      if (!(p.x > 0 && p.y > 0)) continue;
      append_format(out, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" fill-opacity=\"0.8\"><title>%s</title></circle>\n",
                    px(p.x), py(p.y), colour, html_escape(p.label).c_str());
    }
    const double ly = top + 10 + 18 * static_cast<double>(i);
    append_format(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n", left + size + 20, ly, colour);
    append_format(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n", left + size + 30, ly + 4,
                  html_escape(series[i].name).c_str());
  }
  return out + "</svg>\n";
}

}  // namespace loom
