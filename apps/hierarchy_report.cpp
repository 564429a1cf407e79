#include "apps/hierarchy_report.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>

#include "apps/report_writer.h"
#include "sim/text_format.h"
#include "sim/error.h"
#include "sim/text_file.h"

namespace loom {

namespace {

// Header cells built from level names are quoted only when they need it (layer names are
// always quoted, as in the systolic layers.csv).
std::string csv_header_cell(const std::string& s) {
  return s.find_first_of(",\"\n\r") == std::string::npos ? s : csv_quoted(s);
}

const char* bottleneck_name(int b, const HierarchyConfig& arch) {
  return b < 0 ? "compute" : arch.levels[b].name.c_str();
}

double utilization(const CostTotals& c, const HierarchyConfig& arch) {
  const double denom = static_cast<double>(arch.total_pes()) * static_cast<double>(c.cycles);
  return denom > 0 ? static_cast<double>(c.macs) / denom : 0.0;
}

std::string count(int64_t v) { return with_commas(v); }

// "pJ", or the first word of a relative table's unit ("MAC16 (1 = one 16-bit MAC ...)").
std::string short_unit(const HierarchyConfig& arch) {
  const std::string& u = arch.energy_unit;
  return u.substr(0, u.find(' '));
}
bool unit_is_pj(const HierarchyConfig& arch) { return arch.energy_unit == "pJ"; }

}  // namespace

CostTotals CostTotals::of(const Cost& c) {
  CostTotals t;
  t.macs = c.macs;
  t.cycles = c.cycles;
  t.compute_cycles = c.compute_cycles;
  t.folds = c.folds;
  t.bottleneck = c.bottleneck;
  t.mac_pj = c.mac_pj;
  t.energy_pj = c.energy_pj;
  t.levels.resize(static_cast<size_t>(c.num_levels));
  for (int i = 0; i < c.num_levels; ++i) {
    const LevelCost& lc = c.levels[i];
    Level& l = t.levels[i];
    l.ops = lc.ops;
    l.read_bytes = lc.read_bytes;
    l.write_bytes = lc.write_bytes;
    l.bandwidth_cycles = lc.bandwidth_cycles;
    l.network_deliveries = lc.network_deliveries;
    l.access_pj = lc.access_pj;
    l.network_pj = lc.network_pj;
    l.leakage_pj = lc.leakage_pj;
  }
  return t;
}

void CostTotals::add(const CostTotals& o) {
  macs += o.macs;
  cycles += o.cycles;
  compute_cycles += o.compute_cycles;
  folds += o.folds;
  mac_pj += o.mac_pj;
  energy_pj += o.energy_pj;
  if (levels.size() < o.levels.size()) levels.resize(o.levels.size());
  for (size_t i = 0; i < o.levels.size(); ++i) {
    Level& l = levels[i];
    const Level& r = o.levels[i];
    for (int op = 0; op < kNumOperands; ++op) {
      l.ops[op].reads += r.ops[op].reads;
      l.ops[op].fills += r.ops[op].fills;
      l.ops[op].updates += r.ops[op].updates;
      l.ops[op].drains += r.ops[op].drains;
    }
    l.read_bytes += r.read_bytes;
    l.write_bytes += r.write_bytes;
    l.bandwidth_cycles += r.bandwidth_cycles;
    l.network_deliveries += r.network_deliveries;
    l.access_pj += r.access_pj;
    l.network_pj += r.network_pj;
    l.leakage_pj += r.leakage_pj;
  }
}

double CostTotals::network_pj() const {
  double s = 0;
  for (const Level& l : levels) s += l.network_pj;
  return s;
}

double CostTotals::leakage_pj() const {
  double s = 0;
  for (const Level& l : levels) s += l.leakage_pj;
  return s;
}

void check_level_names_for_reports(const HierarchyConfig& arch) {
  static const std::set<std::string> reserved = {"mac", "network", "leakage", "total"};
  std::set<std::string> seen;
  for (int i = 0; i < arch.num_levels(); ++i) {
    const std::string& n = arch.levels[i].name;
    const std::string field = "levels[" + std::to_string(i) + "].name";
    if (reserved.count(n)) {
      throw InputError(arch.source_file, field,
                       "level name \"" + n + "\" is reserved: reports list the energy of each level next to "
                       "\"mac\", \"network\", \"leakage\" and \"total\"; rename the level");
    }
    if (!seen.insert(n).second) throw InputError(arch.source_file, field, "duplicate level name \"" + n + "\"");
  }
}

Json cost_to_json(const CostTotals& c, const HierarchyConfig& arch) {
  Json levels = Json::object();
  Json energy = {{"mac", c.mac_pj}};
  for (size_t i = 0; i < c.levels.size(); ++i) {
    const CostTotals::Level& l = c.levels[i];
    const StorageLevel& lv = arch.levels[i];
    Json operands = Json::object();
    int64_t reads = 0, writes = 0;
    for (int o = 0; o < kNumOperands; ++o) {
      const OperandCounts& oc = l.ops[o];
      reads += oc.total_reads();
      writes += oc.total_writes();
      if (!lv.keeps[o]) continue;  // a bypassed operand never touches this level
      operands[operand_name(o)] = {
          {"reads", oc.reads}, {"fills", oc.fills}, {"updates", oc.updates}, {"drains", oc.drains}};
    }
    levels[lv.name] = {{"reads", reads},
                       {"writes", writes},
                       {"read_bytes", l.read_bytes},
                       {"write_bytes", l.write_bytes},
                       {"bandwidth_cycles", l.bandwidth_cycles},
                       {"network_words", l.network_deliveries},
                       {"operands", operands},
                       {"energy_pj", {{"access", l.access_pj}, {"network", l.network_pj}, {"leakage", l.leakage_pj}}}};
    energy[lv.name] = l.access_pj;
  }
  energy["network"] = c.network_pj();
  energy["leakage"] = c.leakage_pj();
  energy["total"] = c.energy_pj;
  const int64_t dram_r = c.levels.empty() ? 0 : c.levels[0].read_bytes;
  const int64_t dram_w = c.levels.empty() ? 0 : c.levels[0].write_bytes;
  const double avg = c.cycles > 0 ? static_cast<double>(dram_r + dram_w) / static_cast<double>(c.cycles) : 0.0;
  return {
      {"macs", c.macs},
      {"folds", c.folds},
      {"cycles", {{"total", c.cycles}, {"compute", c.compute_cycles}, {"stall", c.cycles - c.compute_cycles}}},
      {"time_s", static_cast<double>(c.cycles) / arch.clock_hz},
      {"utilization", utilization(c, arch)},
      {"levels", levels},
      {"dram",
       {{"read_bytes", dram_r},
        {"write_bytes", dram_w},
        {"avg_bytes_per_cycle", avg},
        {"avg_gb_s", avg * arch.clock_hz / 1e9}}},
      {"energy_pj", energy},
      {"edp_pj_cycles", c.energy_pj * static_cast<double>(c.cycles)},
  };
}

Json problem_to_json(const Problem& p) {
  Json bounds = Json::object();
  for (int d = 0; d < kNumDims; ++d) bounds[p.dim_name(d)] = p.bound[d];
  return {{"kind", p.is_gemm ? "gemm" : "conv"},
          {"bounds", bounds},
          {"groups", p.groups},
          {"stride", {p.stride_h, p.stride_w}},
          {"dilation", {p.dilation_h, p.dilation_w}},
          {"macs", p.macs()}};
}

Json hierarchy_arch_json(const HierarchyConfig& arch, const std::string& dataflow) {
  Json names = Json::array();
  for (const StorageLevel& l : arch.levels) names.push_back(l.name);
  return {{"name", arch.name},
          {"file", arch.source_file},
          {"kind", "hierarchy"},
          {"levels", names},
          {"pes", arch.total_pes()},
          {"dataflow", dataflow},
          {"clock_hz", arch.clock_hz},
          {"energy_table", arch.energy_table},
          {"energy_unit", arch.energy_unit}};
}

Json mapper_settings_json(const MapperSettings& s) {
  return {{"dataflow", s.dataflow},
          {"objective", name_of(s.options.objective)},
          {"search", name_of(s.options.method)},
          {"budget", s.options.budget},
          {"seed", s.options.seed}};
}

std::string format_cost_tables(const Cost& cost, const HierarchyConfig& arch) {
  const CostTotals c = CostTotals::of(cost);
  std::string out;
  size_t w = 7;
  for (const StorageLevel& l : arch.levels) w = std::max(w, l.name.size());
  const int lw = static_cast<int>(w);

  out += "accesses (words, all instances and groups)\n";
  append_format(out, "%-*s  %-8s %15s %15s %15s %15s\n", lw, "level", "operand", "reads", "fills", "updates", "drains");
  for (int i = 0; i < cost.num_levels; ++i) {
    for (int o = 0; o < kNumOperands; ++o) {
      if (!arch.levels[i].keeps[o]) continue;
      const OperandCounts& oc = cost.levels[i].ops[o];
      append_format(out, "%-*s  %-8s %15s %15s %15s %15s\n", lw, arch.levels[i].name.c_str(), operand_name(o),
           count(oc.reads).c_str(), count(oc.fills).c_str(), count(oc.updates).c_str(), count(oc.drains).c_str());
    }
  }

  out += "\nper level (tile words per instance: weights / inputs / outputs; '-' = bypassed)\n";
  append_format(out, "%-*s  %9s %26s %15s %15s %12s %13s\n", lw, "level", "instances", "tile words", "read bytes",
       "write bytes", "bw cycles", "network words");
  for (int i = 0; i < cost.num_levels; ++i) {
    const LevelCost& lc = cost.levels[i];
    std::string tiles;
    for (int o = 0; o < kNumOperands; ++o) {
      if (o) tiles += " / ";
      tiles += arch.levels[i].keeps[o] ? count(lc.tile_words[o]) : "-";
    }
    if (arch.levels[i].unbounded) tiles = "(whole tensors)";
    append_format(out, "%-*s  %9s %26s %15s %15s %12s %13s\n", lw, arch.levels[i].name.c_str(),
         count(lc.instances_used).c_str(), tiles.c_str(), count(lc.read_bytes).c_str(),
         count(lc.write_bytes).c_str(), count(lc.bandwidth_cycles).c_str(), count(lc.network_deliveries).c_str());
  }

  out += "\n";
  std::string bound = cost.bottleneck < 0
                          ? "compute-bound"
                          : "bound by " + arch.levels[cost.bottleneck].name + " bandwidth (" +
                                count(cost.levels[cost.bottleneck].bandwidth_cycles) + " cycles)";
  append_format(out, "cycles       %s (compute %s%s; %s)\n", count(cost.cycles).c_str(), count(cost.compute_cycles).c_str(),
       cost.folds ? (", " + count(cost.folds) + " folds").c_str() : "", bound.c_str());
  append_format(out, "utilization  %.1f%% of %s PEs\n", 100.0 * cost.utilization, count(arch.total_pes()).c_str());
  append_format(out, "time         %.6g ms at %.0f MHz\n", 1e3 * static_cast<double>(cost.cycles) / arch.clock_hz,
       arch.clock_hz / 1e6);
  out += "\n";
  if (!unit_is_pj(arch)) out += "energies in " + arch.energy_unit + "\n";
  append_format(out, "%-*s  %18s %7s\n", lw, "energy", short_unit(arch).c_str(), "share");
  auto share = [&](const char* name, double pj) {
    append_format(out, "%-*s  %18.1f %6.1f%%\n", lw, name, pj, cost.energy_pj > 0 ? 100.0 * pj / cost.energy_pj : 0.0);
  };
  share("MAC", c.mac_pj);
  for (int i = 0; i < cost.num_levels; ++i) share(arch.levels[i].name.c_str(), c.levels[i].access_pj);
  share("network", c.network_pj());
  share("leakage", c.leakage_pj());
  share("total", c.energy_pj);
  append_format(out, "EDP          %.6g %s x cycles\n", cost.edp(), short_unit(arch).c_str());
  return out;
}

namespace {

Json layer_record(const LayerMapping& lm, const std::vector<LayerMapping>& all, const HierarchyConfig& arch) {
  Json j = cost_to_json(CostTotals::of(lm.result.cost), arch);
  j["name"] = lm.layer.name;
  j["kind"] = lm.layer.kind_name();
  j["bottleneck"] = bottleneck_name(lm.result.cost.bottleneck, arch);
  j["problem"] = problem_to_json(lm.problem);
  j["mapping"] = mapping_to_json(lm.result.best, lm.problem, arch);
  // Search time is left out so that identical runs write identical reports.
  j["search"] = {{"method", name_of(lm.result.method_used)},
                 {"evaluated", lm.result.evaluated},
                 {"valid", lm.result.valid},
                 {"same_as", lm.reused ? Json(all[lm.searched_as].layer.name) : Json(nullptr)}};
  return j;
}

CostTotals network_totals(const std::vector<LayerMapping>& layers) {
  CostTotals t;
  for (const LayerMapping& lm : layers) t.add(CostTotals::of(lm.result.cost));
  return t;
}

}  // namespace

Json hierarchy_report_to_json(const std::vector<LayerMapping>& layers, const HierarchyRunContext& ctx) {
  const HierarchyConfig& arch = *ctx.arch;
  Json records = Json::array();
  for (const LayerMapping& lm : layers) records.push_back(layer_record(lm, layers, arch));
  Json totals = cost_to_json(network_totals(layers), arch);
  totals["name"] = "total";
  totals["kind"] = "network";
  return {
      {"schema_version", kReportSchemaVersion},
      {"tool", {{"name", "loom"}, {"version", LOOM_VERSION}}},
      {"command", "run"},
      {"fidelity", "analytic"},
      {"conventions", "loom"},
      {"arch", hierarchy_arch_json(arch, ctx.mapper.dataflow)},
      {"mapper", mapper_settings_json(ctx.mapper)},
      {"workload",
       {{"name", ctx.network->name},
        {"file", ctx.network->source_file},
        {"batch", ctx.network->batch},
        {"layers", ctx.network->layers.size()}}},
      {"layers", records},
      {"totals", totals},
  };
}

std::string hierarchy_layers_to_csv(const std::vector<LayerMapping>& layers, const HierarchyConfig& arch) {
  std::ostringstream out;
  out << "name,kind,macs,folds,cycles_total,cycles_compute,cycles_stall,utilization,bottleneck";
  for (const StorageLevel& l : arch.levels) {
    for (const char* f : {"reads", "writes", "read_bytes", "write_bytes"}) {
      out << ',' << csv_header_cell(l.name + "_" + f);
    }
  }
  out << ",energy_mac_pj";
  for (const StorageLevel& l : arch.levels) out << ',' << csv_header_cell("energy_" + l.name + "_pj");
  out << ",energy_network_pj,energy_leakage_pj,energy_total_pj\n";
  auto row = [&](const std::string& name, const char* kind, const CostTotals& c, const char* bottleneck) {
    out << csv_quoted(name) << ',' << kind << ',' << c.macs << ',' << c.folds << ',' << c.cycles << ','
        << c.compute_cycles << ',' << c.cycles - c.compute_cycles << ',' << format_number(utilization(c, arch)) << ','
        << bottleneck;
    for (const CostTotals::Level& l : c.levels) {
      int64_t reads = 0, writes = 0;
      for (const OperandCounts& oc : l.ops) reads += oc.total_reads(), writes += oc.total_writes();
      out << ',' << reads << ',' << writes << ',' << l.read_bytes << ',' << l.write_bytes;
    }
    out << ',' << format_number(c.mac_pj);
    for (const CostTotals::Level& l : c.levels) out << ',' << format_number(l.access_pj);
    out << ',' << format_number(c.network_pj()) << ',' << format_number(c.leakage_pj()) << ',' << format_number(c.energy_pj) << '\n';
  };
  for (const LayerMapping& lm : layers) {
    row(lm.layer.name, lm.layer.kind_name(), CostTotals::of(lm.result.cost),
        bottleneck_name(lm.result.cost.bottleneck, arch));
  }
  row("total", "network", network_totals(layers), "");
  return out.str();
}

std::string format_hierarchy_table(const std::vector<LayerMapping>& layers, const HierarchyConfig& arch) {
  int width = 5, bw = 10;
  for (const LayerMapping& lm : layers) width = std::max(width, static_cast<int>(lm.layer.name.size()));
  for (const StorageLevel& l : arch.levels) bw = std::max(bw, static_cast<int>(l.name.size()));
  width = std::min(width, 32);
  bw = std::min(bw, 16);
  const std::string energy_head = unit_is_pj(arch) ? "energy uJ" : "energy 1e6 " + short_unit(arch);
  const int ew = std::max(11, static_cast<int>(energy_head.size()));
  const char* row_fmt = "%-*s %15s %13s %12s %6.1f%% %-*s %10.3f %*.2f  %s\n";
  std::string out;
  append_format(out, "%-*s %15s %13s %12s %7s %-*s %10s %*s  %s\n", width, "layer", "MACs", "cycles", "stall", "util", bw,
       "bound by", "DRAM MB", ew, energy_head.c_str(), "mapping");
  auto row = [&](const std::string& full_name, const CostTotals& c, const char* bound, const std::string& mapping) {
    const std::string name = full_name.substr(0, static_cast<size_t>(width));
    const int64_t dram = c.levels.empty() ? 0 : c.levels[0].read_bytes + c.levels[0].write_bytes;
    std::string r;
    append_format(r, row_fmt, width, name.c_str(), std::to_string(c.macs).c_str(), std::to_string(c.cycles).c_str(),
         std::to_string(c.cycles - c.compute_cycles).c_str(), 100.0 * utilization(c, arch), bw, bound,
         static_cast<double>(dram) / 1e6, ew, c.energy_pj / 1e6, mapping.c_str());
    r.erase(r.find_last_not_of(" \n") + 1);  // the total row has no mapping column
    out += r + "\n";
  };
  int64_t evaluated = 0;
  size_t searched = 0;
  double seconds = 0;
  for (const LayerMapping& lm : layers) {
    const std::string how = lm.reused ? "= " + layers[lm.searched_as].layer.name : name_of(lm.result.method_used);
    row(lm.layer.name, CostTotals::of(lm.result.cost), bottleneck_name(lm.result.cost.bottleneck, arch),
        how);
    if (!lm.reused) {
      ++searched;
      evaluated += lm.result.evaluated;
      seconds += lm.result.seconds;
    }
  }
  out += std::string(static_cast<size_t>(width + bw + ew) + 82, '-') + "\n";
  const CostTotals t = network_totals(layers);
  row("total", t, "-", "");
  append_format(out, "mapped %zu layers: %zu distinct shapes searched, %s mappings evaluated in %.2f s\n", layers.size(),
       searched, with_commas(evaluated).c_str(), seconds);
  char energy[64];
  if (unit_is_pj(arch)) {
    std::snprintf(energy, sizeof energy, "%.3f mJ", t.energy_pj / 1e9);
  } else {
    std::snprintf(energy, sizeof energy, "%.6g %s", t.energy_pj, short_unit(arch).c_str());
  }
  append_format(out, "%d layers, %lld MACs, %lld cycles = %.3f ms at %.0f MHz, %s\n", static_cast<int>(layers.size()),
       static_cast<long long>(t.macs), static_cast<long long>(t.cycles),
       1e3 * static_cast<double>(t.cycles) / arch.clock_hz, arch.clock_hz / 1e6, energy);
  return out;
}


}  // namespace loom
