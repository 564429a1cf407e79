#include "apps/svg_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numbers>

#include "apps/html_page.h"
#include "sim/text_format.h"

namespace loom {

namespace {

// Colour-blind-safe (Okabe-Ito), cycled; the same order as svg_plot.cpp.
const char* const kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
const char* palette(size_t i) { return kPalette[i % (sizeof kPalette / sizeof *kPalette)]; }

const char* const kMemoryColour = "#D55E00";
const char* const kComputeColour = "#0072B2";

// A value axis: linear, or logarithmic between decade-aligned bounds.
struct Axis {
  bool log = false;
  double lo = 0, hi = 1;

  // 0 at lo, 1 at hi.
  double frac(double v) const {
    if (log) return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
    return (v - lo) / (hi - lo);
  }
  bool contains(double v) const { return v >= lo && v <= hi && (!log || v > 0); }

  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      // Decades inside the range; 2x and 5x as well when there are too few decades to read.
      const int d0 = static_cast<int>(std::ceil(std::log10(lo) - 1e-9)), d1 = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
      const int every = std::max(1, (d1 - d0 + 8) / 8);  // at most about 8 labelled decades
      for (int d = d0; d <= d1; d += every) out.push_back(std::pow(10.0, d));
      if (d1 - d0 < 2) {
        for (int d = d0 - 1; d <= d1; ++d)
          for (double m : {2.0, 5.0})
            if (contains(m * std::pow(10.0, d))) out.push_back(m * std::pow(10.0, d));
        std::sort(out.begin(), out.end());
      }
    } else {
      const double step = nice_step(hi - lo);
      const long k0 = std::lround(std::ceil(lo / step - 1e-9)), k1 = std::lround(std::floor(hi / step + 1e-9));
      for (long k = k0; k <= k1; ++k) out.push_back(static_cast<double>(k) * step);
    }
    return out;
  }

  // 1, 2 or 5 times a power of ten, giving about five intervals over `span`.
  static double nice_step(double span) {
    const double raw = span / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
      if (m * mag >= raw * (1 - 1e-9)) return m * mag;
    return 10 * mag;
  }
};

Axis log_axis(double min, double max) {
  const double d0 = std::floor(std::log10(min) + 1e-9);
  double d1 = std::ceil(std::log10(max) - 1e-9);
  if (d1 <= d0) d1 = d0 + 1;
  return {true, std::pow(10.0, d0), std::pow(10.0, d1)};
}

Axis linear_axis(double min, double max) {
  if (!(max > min)) {  // one value: a range around it
    const double pad = min != 0 ? std::fabs(min) * 0.1 : 1;
    min -= pad;
    max += pad;
  }
  const double step = Axis::nice_step(max - min);
  return {false, std::floor(min / step + 1e-9) * step, std::ceil(max / step - 1e-9) * step};
}

// Log when every value is > 0 and they span more than a decade (and log is allowed). A linear
// axis from zero suits bars; `padded` leaves a margin so no mark sits on the frame.
Axis auto_axis(const std::vector<double>& values, bool allow_log, bool from_zero, bool padded = false) {
  if (values.empty()) return Axis{false, 0, 1};
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  if (allow_log && *mn > 0 && *mx > 10 * *mn) {
    if (!padded) return log_axis(*mn, *mx);
    const double pad = std::pow(10.0, 0.04 * std::log10(*mx / *mn));
    return Axis{true, *mn / pad, *mx * pad};
  }
  if (from_zero) return linear_axis(std::min(0.0, *mn), *mx > 0 ? *mx : 1);
  const double pad = padded ? 0.04 * (*mx - *mn) : 0;
  return linear_axis(*mn - pad, *mx + pad);
}

