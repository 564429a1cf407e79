#include "apps/train_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "apps/html_page.h"
#include "apps/report_writer.h"
#include "apps/svg_charts.h"
#include "apps/train_charts.h"
#include "sim/text_file.h"
#include "sim/text_format.h"

namespace loom {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

template <typename... Args>
std::string fmt(const char* f, Args... args) {
  std::string s;
  append_format(s, f, args...);
  return s;
}

// Milliseconds: 3 decimals, or 4 significant digits below 1 ms (steps of tiny networks).
std::string ms(double seconds) {
  const double v = seconds * 1e3;
  return v != 0 && std::fabs(v) < 1 ? fmt("%.4g", v) : fmt("%.3f", v);
}
double share(double part, double whole) { return whole > 0 ? part / whole : 0; }
std::string percent(double fraction) { return fmt("%.1f%%", fraction * 100); }
// Bytes in GiB, or MiB / KiB when small (tiny networks).
std::string gib(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b == 0 || b >= 0.1 * kGiB) return fmt("%.2f GiB", b / kGiB);
  if (b >= 0.1 * 1048576) return fmt("%.2f MiB", b / 1048576);
  return fmt("%.2f KiB", b / 1024);
}

std::string run_description(const TrainResult& r) {
  const TrainOptions& o = r.options;
  std::string s = r.devices == 1 ? std::string("1 device, ")
                                 : std::to_string(r.devices) + " devices, " + name_of(o.parallel) + " parallel, ";
  s += std::string(name_of(o.step.precision)) + ", " + name_of(o.step.optimizer) + ", batch " +
                  std::to_string(o.batch);
  if (o.parallel == Parallelism::data && r.devices > 1) s += " (" + std::to_string(r.per_device_batch) + " per device)";
  if (o.parallel == Parallelism::pipeline)
    s += ", " + std::to_string(r.stages) + " stages x " + std::to_string(r.micro_batches) + " micro-batches";
  return s + ", " + name_of(o.fidelity) + " fidelity";
}

// The step-time components in display order: label, seconds, indent (0: sums to the step).
struct Component {
  const char* label;
  const char* series;  // short name for charts
  double seconds;
  int level;
};

std::vector<Component> components(const StepBreakdown& b) {
  return {{"forward", "forward", b.forward, 0},
          {"backward", "backward", b.backward, 0},
          {"update", "update", b.update, 0},
          {"GEMM kernels", "GEMM", b.gemm, 1},
          {"element-wise kernels", "element-wise", b.elementwise, 1},
          {"exposed communication", "communication", b.communication_exposed, 0},
          {"exposed launch overhead", "launch overhead", b.launch_exposed, 0},
          {"input wait", "input wait", b.input_wait, 0},
          {"pipeline bubble", "pipeline bubble", b.pipeline_bubble, 0}};
}

double effect_delta(const EffectCost& e) { return share(e.flipped_step_seconds - e.step_seconds, e.step_seconds); }

std::string efficiency_text(const TrainResult& r) {
  if (r.single_device_samples_per_second <= 0) return "n/a";
  return percent(r.scaling_efficiency);
}

// Consecutive devices with the same footprint and capacity, as one line each.
struct MemoryGroup {
  std::string first, last;
  const DeviceMemory* memory;
};

std::vector<MemoryGroup> memory_groups(const TrainResult& r) {
  std::vector<MemoryGroup> groups;
  for (const DeviceMemory& m : r.memory) {
    if (!groups.empty()) {
      const DeviceMemory& g = *groups.back().memory;
      if (g.footprint.total() == m.footprint.total() && g.capacity_bytes == m.capacity_bytes && g.fits == m.fits) {
        groups.back().last = m.device;
        continue;
      }
    }
    groups.push_back({m.device, m.device, &m});
  }
  return groups;
}

// ---------------------------------------------------------------------------------------------
// HTML pieces.

const std::vector<std::pair<std::string, std::string>>& phase_colours() {
  static const std::vector<std::pair<std::string, std::string>> colours = {
      {"forward", "#0072B2"},   {"backward", "#E69F00"}, {"update", "#009E73"}, {"all_reduce", "#D55E00"},
      {"all_gather", "#CC79A7"}, {"p2p", "#56B4E9"},     {"launch", "#999999"}, {"input_wait", "#8C510A"}};
  return colours;
}

