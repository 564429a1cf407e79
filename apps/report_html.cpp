#include "apps/report_html.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "apps/html_page.h"
#include "apps/svg_charts.h"
#include "sim/text_format.h"
#include "sim/error.h"

namespace loom {

namespace {

// ---------------------------------------------------------------------------------------------
// Strict reading: a JSON value with its path, whose accessors throw InputError naming the path.
class Node {
 public:
  Node(const Json& json, std::string path) : json_(&json), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  const Json& json() const { return *json_; }
  bool is_null() const { return json_->is_null(); }

  [[noreturn]] void fail(const std::string& expected) const {
    throw InputError("", path_.empty() ? "(top level)" : path_, expected);
  }

  bool has(const std::string& key) const { return json_->is_object() && json_->contains(key); }

  Node operator[](const std::string& key) const {
    if (!json_->is_object()) fail("expected a JSON object, got " + type_of(*json_));
    const auto it = json_->find(key);
    const std::string child = path_.empty() ? key : path_ + "." + key;
    if (it == json_->end()) throw InputError("", child, "missing required field");
    return Node(*it, child);
  }

  // The elements of an array (an array is required).
  std::vector<Node> elements() const {
    if (!json_->is_array()) fail("expected an array, got " + type_of(*json_));
    std::vector<Node> out;
    out.reserve(json_->size());
    for (size_t i = 0; i < json_->size(); ++i) out.emplace_back((*json_)[i], path_ + "[" + std::to_string(i) + "]");
    return out;
  }

  double number() const {
    if (!json_->is_number()) fail("expected a number, got " + type_of(*json_));
    const double v = json_->get<double>();
    if (!std::isfinite(v)) fail("expected a finite number");
    return v;
  }
  double non_negative() const {
    const double v = number();
    if (v < 0) fail("expected a number >= 0, got " + json_->dump());
    return v;
  }
  double positive() const {
    const double v = number();
    if (v <= 0) fail("expected a number > 0, got " + json_->dump());
    return v;
  }
  int64_t integer() const {
    if (json_->is_number_integer()) return json_->get<int64_t>();
    if (json_->is_number_float()) {
      const double d = json_->get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15) return static_cast<int64_t>(d);
    }
    fail("expected a whole number, got " + json_->dump());
  }
  int64_t non_negative_integer() const {
    const int64_t v = integer();
    if (v < 0) fail("expected a whole number >= 0, got " + std::to_string(v));
    return v;
  }
  std::string string() const {
    if (!json_->is_string()) fail("expected a string, got " + type_of(*json_));
    return json_->get<std::string>();
  }
  bool boolean() const {
    if (!json_->is_boolean()) fail("expected true or false, got " + type_of(*json_));
    return json_->get<bool>();
  }
  std::string choice(std::initializer_list<const char*> allowed) const {
    return choice(std::vector<std::string>(allowed.begin(), allowed.end()));
  }
  std::string choice(const std::vector<std::string>& allowed) const {
    const std::string v = string();
    std::string list;
    for (const std::string& a : allowed) {
      if (v == a) return v;
      list += (list.empty() ? "\"" : ", \"") + a + "\"";
    }
    fail("expected one of " + list + ", got \"" + v + "\"");
  }
  std::vector<std::string> strings() const {
    std::vector<std::string> out;
    for (const Node& e : elements()) out.push_back(e.string());
    return out;
  }

 private:
  static std::string type_of(const Json& j) {
    if (j.is_null()) return "null";
    if (j.is_boolean()) return "a boolean";
    if (j.is_number()) return "a number";
    if (j.is_string()) return "a string";
    if (j.is_array()) return "an array";
    return "an object";
  }

