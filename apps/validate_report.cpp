#include "apps/validate_report.h"

#include <cmath>
#include <cstring>
#include <map>

#include "apps/html_page.h"
#include "apps/svg_plot.h"
#include "sim/text_format.h"
#include "arch/simt/kernels/kernel_catalog.h"

namespace loom {

using namespace validate;

namespace {

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
Json finite_or_null(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

std::string fixed(double v, const char* fmt) {
  if (!std::isfinite(v)) return "-";
  std::string s;
  append_format(s, fmt, v);
  return s;
}
// "+0.0%", never "-0.0%": a match within rounding has no sign.
std::string percent(double fraction) { return fixed(std::fabs(fraction) < 5e-4 ? 0.0 : 100 * fraction, "%+.1f%%"); }
std::string optional_text(const std::optional<double>& v, const char* fmt) { return v ? fixed(*v, fmt) : "-"; }

std::string figure_range(const PublishedFigure& p) {
  return p.low == p.high ? fixed(p.low, "%.4g") : fixed(p.low, "%.4g") + " to " + fixed(p.high, "%.4g");
}

std::string source_citation(const MeasurementFile& m, const std::string& id) {
  for (const Source& s : m.sources)
    if (s.id == id) return s.citation;
  return id;
}

// Every section as rows of text cells, shared by the terminal and the HTML page.
struct Tables {
  std::vector<std::string> run_header{"kernel", "sizes", "measured us", "simulated us", "error", "spread us"};
  std::vector<std::vector<std::string>> runs;
  std::vector<std::string> agreement_header{"group", "points", "MAPE", "Pearson r"};
  std::vector<std::vector<std::string>> agreement;
  std::vector<std::string> micro_header{"microbenchmark", "unit", "measured", "loom", "error", "source"};
  std::vector<std::vector<std::string>> micro;
  std::vector<std::string> figure_header{"figure", "unit", "published", "loom", "error", "source", "note"};
  std::vector<std::vector<std::string>> figures;
  std::vector<std::string> target_header{"target", "goal", "achieved", ""};
  std::vector<std::vector<std::string>> targets;
};

Tables make_tables(const ValidationReport& r) {
  Tables t;
  for (const RunComparison& c : r.runs) {
    const TimeStats& m = c.measured.time;
    t.runs.push_back({c.measured.kernel, simt::format_size_list(c.measured.kernel, c.measured.sizes), fixed(m.median_us, "%.2f"),
                      c.simulated ? fixed(c.simulated_us, "%.2f") : "skipped",
                      c.simulated ? percent(c.error) : c.skipped, fixed(m.min_us, "%.2f") + "-" + fixed(m.max_us, "%.2f")});
  }
  for (const Agreement& a : r.agreement)
    if (a.points > 0)
      t.agreement.push_back(
          {a.group, std::to_string(a.points), optional_text(a.mape, "%.1f%%"), optional_text(a.pearson, "%.3f")});
  for (const MicrobenchmarkComparison& mb : r.microbenchmarks)
    t.micro.push_back({mb.name, mb.unit, fixed(mb.measured, "%.4g"), fixed(mb.simulated, "%.4g"),
                       std::isfinite(mb.simulated) ? percent(mb.error) : "-", mb.source.empty() ? "measured" : mb.source});
  for (const FigureComparison& f : r.figures)
    t.figures.push_back({f.published.name, f.published.unit, figure_range(f.published),
                         f.loom ? fixed(*f.loom, "%.4g") : "n/a", f.loom ? percent(f.error) : "-",
                         f.published.source, f.loom ? f.published.note : f.why_not});
  for (const Target& g : r.targets)
    t.targets.push_back({g.name, g.goal,
                         g.achieved ? fixed(*g.achieved, g.goal.find('%') != std::string::npos ? "%.1f%%" : "%.3f") : "-",
                         g.met ? "met" : "not met"});
  return t;
}

std::string text_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s = " ";
    for (size_t i = 0; i < cells.size(); ++i) {
      // Numbers right-aligned, text left-aligned; the first two columns (names, sizes) always left.
      const size_t pad = width[i] - std::min(width[i], cells[i].size());
      const bool right = i >= 2 && !cells[i].empty() && std::strchr("0123456789+-.", cells[i][0]);
      s.push_back(' ');
      if (right) s.append(pad, ' ');
      s.append(cells[i]);
      if (!right) s.append(pad, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string title(const ValidationReport& r) {
  return "loom validate: " + r.config_name + " vs " + r.measured.device.name + " (" + origin_name(r.measured.origin) +
         ", " + r.measured.date + ")";
}

}  // namespace

Json validation_to_json(const ValidationReport& r) {
  Json runs = Json::array();
  for (const RunComparison& c : r.runs) {
    Json e = to_json(c.measured);
    e["simulated"] = c.simulated;
    if (c.simulated) {
      e["simulated_cycles"] = c.cycles;
      e["simulated_us"] = c.simulated_us;
      e["error"] = c.error;
      e["simulation_wall_s"] = c.wall_s;
    } else {
      e["skipped"] = c.skipped;
    }
    runs.push_back(e);
  }
  Json agreement = Json::array();
  for (const Agreement& a : r.agreement)
    agreement.push_back({{"group", a.group}, {"points", a.points}, {"mape_percent", optional_number(a.mape)},
                         {"pearson", optional_number(a.pearson)}});
  Json micro = Json::array();
  for (const MicrobenchmarkComparison& mb : r.microbenchmarks)
    micro.push_back({{"name", mb.name},
                     {"unit", mb.unit},
                     {"measured", mb.measured},
                     {"simulated", finite_or_null(mb.simulated)},
                     {"error", std::isfinite(mb.simulated) ? Json(mb.error) : Json(nullptr)},
                     {"source", mb.source.empty() ? Json(nullptr) : Json(source_citation(r.measured, mb.source))}});
  Json figures = Json::array();
  for (const FigureComparison& f : r.figures) {
    Json e{{"name", f.published.name},
           {"unit", f.published.unit},
           {"published_low", f.published.low},
           {"published_high", f.published.high},
           {"loom", optional_number(f.loom)},
           {"source", source_citation(r.measured, f.published.source)}};
    if (f.loom) e["error"] = f.error;
    else e["why_not"] = f.why_not;
    figures.push_back(e);
  }
  Json targets = Json::array();
  for (const Target& t : r.targets)
    targets.push_back({{"name", t.name}, {"goal", t.goal}, {"achieved", optional_number(t.achieved)}, {"met", t.met}});
  return Json{{"schema", "loom-validation-report"},
              {"schema_version", 1},
              {"config", {{"name", r.config_name}, {"file", r.config_file}}},
              {"measurements",
               {{"file", r.measured.path},
                {"origin", origin_name(r.measured.origin)},
                {"device", r.measured.device.name},
                {"date", r.measured.date},
                {"launch_overhead_us", r.measured.launch_overhead_us}}},
              {"warnings", r.warnings},
              {"runs", runs},
              {"agreement", agreement},
              {"microbenchmarks", micro},
              {"figures", figures},
              {"targets", targets},
              {"wall_s", r.wall_s}};
}

std::string validation_text(const ValidationReport& r) {
  const Tables t = make_tables(r);
  std::string out = title(r) + "\n";
  for (const std::string& w : r.warnings) out += "warning: " + w + "\n";
  if (!t.runs.empty()) out += "\nkernel runs\n" + text_table(t.run_header, t.runs);
  if (!t.agreement.empty()) out += "\nagreement (kernel time)\n" + text_table(t.agreement_header, t.agreement);
  if (!t.micro.empty()) out += "\nmicrobenchmarks\n" + text_table(t.micro_header, t.micro);
  if (!t.figures.empty()) out += "\npublished figures\n" + text_table(t.figure_header, t.figures);
  if (!t.targets.empty()) out += "\ntargets\n" + text_table(t.target_header, t.targets);
  return out;
}

std::string validation_html(const ValidationReport& r) {
  const Tables t = make_tables(r);
  std::string body = "<p>Config <code>" + html_escape(r.config_file) + "</code>; measurements <code>" +
                     html_escape(r.measured.path) + "</code> (" + origin_name(r.measured.origin) + ", " +
                     html_escape(r.measured.device.name) + ", " + html_escape(r.measured.date) + ").</p>\n";
  for (const std::string& w : r.warnings) body += "<p class=\"warning\">warning: " + html_escape(w) + "</p>\n";
  // One series per kernel, plus the microbenchmarks (their own units, but the same question:
  // does loom land on the diagonal?).
  std::map<std::string, ScatterSeries> by_kernel;
  for (const RunComparison& c : r.runs)
    if (c.simulated) {
      ScatterSeries& s = by_kernel[c.measured.kernel];
      s.name = c.measured.kernel;
      s.points.push_back({c.measured.time.median_us, c.simulated_us,
                          c.measured.kernel + " " + simt::format_size_list(c.measured.kernel, c.measured.sizes) + ": measured " +
                              fixed(c.measured.time.median_us, "%.2f") + " us, loom " + fixed(c.simulated_us, "%.2f") +
                              " us (" + percent(c.error) + ")"});
    }
  if (!by_kernel.empty()) {
    std::vector<ScatterSeries> series;
    for (auto& [k, s] : by_kernel) series.push_back(s);
    body += "<h2>Kernel time: measured vs simulated</h2>\n" +
            svg_log_scatter(series, "measured time (us)", "simulated time (us)", 0.10) +
            "<p>Solid: simulated = measured; dashed: +-10%.</p>\n";
  }
  if (!r.microbenchmarks.empty()) {
    ScatterSeries micro{"microbenchmarks", {}};
    for (const MicrobenchmarkComparison& mb : r.microbenchmarks)
      micro.points.push_back({mb.measured, mb.simulated, mb.name + " (" + mb.unit + "): " + fixed(mb.measured, "%.4g") +
                                                             " vs loom " + fixed(mb.simulated, "%.4g")});
    body += "<h2>Microbenchmarks: reference vs loom</h2>\n" +
            svg_log_scatter({micro}, "reference (cycles, GB/s or TFLOP/s)", "loom (same unit)", 0.10);
  }
  if (!t.targets.empty()) {
    body += "<h2>Targets</h2>\n" + html_table(t.target_header, t.targets);
  }
  if (!t.agreement.empty()) body += "<h2>Agreement</h2>\n" + html_table(t.agreement_header, t.agreement);
  if (!t.runs.empty()) body += "<h2>Kernel runs</h2>\n" + html_table(t.run_header, t.runs);
  if (!t.micro.empty()) body += "<h2>Microbenchmarks</h2>\n" + html_table(t.micro_header, t.micro);
  if (!t.figures.empty()) body += "<h2>Published figures</h2>\n" + html_table(t.figure_header, t.figures);
  if (!r.measured.sources.empty()) {
    body += "<h2>Sources</h2>\n<ul>\n";
    for (const Source& s : r.measured.sources)
      body += "<li><b>" + html_escape(s.id) + "</b>: " + html_escape(s.citation) + "</li>\n";
    body += "</ul>\n";
  }
  return html_page(title(r), body);
}

}  // namespace loom