std::string headline_table(const TrainResult& r) {
  std::vector<std::vector<std::string>> rows = {
      {"throughput", fmt("%.1f samples/s", r.samples_per_second)},
      {"step time", ms(r.step_seconds) + " ms"},
      {"devices", std::to_string(r.devices) + (r.devices > 1 ? std::string(" (") + name_of(r.options.parallel) + " parallel)" : "")},
      {"batch", std::to_string(r.options.batch) + " per step, " + std::to_string(r.per_device_batch) + " per device"},
      {"precision, optimizer", std::string(name_of(r.options.step.precision)) + ", " + name_of(r.options.step.optimizer)},
  };
  if (r.options.parallel == Parallelism::pipeline) {
    rows.push_back({"pipeline", std::to_string(r.stages) + " stages, " + std::to_string(r.micro_batches) +
                                    " micro-batches, bubble " + percent(r.bubble_fraction)});
  }
  if (r.single_device_samples_per_second > 0 && r.devices > 1) {
    rows.push_back({"scaling efficiency", percent(r.scaling_efficiency) + " (1 device: " +
                                              fmt("%.1f", r.single_device_samples_per_second) + " samples/s)"});
  }
  if (r.devices > 1)
    rows.push_back({"communication", si_format(r.communication_seconds, "s") + " in collectives, " +
                                       si_format(r.breakdown.communication_exposed, "s") + " exposed; " +
                                       si_format(static_cast<double>(r.communication_bytes), "B") + " sent per device"});
  if (r.fusion_saved_bytes > 0)
    rows.push_back({"fusion", si_format(static_cast<double>(r.fusion_saved_bytes), "B") + " of DRAM traffic saved per device"});
  rows.push_back({"memory", r.fits ? "fits every device" : "does NOT fit every device (see the warnings)"});
  rows.push_back({"fidelity", name_of(r.options.fidelity)});
  return html_table({"figure", "value"}, rows);
}

std::string breakdown_chart(const TrainResult& r) {
  BarChart chart;
  chart.x_label = "time in the step (ms)";
  chart.mark_class = "breakdown-bar";
  chart.series = {"time"};
  chart.keep_zero = true;
  for (const Component& c : components(r.breakdown)) {
    chart.rows.push_back(c.level ? std::string("(") + c.label + ")" : std::string(c.label));  // SVG drops indents
    chart.values.push_back({c.seconds * 1e3});
    chart.tooltips.push_back({std::string(c.label) + ": " + ms(c.seconds) + " ms, " + percent(share(c.seconds, r.step_seconds)) +
                              " of the step" + (c.level ? " (part of forward + backward + update)" : "")});
  }
  return svg_bar_chart(chart);
}

std::string memory_chart(const TrainResult& r) {
  // The axis unit: GiB, or MiB / KiB for tiny networks on devices of unknown capacity.
  double largest = 0;
  for (const DeviceMemory& m : r.memory)
    largest = std::max({largest, static_cast<double>(m.footprint.total()), static_cast<double>(m.capacity_bytes)});
  const bool use_gib = largest >= 0.5 * kGiB, use_mib = !use_gib && largest >= 0.5 * 1048576;
  const double unit = use_gib ? kGiB : use_mib ? 1048576.0 : 1024.0;
  CapacityBarChart chart;
  chart.unit = use_gib ? "GiB" : use_mib ? "MiB" : "KiB";
  chart.x_label = "memory per device (" + chart.unit + ")";
  chart.mark_class = "memory-segment";
  chart.series = {"weights", "master weights", "gradients", "optimizer state", "activations", "workspace"};
  for (const DeviceMemory& m : r.memory) {
    const MemoryFootprint& f = m.footprint;
    const int64_t parts[] = {f.weights, f.master_weights, f.gradients, f.optimizer_state, f.activations, f.workspace};
    std::vector<double> values;
    std::vector<std::string> tips;
    for (size_t k = 0; k < 6; ++k) {
      values.push_back(static_cast<double>(parts[k]) / unit);
      tips.push_back(m.device + ": " + chart.series[k] + " " + gib(parts[k]) + " (total " + gib(f.total()) +
                     (m.capacity_bytes > 0 ? " of " + gib(m.capacity_bytes) : "") + ")");
    }
    chart.rows.push_back(m.device);
    chart.values.push_back(std::move(values));
    chart.tooltips.push_back(std::move(tips));
    chart.capacity.push_back(static_cast<double>(m.capacity_bytes) / unit);
  }
  return svg_capacity_bars(chart);
}

std::string device_name(const TrainResult& r, int device) {
  if (device >= 0 && static_cast<size_t>(device) < r.memory.size()) return r.memory[device].device;
  return "device " + std::to_string(device);
}