// Plot area in pixels.
struct Frame {
  double left = 80, top = 20, width = 560, height = 400;
  double px(const Axis& a, double v) const { return left + a.frac(v) * width; }
  double py(const Axis& a, double v) const { return top + height - a.frac(v) * height; }
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

void svg_open(std::string& out, double width, double height, const std::string& label) {
  append_format(out, "<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"%s\">\n",
                width, height, width, height, html_escape(label).c_str());
}

void text(std::string& out, double x, double y, const char* anchor, int size, const std::string& s) {
  append_format(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\">%s</text>\n", x, y, size, anchor,
                html_escape(s).c_str());
}

void x_axis(std::string& out, const Frame& f, const Axis& a, const std::string& label, bool grid) {
  for (double t : a.ticks()) {
    const double x = f.px(a, t);
    if (grid)
      append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x, f.top, x,
                    f.bottom());
    append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x, f.bottom(), x,
                  f.bottom() + 4);
    text(out, x, f.bottom() + 16, "middle", 11, si_format(t, "", 3));
  }
  append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", f.left, f.bottom(),
                f.right(), f.bottom());
  text(out, f.left + f.width / 2, f.bottom() + 34, "middle", 12, label);
}

void y_axis(std::string& out, const Frame& f, const Axis& a, const std::string& label) {
  for (double t : a.ticks()) {
    const double y = f.py(a, t);
    append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", f.left, y,
                  f.right(), y);
    append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", f.left - 4, y,
                  f.left, y);
    text(out, f.left - 7, y + 4, "end", 11, si_format(t, "", 3));
  }
  append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", f.left, f.top, f.left,
                f.bottom());
  append_format(out,
                "<text x=\"16\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">%s</text>\n",
                f.top + f.height / 2, f.top + f.height / 2, html_escape(label).c_str());
}

// One mark of a given shape centred on (x, y), with its tooltip.
void mark(std::string& out, MarkShape shape, const std::string& cls, double x, double y, double s, const char* colour,
          bool hollow, const std::string& tooltip) {
  const std::string title = "<title>" + html_escape(tooltip) + "</title>";
  const std::string c = html_escape(cls);
  const char* fill = hollow ? "#fff" : colour;
  switch (shape) {
    case MarkShape::circle:
      append_format(out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" fill-opacity=\"%s\" stroke=\"%s\">%s</circle>\n",
                    c.c_str(), x, y, s, fill, hollow ? "1" : "0.75", colour, title.c_str());
      break;
    case MarkShape::ring:
      append_format(out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\">%s</circle>\n",
                    c.c_str(), x, y, s, colour, title.c_str());
      break;
    case MarkShape::cross:
      append_format(out, "<path class=\"%s\" d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\" stroke=\"%s\" stroke-width=\"2\" fill=\"none\">%s</path>\n",
                    c.c_str(), x - s, y - s, x + s, y + s, x - s, y + s, x + s, y - s, colour, title.c_str());
      break;
    case MarkShape::diamond:
      append_format(out, "<path class=\"%s\" d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\" stroke=\"%s\">%s</path>\n",
                    c.c_str(), x, y - s, x + s, y, x, y + s, x - s, y, fill, colour, title.c_str());
      break;
    case MarkShape::square:
      append_format(out, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" stroke=\"%s\">%s</rect>\n",
                    c.c_str(), x - s, y - s, 2 * s, 2 * s, fill, colour, title.c_str());
      break;
  }
}

// A legend entry: a sample mark (no class, no tooltip) and its text.
void legend_mark(std::string& out, double x, double y, MarkShape shape, const char* colour, double s, bool hollow,
                 const std::string& label) {
  std::string sample;
  mark(sample, shape, "legend", x, y, s, colour, hollow, label);
  out += sample;
  text(out, x + 12, y + 4, "start", 12, label);
}

void legend_line(std::string& out, double x, double y, const char* colour, bool dashed, const std::string& label) {
  append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", x - 6, y,
                x + 6, y, colour, dashed ? " stroke-dasharray=\"5 3\"" : "");
  text(out, x + 12, y + 4, "start", 12, label);
}

std::string shorten(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return s.substr(0, cut) + "\xe2\x80\xa6";
}

}  // namespace