  const Json* json_;
  std::string path_;
};

// ---------------------------------------------------------------------------------------------
// Formatting.

std::string grouped(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

std::string fmt(const char* f, double v) {
  std::string s;
  append_format(s, f, v);
  return s;
}

std::string percent(double fraction) { return fmt("%.1f%%", 100 * fraction); }

// A parameter value as written in the sweep spec.
std::string param_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return fmt("%.6g", v.get<double>());
  return v.dump();
}

// ---------------------------------------------------------------------------------------------
// The run summary, read and checked.

struct Record {
  std::string name, kind;
  int64_t macs = 0, cycles = 0;
  double flops = 0, seconds = 0, utilization = 0;
  std::vector<double> energy_pj;  // per component, in energy_components order
  double energy_total_pj = 0;
  std::vector<double> bytes;  // per memory level, in memory_levels order
  std::optional<double> intensity;
  double achieved = 0, attainable = 0;
  bool memory_bound = false;
};

struct Summary {
  std::string fidelity, arch_name, arch_kind, arch_file, workload_name, workload_file;
  double clock_hz = 0;
  int64_t peak_macs = 0;
  std::vector<RoofLine> compute_roofs, bandwidth_roofs;
  std::vector<std::string> components, levels;
  std::vector<Record> layers;
  Record totals;
};

// `keys` (in display order) must be exactly the object's keys, apart from `extra` (if not empty).
std::vector<double> read_breakdown(const Node& object, const std::vector<std::string>& keys, const std::string& extra,
                                   const char* list_name) {
  if (!object.json().is_object()) object.fail("expected a JSON object");
  std::vector<double> out;
  for (const std::string& k : keys) out.push_back(object[k].non_negative());
  for (auto it = object.json().begin(); it != object.json().end(); ++it)
    if (it.key() != extra && std::find(keys.begin(), keys.end(), it.key()) == keys.end())
      throw InputError("", object.path() + "." + it.key(), std::string("expected only the names listed in ") + list_name);
  return out;
}

Record read_record(const Node& n, const Summary& s) {
  Record r;
  r.name = n["name"].string();
  r.kind = n["kind"].string();
  r.macs = n["macs"].non_negative_integer();
  r.flops = n["flops"].non_negative();
  r.cycles = n["cycles"].non_negative_integer();
  r.seconds = n["seconds"].non_negative();
  r.utilization = n["utilization"].non_negative();
  const Node energy = n["energy_pj"];
  r.energy_pj = read_breakdown(energy, s.components, "total", "summary.energy_components");
  r.energy_total_pj = energy["total"].non_negative();
  r.bytes = read_breakdown(n["bytes"], s.levels, "", "summary.memory_levels");
  const Node roof = n["roofline"];
  const Node intensity = roof["intensity_flops_per_byte"];
  if (!intensity.is_null()) r.intensity = intensity.non_negative();
  r.achieved = roof["achieved_flops_per_second"].non_negative();
  r.attainable = roof["attainable_flops_per_second"].non_negative();
  r.memory_bound = roof["bound"].choice({"memory", "compute"}) == "memory";
  return r;
}

Summary read_summary(const Json& json) {
  const Node root(json, "summary");
  if (!json.is_object()) root.fail("expected a JSON object");
  Summary s;
  s.fidelity = root["fidelity"].choice({"analytic", "cycle"});
  const Node arch = root["arch"];
  s.arch_name = arch["name"].string();
  s.arch_kind = arch["kind"].choice({"systolic", "hierarchy", "gpu"});
  s.arch_file = arch["file"].string();
  const Node workload = root["workload"];
  s.workload_name = workload["name"].string();
  s.workload_file = workload["file"].string();
  s.clock_hz = root["clock_hz"].positive();
  s.peak_macs = root["peak_macs_per_cycle"].integer();
  if (s.peak_macs <= 0) root["peak_macs_per_cycle"].fail("expected a positive whole number");
  const Node roofline = root["roofline"];
  for (const Node& r : roofline["compute_roofs"].elements())
    s.compute_roofs.push_back({r["name"].string(), r["flops_per_second"].positive()});
  if (s.compute_roofs.empty()) roofline["compute_roofs"].fail("expected at least one compute roof");
  for (const Node& r : roofline["bandwidth_roofs"].elements())
    s.bandwidth_roofs.push_back({r["level"].string(), r["bytes_per_second"].positive()});
  s.components = root["energy_components"].strings();
  s.levels = root["memory_levels"].strings();
  if (s.levels.empty()) root["memory_levels"].fail("expected at least one memory level (DRAM last)");
  for (const Node& l : root["layers"].elements()) s.layers.push_back(read_record(l, s));
  s.totals = read_record(root["totals"], s);
  return s;
}

// ---------------------------------------------------------------------------------------------
// The run page.

std::string roofline_tooltip(const Record& r) {
  std::string t = r.name + " (" + r.kind + "): ";
  t += r.intensity ? "intensity " + fmt("%.4g", *r.intensity) + " FLOP/byte" : "no DRAM traffic";
  t += ", achieved " + si_format(r.achieved, "FLOP/s") + " of attainable " + si_format(r.attainable, "FLOP/s") + ", " +
       (r.memory_bound ? "memory" : "compute") + "-bound";
  return t;
}

std::string totals_table(const Summary& s) {
  const Record& t = s.totals;
  std::vector<std::vector<std::string>> rows = {
      {"fidelity", s.fidelity},
      {"layers", std::to_string(s.layers.size())},
      {"MACs", grouped(t.macs)},
      {"FLOPs", si_format(t.flops, "FLOP")},
      {"cycles", grouped(t.cycles)},
      {"latency", si_format(t.seconds, "s")},
      {"utilization", percent(t.utilization)},
      {"energy", si_format(t.energy_total_pj * 1e-12, "J")},
  };
  for (size_t i = 0; i < s.components.size(); ++i)
    rows.push_back({"energy: " + s.components[i],
                    si_format(t.energy_pj[i] * 1e-12, "J") +
                        (t.energy_total_pj > 0 ? " (" + percent(t.energy_pj[i] / t.energy_total_pj) + ")" : "")});
  for (size_t i = 0; i < s.levels.size(); ++i) rows.push_back({"bytes: " + s.levels[i], si_format(t.bytes[i], "B")});
  rows.push_back({"operational intensity", t.intensity ? fmt("%.4g", *t.intensity) + " FLOP/byte" : "no DRAM traffic"});
  rows.push_back({"achieved", si_format(t.achieved, "FLOP/s")});
  rows.push_back({"attainable", si_format(t.attainable, "FLOP/s")});
  rows.push_back({"bound", t.memory_bound ? "memory" : "compute"});
  return html_table({"quantity", "network total"}, rows);
}

std::string layer_table(const Summary& s) {
  const std::string dram = s.levels.back() == "dram" ? "DRAM bytes" : s.levels.back() + " bytes";
  std::vector<std::vector<std::string>> rows;
  rows.reserve(s.layers.size() + 1);
  auto row = [&](const Record& r) {
    rows.push_back({r.name, r.kind, grouped(r.macs), grouped(r.cycles), si_format(r.seconds, "s"), percent(r.utilization),
                    si_format(r.energy_total_pj * 1e-12, "J"), si_format(r.bytes.back(), "B"),
                    r.intensity ? fmt("%.4g", *r.intensity) : "-", r.memory_bound ? "memory" : "compute"});
  };
  for (const Record& r : s.layers) row(r);
  row(s.totals);
  return html_table({"layer", "kind", "MACs", "cycles", "latency", "utilization", "energy", dram, "intensity (FLOP/B)", "bound"},
                    rows);
}

}  // namespace