std::string timeline_chart(const TrainResult& r, int shown_devices) {
  static const char* const kLanes[] = {"compute", "comm", "host", "input"};
  auto lane_rank = [](const std::string& lane) {
    for (size_t i = 0; i < 4; ++i)
      if (lane == kLanes[i]) return i;
    return size_t(4);
  };
  // Rows: device, then lane (known lanes in order, others by name).
  std::map<std::pair<int, std::pair<size_t, std::string>>, size_t> row_of;
  for (const TimelineEvent& e : r.timeline)
    if (e.device < shown_devices) row_of[{e.device, {lane_rank(e.lane), e.lane}}] = 0;
  GanttChart chart;
  for (auto& [key, row] : row_of) {
    row = chart.rows.size();
    chart.rows.push_back(device_name(r, key.first) + " " + key.second.second);
  }
  chart.phases = phase_colours();
  chart.end_seconds = r.step_seconds;
  for (const TimelineEvent& e : r.timeline) {
    if (e.device >= shown_devices) continue;
    chart.bars.push_back({row_of.at({e.device, {lane_rank(e.lane), e.lane}}), e.start_seconds, e.end_seconds, e.phase,
                          e.name});
  }
  return svg_gantt(chart);
}

std::string effects_table(const TrainResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const EffectCost& e : r.effects) {
    rows.push_back({e.name, e.setting, ms(e.step_seconds), ms(e.flipped_step_seconds),
                    fmt("%+.1f%%", effect_delta(e) * 100)});
  }
  return html_table({"switch", "setting", "step (ms)", "flipped (ms)", "flipped vs as estimated"}, rows);
}

std::string kernel_table(const TrainResult& r) {
  std::vector<const KernelTime*> order;
  double busy = 0;
  for (const KernelTime& k : r.kernels) {
    order.push_back(&k);
    busy += k.seconds;
  }
  std::stable_sort(order.begin(), order.end(), [](const KernelTime* a, const KernelTime* b) { return a->seconds > b->seconds; });
  if (order.size() > 20) order.resize(20);
  std::vector<std::vector<std::string>> rows;
  for (const KernelTime* k : order) {
    rows.push_back({k->name, k->layer, k->op, k->phase, k->is_gemm ? "gemm" : "elementwise", fmt("%.4f", k->seconds * 1e3),
                    percent(share(k->seconds, busy)), si_format(k->flops, "FLOP"), si_format(k->dram_bytes, "B"),
                    k->seconds > 0 ? si_format(k->flops / k->seconds, "FLOP/s") : "-", std::to_string(k->launches)});
  }
  return html_table({"kernel", "layer", "op", "phase", "kind", "time (ms)", "share of kernel time", "FLOPs", "DRAM bytes",
                     "achieved", "launches"},
                    rows);
}

std::string link_table(const TrainResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const LinkUse& l : r.links) {
    rows.push_back({l.a + " - " + l.b, si_format(static_cast<double>(l.bytes), "B"), fmt("%.4f", l.busy_seconds * 1e3),
                    percent(share(l.busy_seconds, r.step_seconds))});
  }
  return html_table({"link", "bytes per step", "busy (ms)", "busy share of the step"}, rows);
}

