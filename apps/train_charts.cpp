#include "apps/train_charts.h"

#include <algorithm>
#include <cmath>

#include "apps/html_page.h"
#include "sim/text_format.h"

namespace loom {

namespace {

// Okabe-Ito, the order of apps/svg_charts.cpp.
const char* const kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
const char* palette(size_t i) { return kPalette[i % (sizeof kPalette / sizeof *kPalette)]; }
const char* const kUnknownPhaseColour = "#bbbbbb";

// 1, 2 or 5 times a power of ten, about five intervals over [0, hi].
double nice_step(double hi) {
  if (!(hi > 0)) return 1;
  const double raw = hi / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw * (1 - 1e-9)) return m * mag;
  return 10 * mag;
}

// A tick label: up to 4 significant digits, no exponent for everyday values.
std::string tick_label(double v) {
  std::string s;
  append_format(s, "%.4g", v);
  return s;
}

void text(std::string& out, double x, double y, const char* anchor, int size, const std::string& s,
          const char* fill = nullptr) {
  append_format(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s%s%s>%s</text>\n", x, y, size,
                anchor, fill ? " fill=\"" : "", fill ? fill : "", fill ? "\"" : "", html_escape(s).c_str());
}

std::string shorten(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return s.substr(0, cut) + "\xe2\x80\xa6";
}

// A linear axis from 0 to a round number >= hi, with its ticks, drawn along the bottom of the
// plot [left, left + width] x [top, bottom] with grid lines.
struct LinearAxis {
  double hi = 1, step = 1;
  explicit LinearAxis(double max) {
    if (!(max > 0) || !std::isfinite(max)) max = 1;
    step = nice_step(max);
    hi = std::ceil(max / step - 1e-9) * step;
  }
  double px(double left, double width, double v) const { return left + v / hi * width; }
  void draw(std::string& out, double left, double width, double top, double bottom, const std::string& label) const {
    const long n = std::lround(hi / step);
    for (long k = 0; k <= n; ++k) {
      const double v = static_cast<double>(k) * step, x = px(left, width, v);
      append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x, top, x, bottom);
      append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", x, bottom, x,
                    bottom + 4);
      text(out, x, bottom + 16, "middle", 11, tick_label(v));
    }
    append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", left, bottom,
                  left + width, bottom);
    append_format(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n", left, top, left,
                  bottom);
    text(out, left + width / 2, bottom + 34, "middle", 12, label);
  }
};

void svg_open(std::string& out, double width, double height, const std::string& label) {
  append_format(out,
                "<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                "aria-label=\"%s\">\n",
                width, height, width, height, html_escape(label).c_str());
}

// Legend entries left to right, wrapping at `max_x`; returns the y below the last line.
double legend_row(std::string& out, const std::vector<std::pair<std::string, std::string>>& entries, double x0,
                  double y, double max_x) {
  double x = x0;
  for (const auto& [name, colour] : entries) {
    const double w = 26 + 7.0 * static_cast<double>(name.size());
    if (x + w > max_x && x > x0) {
      x = x0;
      y += 18;
    }
    append_format(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", x, y - 10,
                  colour.c_str());
    text(out, x + 17, y, "start", 12, name);
    x += w;
  }
  return y + 18;
}

