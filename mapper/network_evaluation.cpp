#include "mapper/network_evaluation.h"

#include <algorithm>
#include <cmath>

#include "arch/simt/gpu_analytic.h"
#include "arch/systolic/systolic_analytic.h"
#include "arch/systolic/systolic_simulator.h"
#include "sim/energy_table.h"

namespace loom {

const char* name_of(Fidelity f) { return f == Fidelity::cycle ? "cycle" : "analytic"; }

double LayerEvaluation::energy_total_pj() const {
  double sum = 0;
  for (const auto& [component, pj] : energy_pj) sum += pj;
  return sum;
}

double LayerEvaluation::bytes_at(const std::string& level) const {
  for (const auto& [name, b] : bytes) {
    if (name == level) return b;
  }
  return 0;
}

// Adds `from`'s named values into `into`, keeping `into`'s order and appending new names.
static void add_named(std::vector<std::pair<std::string, double>>& into,
                      const std::vector<std::pair<std::string, double>>& from) {
  for (const auto& [name, v] : from) {
    // Captured by an init-capture: clang before 16 cannot capture a structured binding.
    auto it = std::find_if(into.begin(), into.end(), [&n = name](const auto& e) { return e.first == n; });
    if (it == into.end()) {
      into.emplace_back(name, v);
    } else {
      it->second += v;
    }
  }
}

LayerEvaluation NetworkEvaluation::totals() const {
  LayerEvaluation t;
  t.name = "total";
  t.kind = "network";
  for (const LayerEvaluation& l : layers) {
    t.macs += l.macs;
    t.cycles += l.cycles;
    t.seconds += l.seconds;
    add_named(t.energy_pj, l.energy_pj);
    add_named(t.bytes, l.bytes);
  }
  const double capacity = static_cast<double>(peak_macs_per_cycle) * static_cast<double>(t.cycles);
  t.utilization = capacity > 0 ? static_cast<double>(t.macs) / capacity : 0.0;
  return t;
}

double NetworkEvaluation::seconds() const {
  double s = 0;
  for (const LayerEvaluation& l : layers) s += l.seconds;
  return s;
}

double NetworkEvaluation::energy_pj() const {
  double e = 0;
  for (const LayerEvaluation& l : layers) e += l.energy_total_pj();
  return e;
}

namespace {

double as_double(int64_t v) { return static_cast<double>(v); }

// Systolic: both fidelities produce a NetworkResult with the same layer records.
void add_systolic_layers(const NetworkResult& result, const SystolicConfig& c, NetworkEvaluation& out) {
  const double ifmap_bytes = c.ifmap_bits / 8.0, filter_bytes = c.filter_bits / 8.0, ofmap_bytes = c.ofmap_bits / 8.0;
  for (const LayerResult& r : result.layers) {
    LayerEvaluation e;
    e.name = r.name;
    e.kind = r.kind;
    e.macs = r.macs;
    e.cycles = r.cycles_total;
    e.seconds = as_double(r.cycles_total) / c.clock_hz;
    e.utilization = r.utilization(c.rows * c.cols);
    e.energy_pj = {{"mac", r.energy.mac_pj},
                   {"sram_ifmap", r.energy.sram_ifmap_pj},
                   {"sram_filter", r.energy.sram_filter_pj},
                   {"sram_ofmap", r.energy.sram_ofmap_pj},
                   {"dram", r.energy.dram_pj}};
    // Array-side SRAM traffic plus the buffers' DRAM-side fills and drains.
    const double sram = as_double(r.sram.ifmap_reads + r.ifmap_fill_writes) * ifmap_bytes +
                        as_double(r.sram.filter_reads + r.filter_fill_writes) * filter_bytes +
                        as_double(r.sram.ofmap_reads + r.sram.ofmap_writes + r.ofmap_fill_writes +
                                  r.ofmap_drain_reads) * ofmap_bytes;
    e.bytes = {{"sram", sram}, {"dram", as_double(r.dram_read_bytes + r.dram_write_bytes)}};
    out.layers.push_back(std::move(e));
  }
}

void add_hierarchy_layers(const std::vector<LayerMapping>& layers, const HierarchyConfig& h, NetworkEvaluation& out) {
  for (const LayerMapping& lm : layers) {
    const Cost& c = lm.result.cost;
    LayerEvaluation e;
    e.name = lm.layer.name;
    e.kind = lm.layer.kind_name();
    e.macs = c.macs;
    e.cycles = c.cycles;
    e.seconds = as_double(c.cycles) / h.clock_hz;
    e.utilization = c.utilization;
    e.energy_pj.emplace_back("mac", c.mac_pj);
    double network_pj = 0, leakage_pj = 0;
    // Innermost first, the off-chip level (levels[0]) last and always called "dram".
    for (int i = c.num_levels - 1; i >= 0; --i) {
      const LevelCost& lc = c.levels[i];
      const std::string name = i == 0 ? "dram" : h.levels[i].name;
      e.energy_pj.emplace_back(name, lc.access_pj);
      e.bytes.emplace_back(name, as_double(lc.read_bytes + lc.write_bytes));
      network_pj += lc.network_pj;
      leakage_pj += lc.leakage_pj;
    }
    e.energy_pj.emplace_back("network", network_pj);
    e.energy_pj.emplace_back("leakage", leakage_pj);
    out.layers.push_back(std::move(e));
  }
}

// GPU: the cycle model and the analytic model both give statistics and priced energy.
void add_gpu_layer(const Layer& layer, const simt::GpuStats& s, const simt::GpuEnergy& en,
                   const simt::GpuConfig& g, NetworkEvaluation& out) {
  LayerEvaluation e;
  e.name = layer.name;
  e.kind = layer.kind_name();
  e.macs = layer.macs();
  e.cycles = s.cycles;
  e.seconds = as_double(s.cycles) / g.clock_hz;
  const double capacity = static_cast<double>(out.peak_macs_per_cycle) * as_double(s.cycles);
  e.utilization = capacity > 0 ? as_double(e.macs) / capacity : 0.0;
  e.energy_pj = {{"instruction_overhead", en.instruction_overhead_pj},
                 {"int", en.int_pj},
                 {"fp32", en.fp32_pj},
                 {"fp16", en.fp16_pj},
                 {"fp64", en.fp64_pj},
                 {"sfu", en.sfu_pj},
                 {"tensor", en.tensor_pj},
                 {"shared", en.shared_pj},
                 {"l1", en.l1_pj},
                 {"l2", en.l2_pj},
                 {"dram", en.dram_pj},
                 {"static", en.static_pj}};
  const double shared_bytes = as_double(s.shared_wavefronts) * g.shared_banks * g.shared_bank_bytes;
  e.bytes = {{"l1_shared", as_double(s.l1_sector_accesses) * g.l1.sector_bytes + shared_bytes},
             {"l2", as_double(s.l2_sector_accesses) * g.l2_sector_bytes},
             {"dram", as_double(s.dram_read_bytes + s.dram_write_bytes)}};
  out.layers.push_back(std::move(e));
}

int64_t gpu_peak_macs_per_cycle(const simt::GpuConfig& g, simt::GpuPrecision p) {
  const double flops = p == simt::GpuPrecision::fp16 ? g.peak_tensor_flops(simt::TensorPrecision::f16_f32)
                                                     : g.peak_fp32_flops();
  return std::llround(flops / 2.0 / g.clock_hz);
}

}  // namespace

namespace {

NetworkEvaluation evaluation_header(const Architecture& arch, double clock_hz, int64_t peak_macs_per_cycle, const Network& network,
                                    Fidelity fidelity) {
  NetworkEvaluation out;
  out.arch_name = arch.name();
  out.arch_kind = arch.kind_name();
  out.arch_file = arch.source_file();
  out.clock_hz = clock_hz;
  out.peak_macs_per_cycle = peak_macs_per_cycle;
  out.workload_name = network.name;
  out.workload_file = network.source_file;
  out.fidelity = fidelity;
  out.roofs = roofs_of(arch);
  return out;
}

}  // namespace

NetworkEvaluation systolic_evaluation(const NetworkResult& result, const SystolicConfig& c, const Network& network,
                                      Fidelity fidelity) {
  NetworkEvaluation out =
      evaluation_header(Architecture{c}, c.clock_hz, c.rows * c.cols, network, fidelity);
  add_systolic_layers(result, c, out);
  return out;
}

NetworkEvaluation hierarchy_evaluation(const std::vector<LayerMapping>& layers, const HierarchyConfig& h,
                                       const Network& network) {
  // The cost model is the hierarchy's only model.
  NetworkEvaluation out = evaluation_header(Architecture{h}, h.clock_hz, h.total_pes(),
                                            network, Fidelity::analytic);
  add_hierarchy_layers(layers, h, out);
  return out;
}

NetworkEvaluation gpu_evaluation(const std::vector<simt::GpuLayerRun>& runs, const simt::GpuConfig& g,
                                 simt::GpuPrecision precision, const Network& network) {
  NetworkEvaluation out = evaluation_header(Architecture{g}, g.clock_hz,
                                            gpu_peak_macs_per_cycle(g, precision), network, Fidelity::cycle);
  for (const simt::GpuLayerRun& run : runs) add_gpu_layer(*run.layer, run.stats, run.energy, g, out);
  return out;
}

NetworkEvaluation evaluate_network(const Architecture& arch, const Network& network, Fidelity fidelity,
                                   const EvaluationOptions& options) {
  if (arch.is_gpu()) {
    const simt::GpuConfig& g = arch.gpu();
    const simt::GpuPrecision precision =
        options.gpu_precision == "fp32" ? simt::GpuPrecision::fp32 : simt::GpuPrecision::fp16;
    if (fidelity == Fidelity::cycle) return gpu_evaluation(simt::run_network_on_gpu(network, g, precision), g, precision, network);
    NetworkEvaluation out = evaluation_header(arch, g.clock_hz,
                                              gpu_peak_macs_per_cycle(g, precision), network, Fidelity::analytic);
    for (const simt::GpuLayerEstimate& est : simt::estimate_network_on_gpu(network, g, precision)) {
      add_gpu_layer(*est.layer, est.stats, est.energy, g, out);
    }
    return out;
  }
  if (arch.is_hierarchy()) {
    const HierarchyConfig& h = arch.hierarchy();
    SearchOptions search;
    search.seed = options.seed;
    search.threads = 1;
    const std::string dataflow =
        !options.dataflow.empty() ? options.dataflow : (h.dataflow.empty() ? "none" : h.dataflow);
    return hierarchy_evaluation(map_network(network, h, dataflow, search, {}), h, network);
  }
  const SystolicConfig& c = arch.systolic();
  const EnergyTable energy = EnergyTable::load(c.energy_table);
  const NetworkResult result = fidelity == Fidelity::cycle ? simulate_network(c, network, energy, {})
                                                           : estimate_network(c, network, energy);
  return systolic_evaluation(result, c, network, fidelity);
}

namespace {

Json named_values_json(const std::vector<std::pair<std::string, double>>& values) {
  Json j = Json::object();
  for (const auto& [name, v] : values) j[name] = v;
  return j;
}

Json layer_json(const LayerEvaluation& l, const Roofs& roofs) {
  Json energy = named_values_json(l.energy_pj);
  energy["total"] = l.energy_total_pj();
  const RooflinePlacement p = roofline_placement(l.flops(), l.bytes_at("dram"), l.seconds, roofs);
  return {{"name", l.name},
          {"kind", l.kind},
          {"macs", l.macs},
          {"flops", l.flops()},
          {"cycles", l.cycles},
          {"seconds", l.seconds},
          {"utilization", l.utilization},
          {"energy_pj", energy},
          {"bytes", named_values_json(l.bytes)},
          {"roofline",
           {{"intensity_flops_per_byte", std::isfinite(p.intensity_flops_per_byte) ? Json(p.intensity_flops_per_byte)
                                                                                   : Json(nullptr)},
            {"achieved_flops_per_second", p.achieved_flops_per_second},
            {"attainable_flops_per_second", p.attainable_flops_per_second},
            {"bound", p.bound}}}};
}

}  // namespace

Json evaluation_to_json(const NetworkEvaluation& e) {
  Json components = Json::array(), levels = Json::array(), layers = Json::array();
  const LayerEvaluation totals = e.totals();
  for (const auto& [name, pj] : totals.energy_pj) components.push_back(name);
  for (const auto& [name, b] : totals.bytes) levels.push_back(name);
  for (const LayerEvaluation& l : e.layers) layers.push_back(layer_json(l, e.roofs));
  return {{"fidelity", name_of(e.fidelity)},
          {"arch", {{"name", e.arch_name}, {"kind", e.arch_kind}, {"file", e.arch_file}}},
          {"workload", {{"name", e.workload_name}, {"file", e.workload_file}}},
          {"clock_hz", e.clock_hz},
          {"peak_macs_per_cycle", e.peak_macs_per_cycle},
          {"roofline", roofs_to_json(e.roofs)},
          {"energy_components", components},
          {"memory_levels", levels},
          {"layers", layers},
          {"totals", layer_json(totals, e.roofs)}};
}

}  // namespace loom