std::string si_format(double value, const std::string& unit, int digits) {
  if (!std::isfinite(value)) return "-";
  const std::string sep = unit.empty() ? "" : " ";
  if (value == 0) return "0" + sep + unit;
  // Round to `digits` significant digits first, then pick the prefix from the rounded exponent.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", std::max(0, digits - 1), value);
  const int e = std::atoi(std::strchr(buf, 'e') + 1);
  int e3 = e >= 0 ? e / 3 : -((-e + 2) / 3);
  e3 = std::clamp(e3, -5, 6);
  static const char* const kPrefix[] = {"f", "p", "n", "\xc2\xb5", "m", "", "k", "M", "G", "T", "P", "E"};
  std::string out;
  append_format(out, "%.*g", digits, value / std::pow(10.0, 3 * e3));
  return out + sep + kPrefix[e3 + 5] + unit;
}

// ---------------------------------------------------------------------------------------------

std::string svg_roofline(const RooflineChart& c) {
  double peak = 0;
  for (const RoofLine& r : c.compute_roofs) peak = std::max(peak, r.value);
  std::vector<const RooflinePoint*> points;
  for (const RooflinePoint& p : c.layers) points.push_back(&p);
  if (c.total) points.push_back(&*c.total);
  if (peak <= 0)
    for (const RooflinePoint* p : points) peak = std::max(peak, p->flops_per_second);
  if (peak <= 0) peak = 1;

  // Axis ranges: every point, every ridge, every compute roof, with some air around them.
  double x_min = INFINITY, x_max = -INFINITY, y_min = peak;
  bool unbounded = false;
  for (const RooflinePoint* p : points) {
    if (p->intensity && *p->intensity > 0) {
      x_min = std::min(x_min, *p->intensity);
      x_max = std::max(x_max, *p->intensity);
    } else {
      unbounded = true;
    }
    if (p->flops_per_second > 0) y_min = std::min(y_min, p->flops_per_second);
  }
  for (const RoofLine& b : c.bandwidth_roofs) {
    x_min = std::min(x_min, peak / b.value);
    x_max = std::max(x_max, peak / b.value);
  }
  for (const RoofLine& r : c.compute_roofs) y_min = std::min(y_min, r.value);
  if (!(x_min <= x_max)) x_min = x_max = 1;
  const Axis xa = log_axis(x_min / 2, x_max * (unbounded ? 20 : 2));
  const Axis ya = log_axis(y_min / 2, peak * 1.5);

  Frame f;
  const double width = f.right() + 250, height = f.bottom() + 50;
  std::string out;
  svg_open(out, width, height, "roofline");
  append_format(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n", f.left,
                f.top, f.width, f.height);
  x_axis(out, f, xa, "operational intensity (FLOP/byte of DRAM traffic)", true);
  y_axis(out, f, ya, "performance (FLOP/s)");

  // Bandwidth roofs: y = B x, from where it enters the plot up to the peak compute roof.
  for (size_t i = 0; i < c.bandwidth_roofs.size(); ++i) {
    const RoofLine& b = c.bandwidth_roofs[i];
    const bool dram = i + 1 == c.bandwidth_roofs.size();
    const double x0 = std::max(xa.lo, ya.lo / b.value), x1 = std::min(xa.hi, peak / b.value);
    if (!(x0 < x1)) continue;
    const char* colour = dram ? "#444" : palette(5 + i);
    const double X0 = f.px(xa, x0), Y0 = f.py(ya, b.value * x0), X1 = f.px(xa, x1), Y1 = f.py(ya, b.value * x1);
    const std::string tip = b.name + " bandwidth roof: " + si_format(b.value, "B/s");
    append_format(out, "<line class=\"bandwidth-roof\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s><title>%s</title></line>\n",
                  X0, Y0, X1, Y1, colour, dram ? "" : " stroke-dasharray=\"6 3\"", html_escape(tip).c_str());
    const double angle = std::atan2(Y1 - Y0, X1 - X0) * 180 / std::numbers::pi;
    const double tx = X0 + 0.3 * (X1 - X0), ty = Y0 + 0.3 * (Y1 - Y0) - 5;
    append_format(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\" transform=\"rotate(%.1f %.1f %.1f)\">%s</text>\n",
                  tx, ty, colour, angle, tx, ty, html_escape(b.name + " " + si_format(b.value, "B/s", 3)).c_str());
  }
  // Compute roofs: horizontal, from where they meet the DRAM roof to the right edge.
  std::vector<const RoofLine*> roofs;
  for (const RoofLine& r : c.compute_roofs) roofs.push_back(&r);
  std::stable_sort(roofs.begin(), roofs.end(), [](const RoofLine* a, const RoofLine* b) { return a->value > b->value; });
  const double dram_bw = c.bandwidth_roofs.empty() ? 0 : c.bandwidth_roofs.back().value;
  for (size_t i = 0; i < roofs.size(); ++i) {
    const RoofLine& r = *roofs[i];
    const double x0 = dram_bw > 0 ? std::max(xa.lo, r.value / dram_bw) : xa.lo;
    if (!(x0 < xa.hi) || !ya.contains(r.value)) continue;
    const double Y = f.py(ya, r.value);
    const std::string tip = r.name + " compute roof: " + si_format(r.value, "FLOP/s");
    append_format(out, "<line class=\"compute-roof\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#222\" stroke-width=\"2\"%s><title>%s</title></line>\n",
                  f.px(xa, x0), Y, f.right(), Y, i == 0 ? "" : " stroke-dasharray=\"6 3\"", html_escape(tip).c_str());
    text(out, f.right() - 4, Y - 5, "end", 11, r.name + " " + si_format(r.value, "FLOP/s", 3));
  }
  // Ridge points: where each bandwidth roof meets the peak; a dotted drop line at the DRAM one.
  for (size_t i = 0; i < c.bandwidth_roofs.size(); ++i) {
    const RoofLine& b = c.bandwidth_roofs[i];
    const double xr = peak / b.value;
    if (!xa.contains(xr)) continue;
    const double X = f.px(xa, xr), Y = f.py(ya, peak);
    if (i + 1 == c.bandwidth_roofs.size())
      append_format(out, "<line class=\"ridge-line\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"2 3\"/>\n",
                    X, Y, X, f.bottom());
    mark(out, MarkShape::square, "ridge-point", X, Y, 4, "#222", true,
         "ridge point (" + b.name + "): " + si_format(xr, "FLOP/byte") + " = peak " + si_format(peak, "FLOP/s") + " / " +
             si_format(b.value, "B/s") + "; memory-bound to the left, compute-bound to the right");
  }
  // Layers, then the network total on top.
  auto place = [&](const RooflinePoint& p, double& X, double& Y) {
    const bool on_edge = !(p.intensity && *p.intensity > 0) || p.flops_per_second <= 0;
    X = p.intensity && *p.intensity > 0 ? f.px(xa, *p.intensity) : f.right();
    Y = p.flops_per_second > 0 ? f.py(ya, p.flops_per_second) : f.bottom();
    return on_edge;
  };
  for (const RooflinePoint& p : c.layers) {
    double X, Y;
    const bool edge = place(p, X, Y);
    mark(out, MarkShape::circle, "layer-point", X, Y, 4.5, p.memory_bound ? kMemoryColour : kComputeColour, edge, p.tooltip);
  }
  if (c.total) {
    double X, Y;
    const bool edge = place(*c.total, X, Y);
    mark(out, MarkShape::diamond, "network-point", X, Y, 8, "#000", edge, c.total->tooltip);
  }
  // Legend.
  double lx = f.right() + 24, ly = f.top + 10;
  legend_mark(out, lx, ly, MarkShape::circle, kComputeColour, 4.5, false, "layer, compute-bound");
  legend_mark(out, lx, ly += 20, MarkShape::circle, kMemoryColour, 4.5, false, "layer, memory-bound");
  if (unbounded) legend_mark(out, lx, ly += 20, MarkShape::circle, "#555", 4.5, true, "no DRAM traffic (right edge)");
  legend_mark(out, lx, ly += 20, MarkShape::diamond, "#000", 7, false, "network total");
  legend_mark(out, lx, ly += 20, MarkShape::square, "#222", 4, true, "ridge point");
  legend_line(out, lx, ly += 20, "#222", false, "peak compute roof");
  if (roofs.size() > 1) legend_line(out, lx, ly += 20, "#222", true, "lower compute roofs");
  if (!c.bandwidth_roofs.empty()) legend_line(out, lx, ly += 20, "#444", false, "DRAM bandwidth roof");
  if (c.bandwidth_roofs.size() > 1) legend_line(out, lx, ly += 20, palette(5), true, "on-chip bandwidth roofs");
  return out + "</svg>\n";
}