std::string memory_table(const TrainResult& r) {
  std::vector<std::vector<std::string>> rows;
  for (const DeviceMemory& m : r.memory) {
    const MemoryFootprint& f = m.footprint;
    rows.push_back({m.device, gib(f.weights), gib(f.master_weights), gib(f.gradients), gib(f.optimizer_state),
                    gib(f.activations), gib(f.workspace), gib(f.total()),
                    m.capacity_bytes > 0 ? gib(m.capacity_bytes) : "unknown", m.fits ? "fits" : "DOES NOT FIT"});
  }
  return html_table({"device", "weights", "master weights", "gradients", "optimizer state", "activations", "workspace",
                     "total", "capacity", "fit"},
                    rows);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

Json train_report_json(const TrainResult& result, const SystemConfig& system) {
  Json report = {
      {"schema_version", kReportSchemaVersion},
      {"tool", {{"name", "loom"}, {"version", LOOM_VERSION}}},
      {"command", "train"},
  };
  const Json body = train_result_to_json(result);
  if (body.is_object())
    for (const auto& [key, value] : body.items()) report[key] = value;
  report["kind"] = "train";
  // The resolved system: every device, switch, link and the host, spelled out (keeping the
  // body's name and file where the resolved form has none).
  Json resolved = report.contains("system") && report["system"].is_object() ? report["system"] : Json::object();
  const Json spelled_out = system.to_json();
  for (const auto& [key, value] : spelled_out.items()) resolved[key] = value;
  report["system"] = resolved;
  report["workload"] = {{"name", result.workload_name}, {"file", result.workload_file}};
  return report;
}

std::string train_kernels_csv(const TrainResult& r) {
  std::string out = "name,layer,op,phase,kind,seconds,flops,dram_bytes,launches,fusion_saved_bytes\n";
  for (const KernelTime& k : r.kernels) {
    out += csv_quoted(k.name) + ',' + csv_quoted(k.layer) + ',' + csv_quoted(k.op) + ',' + k.phase + ',' +
           (k.is_gemm ? "gemm" : "elementwise") + ',' + format_number(k.seconds) + ',' + format_number(k.flops) + ',' +
           format_number(k.dram_bytes) + ',' + std::to_string(k.launches) + ',' + std::to_string(k.fusion_saved_bytes) +
           '\n';
  }
  return out;
}

std::string train_timeline_csv(const TrainResult& r) {
  std::string out = "device,lane,name,phase,start_s,end_s\n";
  out.reserve(out.size() + 64 * r.timeline.size());
  for (const TimelineEvent& e : r.timeline) {
    out += std::to_string(e.device) + ',' + e.lane + ',' + csv_quoted(e.name) + ',' + e.phase + ',' +
           format_number(e.start_seconds) + ',' + format_number(e.end_seconds) + '\n';
  }
  return out;
}

std::string format_train_summary(const TrainResult& r) {
  std::string s;
  s += r.workload_name + " on " + r.system_name + ": " + run_description(r) + "\n";
  append_format(s, "%-28s %12.1f samples/s\n", "throughput", r.samples_per_second);
  append_format(s, "%-28s %12s ms  100.0%%\n", "step time", ms(r.step_seconds).c_str());
  for (const Component& c : components(r.breakdown)) {
    const std::string label = std::string(c.level ? "    " : "  ") + c.label;
    append_format(s, "%-28s %12s ms %6.1f%%\n", label.c_str(), ms(c.seconds).c_str(), 100 * share(c.seconds, r.step_seconds));
  }
  if (r.communication_seconds > 0 || r.communication_bytes > 0) {
    append_format(s, "%-28s %12s ms in collectives, %s sent per device\n", "communication",
                  ms(r.communication_seconds).c_str(), si_format(static_cast<double>(r.communication_bytes), "B").c_str());
  }
  const LinkUse* busiest = nullptr;
  for (const LinkUse& l : r.links) {
    if (l.bytes > 0 && (!busiest || l.busy_seconds > busiest->busy_seconds)) busiest = &l;
  }
  if (busiest) {
    append_format(s, "%-28s %s - %s: %s per step, busy %s ms (%.1f%% of the step)\n", "busiest link",
                  busiest->a.c_str(), busiest->b.c_str(), si_format(static_cast<double>(busiest->bytes), "B").c_str(),
                  ms(busiest->busy_seconds).c_str(), 100 * share(busiest->busy_seconds, r.step_seconds));
  }
  if (r.options.parallel == Parallelism::pipeline) {
    append_format(s, "%-28s %d stages x %d micro-batches, bubble %.1f%% of the stage-time grid\n", "pipeline", r.stages,
                  r.micro_batches, 100 * r.bubble_fraction);
    for (size_t i = 0; i < r.stage_layers.size(); ++i) append_format(s, "    stage %zu: %s\n", i, r.stage_layers[i].c_str());
  }
  if (r.single_device_samples_per_second > 0 && r.devices > 1) {
    append_format(s, "%-28s %11.1f%%  (1 device: %.1f samples/s; %d x that: %.1f)\n", "scaling efficiency",
                  100 * r.scaling_efficiency, r.single_device_samples_per_second, r.devices,
                  r.devices * r.single_device_samples_per_second);
  }
  s += "memory per device:\n";
  for (const MemoryGroup& g : memory_groups(r)) {
    const DeviceMemory& m = *g.memory;
    const std::string name = g.first == g.last ? g.first : g.first + ".." + g.last;
    const std::string capacity = m.capacity_bytes > 0 ? gib(m.capacity_bytes) : "unknown capacity";
    append_format(s, "  %-26s %12s of %s  %s\n", name.c_str(), gib(m.footprint.total()).c_str(), capacity.c_str(),
                  m.capacity_bytes <= 0 ? "(fit not checked)" : m.fits ? "FITS" : "DOES NOT FIT");
  }
  if (!r.warnings.empty()) {
    s += "warnings:\n";
    for (const std::string& w : r.warnings) s += "  - " + w + "\n";
  }
  if (!r.effects.empty()) {
    s += "what each switch costs (the step as estimated, and with the switch flipped):\n";
    append_format(s, "  %-20s %-8s %12s %12s %8s\n", "switch", "setting", "step ms", "flipped ms", "delta");
    for (const EffectCost& e : r.effects) {
      append_format(s, "  %-20s %-8s %12s %12s %+7.1f%%\n", e.name.c_str(), e.setting.c_str(), ms(e.step_seconds).c_str(),
                    ms(e.flipped_step_seconds).c_str(), 100 * effect_delta(e));
    }
  }
  return s;
}

std::string train_quiet_line(const TrainResult& r) {
  return fmt("train: %.1f samples/s, step %s ms, %d %s (%s), efficiency %s", r.samples_per_second,
             ms(r.step_seconds).c_str(), r.devices, r.devices == 1 ? "device" : "devices", name_of(r.options.parallel),
             efficiency_text(r).c_str()) +
         (r.fits ? "" : ", DOES NOT FIT");
}

std::string render_train_html(const TrainResult& r) {
  std::string body;
  body.reserve(256 * 1024);
  body += "<p>Workload <b>" + html_escape(r.workload_name) + "</b> (<code>" + html_escape(r.workload_file) +
          "</code>) on system <b>" + html_escape(r.system_name) + "</b>" +
          (r.system_file.empty() ? "" : " (<code>" + html_escape(r.system_file) + "</code>)") + ": " +
          html_escape(run_description(r)) + ".</p>\n";
  body += headline_table(r);
  if (!r.warnings.empty()) {
    body += "<h2>Warnings</h2>\n<ul class=\"warning\">\n";
    for (const std::string& w : r.warnings) body += "<li>" + html_escape(w) + "</li>\n";
    body += "</ul>\n";
  }

  body += "<h2>Step time breakdown</h2>\n" + breakdown_chart(r) +
          "<p class=\"note\">Where the slowest device spends the step. Forward, backward, update, exposed "
          "communication, exposed launch overhead, input wait and the pipeline bubble add up to the step; GEMM and "
          "element-wise kernels split the same kernel time by kind.</p>\n";

  const int shown = std::min(r.devices, kTimelineDevices);
  body += "<h2>Timeline of one step</h2>\n" + timeline_chart(r, shown) +
          "<p class=\"note\">One row per device and lane: <i>compute</i> (kernels), <i>comm</i> (collectives and "
          "sends), <i>host</i> (kernel launches), <i>input</i> (waiting for the data loader). Hover a bar for what "
          "ran." +
          (shown < r.devices ? " Devices " + std::to_string(shown) + " to " + std::to_string(r.devices - 1) +
                                   " are left out (the estimate keeps the first " + std::to_string(kTimelineDevices) +
                                   " devices' bars)."
                             : std::string()) +
          "</p>\n";

  if (!r.links.empty()) {
    body += "<h2>Communication per link</h2>\n" + link_table(r) +
            "<p class=\"note\">Bytes each link carries in one step (both directions) and how long collectives "
            "using it run; overlapping collectives add up, so busy time can exceed the step.</p>\n";
  }
  body += "<h2>Memory per device</h2>\n" + memory_chart(r) + memory_table(r);

  if (!r.effects.empty()) {
    body += "<h2>What each switch costs</h2>\n" + effects_table(r) +
            "<p class=\"note\">The step re-estimated with one switch flipped at a time; a positive change means the "
            "flipped setting is slower.</p>\n";
  }
  if (!r.stage_layers.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < r.stage_layers.size(); ++i) rows.push_back({std::to_string(i), r.stage_layers[i]});
    body += "<h2>Pipeline stages</h2>\n" + html_table({"stage", "layers"}, rows);
  }
  body += "<h2>Slowest kernels (" + html_escape(device_name(r, 0)) + ")</h2>\n" + kernel_table(r) +
          "<p class=\"note\">The 20 longest of " + with_commas(static_cast<int64_t>(r.kernels.size())) +
          " kernels; kernels.csv has them all.</p>\n";
  return html_page("loom train: " + r.workload_name + " on " + r.system_name, body);
}

}  // namespace loom