std::string render_run_report(const Json& summary_json) {
  const Summary s = read_summary(summary_json);
  std::string body;
  body.reserve(1024 * (s.layers.size() + 16));
  body += "<p>Architecture <b>" + html_escape(s.arch_name) + "</b> (" + s.arch_kind + ", <code>" + html_escape(s.arch_file) +
          "</code>); workload <b>" + html_escape(s.workload_name) + "</b> (<code>" + html_escape(s.workload_file) +
          "</code>, " + std::to_string(s.layers.size()) + " layers); fidelity <b>" + s.fidelity + "</b>" +
          (s.fidelity == "cycle" ? " (simulated cycle by cycle)" : " (closed-form cost model)") + ".</p>\n";
  body += "<p>Clock " + html_escape(si_format(s.clock_hz, "Hz")) + ", peak " + grouped(s.peak_macs) + " MACs/cycle (" +
          html_escape(si_format(2.0 * static_cast<double>(s.peak_macs) * s.clock_hz, "FLOP/s")) + ").</p>\n";
  body += "<h2>Totals</h2>\n" + totals_table(s);

  RooflineChart roof;
  roof.compute_roofs = s.compute_roofs;
  roof.bandwidth_roofs = s.bandwidth_roofs;
  for (const Record& r : s.layers) roof.layers.push_back({roofline_tooltip(r), r.intensity, r.achieved, r.memory_bound});
  roof.total = RooflinePoint{"network total: " + roofline_tooltip(s.totals), s.totals.intensity, s.totals.achieved,
                             s.totals.memory_bound};
  body += "<h2>Roofline</h2>\n" + svg_roofline(roof) +
          "<p class=\"note\">Each point is a layer at its operational intensity (FLOPs per byte of DRAM traffic) and "
          "achieved FLOP/s; the diamond is the whole network. A layer left of the ridge point (the dotted line) is "
          "memory-bound: its roof is the DRAM bandwidth diagonal. Right of it the roof is the compute peak. The gap "
          "between a point and its roof is time lost to stalls, mapping or under-used PEs.</p>\n";

  BarChart latency;
  latency.x_label = "latency (s)";
  latency.mark_class = "latency-bar";
  latency.series = {"latency"};
  latency.keep_zero = true;
  for (const Record& r : s.layers) {
    latency.rows.push_back(r.name);
    latency.values.push_back({r.seconds});
    latency.tooltips.push_back({r.name + " (" + r.kind + "): " + si_format(r.seconds, "s") + ", " + grouped(r.cycles) +
                                " cycles, utilization " + percent(r.utilization)});
  }
  body += "<h2>Latency per layer</h2>\n" + svg_bar_chart(latency);

  BarChart energy;
  energy.x_label = "energy (J)";
  energy.mark_class = "energy-segment";
  energy.series = s.components;
  for (const Record& r : s.layers) {
    energy.rows.push_back(r.name);
    std::vector<double> values;
    std::vector<std::string> tips;
    for (size_t i = 0; i < s.components.size(); ++i) {
      values.push_back(r.energy_pj[i] * 1e-12);
      tips.push_back(r.name + ": " + s.components[i] + " " + si_format(r.energy_pj[i] * 1e-12, "J") +
                     (r.energy_total_pj > 0 ? " (" + percent(r.energy_pj[i] / r.energy_total_pj) + " of the layer)" : ""));
    }
    energy.values.push_back(std::move(values));
    energy.tooltips.push_back(std::move(tips));
  }
  body += "<h2>Energy per layer</h2>\n" + svg_bar_chart(energy);

  BarChart traffic;
  traffic.x_label = "data moved (bytes)";
  traffic.mark_class = "traffic-bar";
  traffic.series = s.levels;
  traffic.stacked = false;
  traffic.allow_log = true;
  for (const Record& r : s.layers) {
    traffic.rows.push_back(r.name);
    traffic.values.push_back(r.bytes);
    std::vector<std::string> tips;
    for (size_t i = 0; i < s.levels.size(); ++i) tips.push_back(r.name + ": " + s.levels[i] + " " + si_format(r.bytes[i], "B"));
    traffic.tooltips.push_back(std::move(tips));
  }
  body += "<h2>Data movement per layer</h2>\n" + svg_bar_chart(traffic) +
          "<p class=\"note\">Bytes moved at each memory level, innermost first; the axis is logarithmic when the "
          "values span more than a decade. Levels with no traffic have no bar.</p>\n";

  body += "<h2>Layers</h2>\n" + layer_table(s);
  return html_page("loom run: " + s.arch_name + " on " + s.workload_name, body);
}