std::string ms(double seconds) {
  std::string s;
  append_format(s, "%.4g ms", seconds * 1e3);
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------------------------

std::vector<MergedBar> merge_gantt_bars(const std::vector<GanttBar>& bars, size_t max_bars, double seconds_per_pixel) {
  std::vector<MergedBar> merged;
  merged.reserve(bars.size());
  for (const GanttBar& b : bars) merged.push_back({b, 1, b.label});
  std::stable_sort(merged.begin(), merged.end(), [](const MergedBar& a, const MergedBar& b) {
    if (a.bar.row != b.bar.row) return a.bar.row < b.bar.row;
    if (a.bar.start != b.bar.start) return a.bar.start < b.bar.start;
    return a.bar.end < b.bar.end;
  });
  if (merged.size() <= max_bars) return merged;
  const double spp = seconds_per_pixel > 0 ? seconds_per_pixel : 0;
  // One pass at threshold `g` pixels (g < 0: merge every same-phase neighbour).
  auto pass = [&](double g) {
    std::vector<MergedBar> next;
    next.reserve(merged.size());
    for (MergedBar& m : merged) {
      if (!next.empty()) {
        MergedBar& a = next.back();
        const bool same = a.bar.row == m.bar.row && a.bar.phase == m.bar.phase;
        const double limit = g * spp;
        const bool close = g < 0 || m.bar.start - a.bar.end <= limit;
        const bool tiny = g < 0 || a.bar.end - a.bar.start < limit || m.bar.end - m.bar.start < limit;
        if (same && close && tiny) {
          a.bar.end = std::max(a.bar.end, m.bar.end);
          a.count += m.count;
          a.last_label = m.last_label;
          continue;
        }
      }
      next.push_back(std::move(m));
    }
    merged = std::move(next);
  };
  for (double g = 1; g <= 256 && merged.size() > max_bars; g *= 2) pass(g);
  if (merged.size() > max_bars) pass(-1);
  return merged;
}

std::string svg_gantt(const GanttChart& c) {
  double end = c.end_seconds;
  size_t longest = 4;
  for (const GanttBar& b : c.bars) end = std::max(end, b.end);
  for (const std::string& r : c.rows) longest = std::max(longest, std::min<size_t>(r.size(), 24));
  const LinearAxis axis(end * 1e3);  // ms
  const double left = std::clamp(6.5 * static_cast<double>(longest), 60.0, 170.0) + 12, width = 860;
  const double row_h = c.rows.size() > 48 ? 10 : 14;
  const double spp = axis.hi / 1e3 / width;  // seconds per pixel

  // Legend: the listed phases some bar uses.
  std::vector<std::pair<std::string, std::string>> legend;
  for (const auto& [phase, colour] : c.phases) {
    // Compared through a named reference: clang 14 cannot capture a structured binding.
    const std::string& name = phase;
    const bool used = std::any_of(c.bars.begin(), c.bars.end(), [&](const GanttBar& b) { return b.phase == name; });
    if (used) legend.emplace_back(phase, colour);
  }
  auto colour_of = [&](const std::string& phase) -> const char* {
    for (const auto& [p, colour] : c.phases)
      if (p == phase) return colour.c_str();
    return kUnknownPhaseColour;
  };
  const std::vector<MergedBar> bars = merge_gantt_bars(c.bars, c.max_bars, spp);

  std::string body;
  body.reserve(160 * bars.size() + 4096);
  const double top = legend_row(body, legend, left, 16, left + width) + 2;
  const double bottom = top + row_h * static_cast<double>(std::max<size_t>(1, c.rows.size()));
  // Row bands and labels.
  for (size_t r = 0; r < c.rows.size(); ++r) {
    const double y = top + row_h * static_cast<double>(r);
    if (r % 2 == 1)
      append_format(body, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f6f6f6\"/>\n", left, y,
                    width, row_h);
    text(body, left - 6, y + row_h / 2 + 4, "end", row_h < 14 ? 9 : 11, shorten(c.rows[r], 24));
  }
  axis.draw(body, left, width, top, bottom, "time in the step (ms)");
  const std::string cls = html_escape(c.mark_class);
  for (const MergedBar& m : bars) {
    const GanttBar& b = m.bar;
    const double x0 = axis.px(left, width, b.start * 1e3), x1 = axis.px(left, width, b.end * 1e3);
    const double y = top + row_h * static_cast<double>(b.row) + 2;
    std::string tip = m.count == 1 ? b.label : b.label + " \xe2\x80\xa6 " + m.last_label + " (" + std::to_string(m.count) + " merged)";
    tip += ", " + b.phase + ": " + ms(b.start) + " to " + ms(b.end) + " (" + ms(b.end - b.start) + ")";
    append_format(body, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>\n",
                  cls.c_str(), x0, y, std::max(0.5, x1 - x0), row_h - 4, colour_of(b.phase), html_escape(tip).c_str());
  }
  double height = bottom + 46;
  if (bars.size() < c.bars.size()) {
    text(body, left, bottom + 56, "start", 11,
         std::to_string(c.bars.size()) + " events drawn as " + std::to_string(bars.size()) +
             " bars: adjacent short events of one phase merged (timeline.csv has every event)");
    height += 16;
  }
  std::string out;
  out.reserve(body.size() + 256);
  svg_open(out, left + width + 24, height, "per-step timeline");
  return out + body + "</svg>\n";
}

// ---------------------------------------------------------------------------------------------

std::string svg_capacity_bars(const CapacityBarChart& c) {
  const size_t n = c.rows.size(), s = c.series.size();
  auto value = [&](size_t r, size_t k) { return r < c.values.size() && k < c.values[r].size() ? std::max(0.0, c.values[r][k]) : 0.0; };
  auto capacity = [&](size_t r) { return r < c.capacity.size() ? c.capacity[r] : 0.0; };
  std::vector<double> totals(n, 0);
  double hi = 0;
  size_t longest = 4;
  for (size_t r = 0; r < n; ++r) {
    for (size_t k = 0; k < s; ++k) totals[r] += value(r, k);
    hi = std::max({hi, totals[r], capacity(r)});
    longest = std::max(longest, std::min<size_t>(c.rows[r].size(), 24));
  }
  const LinearAxis axis(hi * 1.02);
  const double left = std::clamp(6.5 * static_cast<double>(longest), 60.0, 170.0) + 12, width = 560;
  const double row_h = n > 32 ? 12 : 18;
  std::vector<std::pair<std::string, std::string>> legend;
  for (size_t k = 0; k < s; ++k) legend.emplace_back(c.series[k], palette(k));

  std::string body;
  const double top = legend_row(body, legend, left, 16, left + width + 140) + 2;
  const double bottom = top + row_h * static_cast<double>(std::max<size_t>(1, n));
  axis.draw(body, left, width, top, bottom, c.x_label);
  const std::string cls = html_escape(c.mark_class);
  bool any_capacity = false;
  for (size_t r = 0; r < n; ++r) {
    const double y0 = top + row_h * static_cast<double>(r);
    const bool over = capacity(r) > 0 && totals[r] > capacity(r);
    text(body, left - 6, y0 + row_h / 2 + 4, "end", 11, shorten(c.rows[r], 24), over ? "#b00" : nullptr);
    double at = 0;
    for (size_t k = 0; k < s; ++k) {
      const double v = value(r, k);
      if (!(v > 0)) continue;
      const double x0 = axis.px(left, width, at);
      at += v;
      const double x1 = axis.px(left, width, at);
      const std::string tip = r < c.tooltips.size() && k < c.tooltips[r].size() ? c.tooltips[r][k] : "";
      append_format(body, "<rect class=\"%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>\n",
                    cls.c_str(), x0, y0 + 2, std::max(0.0, x1 - x0), row_h - 4, palette(k), html_escape(tip).c_str());
    }
    if (capacity(r) > 0) {
      any_capacity = true;
      const double x = axis.px(left, width, capacity(r));
      std::string tip = c.rows[r] + ": " + c.capacity_label + " ";
      append_format(tip, "%.4g", capacity(r));
      if (!c.unit.empty()) tip += " " + c.unit;
      append_format(body,
                    "<line class=\"capacity-mark\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b00\" "
                    "stroke-width=\"2\"><title>%s</title></line>\n",
                    x, y0, x, y0 + row_h, html_escape(tip).c_str());
    }
  }
  if (any_capacity) {
    const double lx = left + width + 24, ly = top + 8;
    append_format(body, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b00\" stroke-width=\"2\"/>\n",
                  lx, ly - 8, lx, ly + 6);
    text(body, lx + 8, ly + 4, "start", 12, c.capacity_label);
  }
  std::string out;
  svg_open(out, left + width + 150, bottom + 46, c.x_label);
  return out + body + "</svg>\n";
}

}  // namespace loom