// ---------------------------------------------------------------------------------------------

std::string svg_bar_chart(const BarChart& c) {
  const size_t n = c.rows.size(), s = c.series.size();
  auto value = [&](size_t r, size_t k) { return r < c.values.size() && k < c.values[r].size() ? c.values[r][k] : 0.0; };
  auto tooltip = [&](size_t r, size_t k) -> const std::string& {
    static const std::string none;
    return r < c.tooltips.size() && k < c.tooltips[r].size() ? c.tooltips[r][k] : none;
  };
  std::vector<double> extent;  // the values the axis must hold
  for (size_t r = 0; r < n; ++r) {
    double sum = 0;
    for (size_t k = 0; k < s; ++k) {
      const double v = value(r, k);
      if (c.stacked) sum += std::max(0.0, v);
      else if (v > 0) extent.push_back(v);
    }
    if (c.stacked) extent.push_back(sum);
  }
  Axis xa = c.stacked ? auto_axis(extent, false, true) : auto_axis(extent, c.allow_log, true);
  if (xa.log) xa = log_axis(*std::min_element(extent.begin(), extent.end()) / 3, xa.hi);  // the shortest bar shows

  size_t longest = 4;
  std::vector<std::string> labels;
  for (const std::string& row : c.rows) {
    labels.push_back(shorten(row, 28));
    longest = std::max(longest, labels.back().size());
  }
  const double row_h = c.stacked || s <= 1 ? 16 : std::max(16.0, 5.0 * static_cast<double>(s) + 6);
  Frame f;
  f.left = std::clamp(6.5 * static_cast<double>(longest), 60.0, 200.0) + 12;
  f.top = 10;
  f.height = std::max(row_h, row_h * static_cast<double>(n));
  const double width = f.right() + (s >= 2 ? 190 : 30), height = f.bottom() + 46;
  std::string out;
  out.reserve(200 * n * std::max<size_t>(1, s) + 4096);
  svg_open(out, width, height, c.x_label);
  x_axis(out, f, xa, c.x_label, true);
  append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", f.left, f.top, f.left,
                f.bottom());
  const double thick = c.stacked || s <= 1 ? row_h - 4 : (row_h - 4) / static_cast<double>(s);
  for (size_t r = 0; r < n; ++r) {
    const double y0 = f.top + row_h * static_cast<double>(r);
    if (labels[r] != c.rows[r])
      append_format(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%s<title>%s</title></text>\n",
                    f.left - 6, y0 + row_h / 2 + 4, html_escape(labels[r]).c_str(), html_escape(c.rows[r]).c_str());
    else
      text(out, f.left - 6, y0 + row_h / 2 + 4, "end", 11, labels[r]);
    double at = 0;  // stacked: the running sum
    for (size_t k = 0; k < s; ++k) {
      const double v = value(r, k);
      if (!(v > 0) && !(c.keep_zero && v == 0)) continue;
      double x0, x1, y;
      if (c.stacked) {
        x0 = f.px(xa, at);
        at += v;
        x1 = f.px(xa, at);
        y = y0 + 2;
      } else {
        x0 = f.left;
        x1 = v > 0 ? f.px(xa, v) : f.left;
        y = y0 + 2 + thick * static_cast<double>(k);
      }
      append_format(out, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>\n",
                    html_escape(c.mark_class).c_str(), x0, y, std::max(0.0, x1 - x0), thick, palette(k),
                    html_escape(tooltip(r, k)).c_str());
    }
  }
  if (s >= 2)
    for (size_t k = 0; k < s; ++k) {
      const double lx = f.right() + 20, ly = f.top + 8 + 18 * static_cast<double>(k);
      append_format(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", lx, ly - 6, palette(k));
      text(out, lx + 18, ly + 4, "start", 12, c.series[k]);
    }
  return out + "</svg>\n";
}