// =============================================================================================
// Sweeps.

namespace {

struct Objective {
  std::string name, metric, direction;
};

struct SweepPoint {
  int64_t index = 0;
  std::string arch_name;
  std::vector<std::pair<std::string, std::string>> params;  // path, value text (key order)
  std::map<std::string, double> metrics;                    // empty when it failed
  bool feasible = false;
  std::vector<std::string> violations;
  std::optional<std::string> error;
};

struct FrontPoint {
  SweepPoint point;
  std::optional<std::map<std::string, double>> cycle;  // cycle-level metrics
  std::optional<std::string> cycle_error;              // the re-simulation failed
  bool front_at_cycle = false;
};

// The metrics of a point (sweep/point_evaluation.cpp); objectives name one of them.
const std::vector<std::string> kMetricNames = {"latency_s", "energy_j", "edp_js", "throughput_per_area", "area_mm2",
                                               "power_w", "inferences_per_s"};

std::string metric_label(const std::string& m) {
  if (m == "latency_s") return "latency (s)";
  if (m == "energy_j") return "energy (J)";
  if (m == "edp_js") return "energy-delay product (J\xc2\xb7s)";
  if (m == "throughput_per_area") return "throughput per area (inferences/s/mm\xc2\xb2)";
  if (m == "area_mm2") return "area (mm\xc2\xb2)";
  if (m == "power_w") return "power (W)";
  if (m == "inferences_per_s") return "inferences/s";
  return m;
}

std::string metric_value(const std::string& m, double v) {
  if (m == "latency_s") return si_format(v, "s");
  if (m == "energy_j") return si_format(v, "J");
  if (m == "edp_js") return si_format(v, "J\xc2\xb7s");
  if (m == "power_w") return si_format(v, "W");
  if (m == "area_mm2") return fmt("%.4g", v) + " mm\xc2\xb2";
  return fmt("%.4g", v);
}

std::vector<Objective> read_objectives(const Node& n) {
  std::vector<Objective> out;
  for (const Node& o : n.elements())
    out.push_back({o["name"].string(), o["metric"].choice(kMetricNames), o["direction"].choice({"min", "max"})});
  if (out.empty()) n.fail("expected at least one objective");
  return out;
}

std::map<std::string, double> read_metrics(const Node& n, const std::vector<std::string>& required) {
  if (!n.json().is_object()) n.fail("expected a JSON object");
  std::map<std::string, double> out;
  for (const std::string& m : required) out[m] = n[m].number();
  for (const std::string& m : kMetricNames)
    if (n.has(m) && !n.json()[m].is_null()) out[m] = n[m].number();
  return out;
}

SweepPoint read_point(const Node& n, const std::vector<std::string>& axes) {
  if (!n.json().is_object()) n.fail("expected a JSON object");
  SweepPoint p;
  p.index = n["index"].non_negative_integer();
  p.arch_name = n.has("arch_name") ? n["arch_name"].string() : "";
  const Node params = n["params"];
  if (!params.json().is_object()) params.fail("expected a JSON object");
  for (auto it = params.json().begin(); it != params.json().end(); ++it) p.params.emplace_back(it.key(), param_text(*it));
  p.feasible = n["feasible"].boolean();
  if (n.has("violations")) p.violations = n["violations"].strings();
  if (n.has("error") && !n["error"].is_null()) p.error = n["error"].string();
  if (!p.error) p.metrics = read_metrics(n["metrics"], axes);
  return p;
}

std::string point_tooltip(const SweepPoint& p, const std::vector<std::string>& shown) {
  std::string t = "#" + std::to_string(p.index);
  if (!p.arch_name.empty()) t += " " + p.arch_name;
  if (p.error) {
    t += ": not evaluated: " + *p.error;
  } else {
    t += ":";
    for (size_t i = 0; i < shown.size(); ++i) {
      const auto it = p.metrics.find(shown[i]);
      if (it != p.metrics.end()) t += (i ? ", " : " ") + shown[i] + " " + metric_value(shown[i], it->second);
    }
  }
  if (!p.params.empty()) {
    t += "; ";
    for (size_t i = 0; i < p.params.size(); ++i) t += (i ? ", " : "") + p.params[i].first + "=" + p.params[i].second;
  }
  if (!p.feasible && !p.error) {
    t += "; infeasible";
    for (size_t i = 0; i < p.violations.size(); ++i) t += (i ? "; " : ": ") + p.violations[i];
  }
  return t;
}

}  // namespace