// ---------------------------------------------------------------------------------------------

std::string svg_scatter(const ScatterChart& c) {
  std::vector<double> xs, ys;
  for (const MarkSet& set : c.sets)
    for (const ScatterMark& m : set.marks) {
      xs.push_back(m.x);
      ys.push_back(m.y);
    }
  for (const auto& [a, b] : c.links) {
    xs.push_back(a.x);
    xs.push_back(b.x);
    ys.push_back(a.y);
    ys.push_back(b.y);
  }
  const Axis xa = auto_axis(xs, true, false, true), ya = auto_axis(ys, true, false, true);
  Frame f;
  const bool strip = !c.unplaced.marks.empty();
  const double width = f.right() + 230, height = f.bottom() + 50 + (strip ? 40 : 0);
  std::string out;
  size_t marks = 0;
  for (const MarkSet& set : c.sets) marks += set.marks.size();
  out.reserve(260 * (marks + c.unplaced.marks.size()) + 8192);
  svg_open(out, width, height, c.x_label + " vs " + c.y_label);
  append_format(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#888\"/>\n", f.left,
                f.top, f.width, f.height);
  x_axis(out, f, xa, c.x_label + (xa.log ? " (log)" : ""), true);
  y_axis(out, f, ya, c.y_label + (ya.log ? " (log)" : ""));
  for (const auto& [a, b] : c.links)
    append_format(out, "<line class=\"link\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#777\" stroke-dasharray=\"3 2\"/>\n",
                  f.px(xa, a.x), f.py(ya, a.y), f.px(xa, b.x), f.py(ya, b.y));
  for (const MarkSet& set : c.sets) {
    if (set.connect && set.marks.size() > 1) {
      std::vector<const ScatterMark*> order;
      for (const ScatterMark& m : set.marks) order.push_back(&m);
      std::stable_sort(order.begin(), order.end(), [](const ScatterMark* a, const ScatterMark* b) {
        return a->x != b->x ? a->x < b->x : a->y < b->y;
      });
      const std::string first = set.mark_class.substr(0, set.mark_class.find(' '));
      out += "<polyline class=\"" + html_escape(first) + "-line\" fill=\"none\" stroke=\"" + set.colour +
             "\" stroke-width=\"1.5\" points=\"";
      for (size_t i = 0; i < order.size(); ++i)
        append_format(out, "%s%.1f,%.1f", i ? " " : "", f.px(xa, order[i]->x), f.py(ya, order[i]->y));
      out += "\"/>\n";
    }
    for (const ScatterMark& m : set.marks)
      mark(out, set.shape, set.mark_class, f.px(xa, m.x), f.py(ya, m.y), set.size, set.colour.c_str(), false, m.tooltip);
  }
  if (strip) {
    const double y = f.bottom() + 62, n = static_cast<double>(c.unplaced.marks.size());
    text(out, f.left, y - 12, "start", 11, c.unplaced_label);
    for (size_t i = 0; i < c.unplaced.marks.size(); ++i) {
      const double x = f.left + 8 + (n > 1 ? (f.width - 16) * static_cast<double>(i) / (n - 1) : 0);
      mark(out, c.unplaced.shape, c.unplaced.mark_class, x, y, c.unplaced.size, c.unplaced.colour.c_str(), false,
           c.unplaced.marks[i].tooltip);
    }
  }
  double ly = f.top + 10;
  for (const MarkSet& set : c.sets) {
    if (set.legend.empty()) continue;
    legend_mark(out, f.right() + 24, ly, set.shape, set.colour.c_str(), std::min(set.size, 6.0), false, set.legend);
    ly += 20;
  }
  return out + "</svg>\n";
}

}  // namespace loom