std::string render_sweep_report(const Json& manifest_json, const std::vector<Json>& points_json, const Json& pareto_json,
                                const SweepPointCounts* all) {
  // The manifest.
  const Node m(manifest_json, "sweep");
  if (!manifest_json.is_object()) m.fail("expected a JSON object");
  if (m["schema"].string() != "loom-sweep-result/1") m["schema"].fail("expected \"loom-sweep-result/1\"");
  const std::string spec_name = m["spec"]["name"].string(), spec_file = m["spec"]["file"].string();
  const std::string strategy = m["strategy"].choice({"grid", "random", "nsga2"});
  const std::vector<Objective> objectives = read_objectives(m["objectives"]);
  std::vector<std::pair<std::string, std::vector<std::string>>> parameters;
  for (const Node& p : m["parameters"].elements()) {
    std::vector<std::string> values;
    for (const Node& v : p["values"].elements()) {
      if (!v.json().is_number() && !v.json().is_string() && !v.json().is_boolean())
        v.fail("expected a number, a string or a boolean");
      values.push_back(param_text(v.json()));
    }
    parameters.emplace_back(p["path"].string(), std::move(values));
  }
  std::vector<std::string> constraints;
  for (const Node& c : m["constraints"].elements()) {
    const std::string metric = c["metric"].string();
    if (!c.has("min") && !c.has("max")) c.fail("expected a \"min\" or a \"max\" (or both)");
    if (c.has("min")) constraints.push_back(metric + " \xe2\x89\xa5 " + fmt("%.6g", c["min"].number()));
    if (c.has("max")) constraints.push_back(metric + " \xe2\x89\xa4 " + fmt("%.6g", c["max"].number()));
  }
  std::vector<std::string> workloads;
  for (const Node& w : m["workloads"].elements()) workloads.push_back(w["name"].string());
  const int64_t shard_index = m["shard"]["index"].non_negative_integer(), shard_count = m["shard"]["count"].integer();
  const int64_t planned = m["points_planned"].non_negative_integer(), done = m["points_done"].non_negative_integer();
  const bool complete = m["complete"].boolean();
  const std::string search_fidelity = m["fidelity"]["search"].string();
  const std::string pareto_fidelity = m["fidelity"]["pareto"].choice({"analytic", "cycle", "none"});

  // The axes: the first two objectives, or the only one against area (against latency when it is area).
  const std::string x_metric = objectives[0].metric;
  const std::string y_metric = objectives.size() > 1 ? objectives[1].metric : x_metric == "area_mm2" ? "latency_s" : "area_mm2";
  const std::vector<std::string> axes = {x_metric, y_metric};
  std::vector<std::string> shown;  // metrics in tooltips and tables: the objectives, then area
  for (const Objective& o : objectives)
    if (std::find(shown.begin(), shown.end(), o.metric) == shown.end()) shown.push_back(o.metric);
  if (std::find(shown.begin(), shown.end(), "area_mm2") == shown.end()) shown.push_back("area_mm2");

  // The points.
  std::vector<SweepPoint> points;
  points.reserve(points_json.size());
  for (size_t i = 0; i < points_json.size(); ++i)
    points.push_back(read_point(Node(points_json[i], "points[" + std::to_string(i) + "]"), axes));

  // The front.
  const Node pareto(pareto_json, "pareto");
  if (!pareto_json.is_object()) pareto.fail("expected a JSON object");
  const std::vector<Objective> front_objectives = read_objectives(pareto["objectives"]);
  bool same = front_objectives.size() == objectives.size();
  for (size_t i = 0; same && i < objectives.size(); ++i)
    same = front_objectives[i].metric == objectives[i].metric && front_objectives[i].direction == objectives[i].direction;
  if (!same) pareto["objectives"].fail("expected the same objectives as sweep.json");
  std::vector<FrontPoint> front;
  for (const Node& f : pareto["front"].elements()) {
    FrontPoint fp;
    fp.point = read_point(f, axes);
    if (fp.point.error) f["error"].fail("expected null: a front point has been evaluated");
    const Node cycle = f["cycle"];
    if (!cycle.is_null() && cycle.has("error") && !cycle["error"].is_null()) {
      fp.cycle_error = cycle["error"].string();
    } else if (!cycle.is_null()) {
      // Area does not depend on fidelity: take the analytic one when the cycle record has none.
      const Node metrics = cycle["metrics"];
      std::vector<std::string> need = {x_metric};
      if (y_metric != "area_mm2" || metrics.has("area_mm2")) need.push_back(y_metric);
      auto cm = read_metrics(metrics, need);
      if (!cm.count("area_mm2") && fp.point.metrics.count("area_mm2")) cm["area_mm2"] = fp.point.metrics.at("area_mm2");
      fp.cycle = std::move(cm);
    }
    fp.front_at_cycle = f["front_at_cycle"].boolean();
    front.push_back(std::move(fp));
  }

  // Counts.
  size_t feasible = 0, infeasible = 0, failed = 0, resimulated = 0, kept = 0, resim_failed = 0;
  for (const SweepPoint& p : points) (p.error ? failed : p.feasible ? feasible : infeasible)++;
  const size_t plotted = points.size();
  size_t evaluated = points.size();
  const bool sampled = all != nullptr && all->points > static_cast<int64_t>(plotted);
  if (sampled) {
    evaluated = static_cast<size_t>(all->points);
    feasible = static_cast<size_t>(all->feasible), infeasible = static_cast<size_t>(all->infeasible);
    failed = static_cast<size_t>(all->failed);
  }
  for (const FrontPoint& f : front) {
    resimulated += f.cycle.has_value();
    kept += f.cycle && f.front_at_cycle;
    resim_failed += f.cycle_error.has_value();
  }

  // The scatter.
  ScatterChart chart;
  auto direction = [&](const std::string& metric) -> std::string {
    for (const Objective& o : objectives)
      if (o.metric == metric) return o.direction == "min" ? ", lower is better" : ", higher is better";
    return "";
  };
  chart.x_label = metric_label(x_metric) + direction(x_metric);
  chart.y_label = metric_label(y_metric) + direction(y_metric);
  MarkSet ok{"", "sweep-point", MarkShape::circle, "#56B4E9", 3, false, {}};
  MarkSet bad{"", "sweep-point infeasible-point", MarkShape::cross, "#999999", 3, false, {}};
  for (const SweepPoint& p : points) {
    if (p.error) continue;
    (p.feasible ? ok : bad).marks.push_back({p.metrics.at(x_metric), p.metrics.at(y_metric), point_tooltip(p, shown)});
  }
  ok.legend = "feasible point (" + std::to_string(ok.marks.size()) + ")";
  bad.legend = "infeasible point (" + std::to_string(bad.marks.size()) + ")";
  MarkSet on_front{"Pareto front, " + search_fidelity + " (" + std::to_string(front.size()) + ")", "front-point",
                   MarkShape::ring, "#000000", 6, true, {}};
  MarkSet resim{"front at cycle level (" + std::to_string(resimulated) + ")", "resim-point", MarkShape::diamond, "#D55E00",
                5, false, {}};
  for (const FrontPoint& f : front) {
    std::string front_tip = "front " + point_tooltip(f.point, shown);
    if (f.cycle_error) front_tip += "; cycle-level re-simulation failed: " + *f.cycle_error;
    const ScatterMark a{f.point.metrics.at(x_metric), f.point.metrics.at(y_metric), front_tip};
    on_front.marks.push_back(a);
    if (f.cycle) {
      std::string tip = "cycle-level #" + std::to_string(f.point.index) + ":";
      for (size_t i = 0; i < shown.size(); ++i)
        if (f.cycle->count(shown[i])) tip += (i ? ", " : " ") + shown[i] + " " + metric_value(shown[i], f.cycle->at(shown[i]));
      tip += f.front_at_cycle ? "; still on the front at cycle level" : "; dominated at cycle level";
      const ScatterMark b{f.cycle->at(x_metric), f.cycle->at(y_metric), tip};
      resim.marks.push_back(b);
      chart.links.emplace_back(a, b);
    }
  }
  for (MarkSet* set : {&ok, &bad, &on_front, &resim}) chart.sets.push_back(std::move(*set));
  chart.unplaced = {"", "sweep-point infeasible-point", MarkShape::cross, "#BB0000", 4, false, {}};
  for (const SweepPoint& p : points)
    if (p.error) chart.unplaced.marks.push_back({0, 0, point_tooltip(p, shown)});
  chart.unplaced_label = "not evaluated (error): " + std::to_string(failed) + (failed == 1 ? " point" : " points");

  // The page.
  std::string body;
  body.reserve(400 * plotted + 8192);
  std::string objective_text;
  for (size_t i = 0; i < objectives.size(); ++i)
    objective_text += (i ? ", " : "") + objectives[i].name + " (" + objectives[i].direction + " " + objectives[i].metric + ")";
  body += "<p>Spec <b>" + html_escape(spec_name) + "</b> (<code>" + html_escape(spec_file) + "</code>); strategy <b>" +
          strategy + "</b>; objectives: " + html_escape(objective_text) + ".</p>\n";
  std::vector<std::vector<std::string>> facts = {
      {"points evaluated", std::to_string(evaluated) + (sampled ? " (the plot shows an even sample of " +
                                                                     std::to_string(plotted) + ")" : "")},
      {"planned / done", std::to_string(planned) + " / " + std::to_string(done) + (complete ? " (complete)" : " (incomplete)")},
      {"feasible", std::to_string(feasible)},
      {"infeasible", std::to_string(infeasible)},
      {"failed (error)", std::to_string(failed)},
      {"Pareto front", std::to_string(front.size())},
      {"front re-simulated at cycle level", std::to_string(resimulated) + " (" + std::to_string(kept) + " still on the front" +
                                                (resim_failed ? ", " + std::to_string(resim_failed) + " failed" : "") + ")"},
      {"fidelity", "search " + search_fidelity + ", front " + pareto_fidelity},
  };
  std::string wl;
  for (size_t i = 0; i < workloads.size(); ++i) wl += (i ? ", " : "") + workloads[i];
  facts.push_back({"workloads", wl.empty() ? "-" : wl});
  std::string cons;
  for (size_t i = 0; i < constraints.size(); ++i) cons += (i ? ", " : "") + constraints[i];
  facts.push_back({"constraints", cons.empty() ? "none" : cons});
  if (shard_count > 1) facts.push_back({"shard", std::to_string(shard_index + 1) + " of " + std::to_string(shard_count)});
  body += html_table({"sweep", ""}, facts);

  body += "<h2>Pareto front</h2>\n" + svg_scatter(chart) +
          "<p class=\"note\">Every evaluated design is a dot (crosses: infeasible, failing a constraint or, under the "
          "plot, not evaluated). Ringed points, joined by the line, are the Pareto front: no other feasible design is "
          "at least as good in every objective and better in one. Diamonds are the front re-simulated at cycle level, "
          "linked to their analytic estimate.";
  if (objectives.size() > 2)
    body += " The front is computed over all " + std::to_string(objectives.size()) +
            " objectives, so in this projection onto the first two some front points look dominated.";
  if (objectives.size() == 1)
    body += " With one objective the front is its best point; " + html_escape(metric_label(y_metric)) + " is shown for context.";
  body += "</p>\n";

  std::vector<std::string> header = {"index"};
  for (const auto& [path, values] : parameters) header.push_back(path);
  for (const std::string& mm : shown) header.push_back(mm);
  if (resimulated || resim_failed) {
    for (const std::string& mm : shown) header.push_back(mm + " (cycle)");
    header.push_back("front at cycle");
  }
  std::vector<std::vector<std::string>> rows;
  for (const FrontPoint& f : front) {
    std::vector<std::string> row = {std::to_string(f.point.index)};
    for (const auto& [path, values] : parameters) {
      std::string v = "-";
      for (const auto& [k, text] : f.point.params)
        if (k == path) v = text;
      row.push_back(v);
    }
    for (const std::string& mm : shown)
      row.push_back(f.point.metrics.count(mm) ? metric_value(mm, f.point.metrics.at(mm)) : "-");
    if (resimulated || resim_failed) {
      for (const std::string& mm : shown)
        row.push_back(f.cycle && f.cycle->count(mm) ? metric_value(mm, f.cycle->at(mm)) : "-");
      row.push_back(f.cycle ? (f.front_at_cycle ? "yes" : "no") : f.cycle_error ? "failed: " + *f.cycle_error : "-");
    }
    rows.push_back(std::move(row));
  }
  body += "<h2>Front</h2>\n" + html_table(header, rows);

  std::vector<std::vector<std::string>> param_rows;
  for (const auto& [path, values] : parameters) {
    std::string list;
    for (size_t i = 0; i < values.size(); ++i) list += (i ? ", " : "") + values[i];
    param_rows.push_back({path, std::to_string(values.size()), list});
  }
  body += "<h2>Parameters</h2>\n" + html_table({"parameter", "values", "list"}, param_rows);
  return html_page("loom sweep: " + spec_name, body);
}

}  // namespace loom
