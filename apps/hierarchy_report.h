// Reports for mapped (analytic) runs on a storage hierarchy: the per-layer records of
// `loom run` on a "kind": "hierarchy" architecture (report.json, layers.csv, the terminal
// table; schema: docs/report-schema.md, "Hierarchy runs") and the cost tables and
// map_report.json of `loom map` (docs/mapping.md). Counts come from the cost model's
// Cost (mapper/cost_model.h); nothing is recomputed here except sums and ratios.
#pragma once

#include <string>
#include <vector>

#include "arch/hierarchy/hierarchy_config.h"
#include "mapper/cost_model.h"
#include "mapper/network_mapper.h"
#include "mapper/search.h"
#include "sim/json_reader.h"
#include "workloads/network.h"

namespace loom {

// A Cost's counts, summable over layers (network totals).
struct CostTotals {
  struct Level {
    std::array<OperandCounts, kNumOperands> ops{};
    int64_t read_bytes = 0, write_bytes = 0, bandwidth_cycles = 0, network_deliveries = 0;
    double access_pj = 0, network_pj = 0, leakage_pj = 0;
  };
  int64_t macs = 0, cycles = 0, compute_cycles = 0, folds = 0;
  int bottleneck = -1;  // a layer's: level index, -1 compute; meaningless in sums
  std::vector<Level> levels;
  double mac_pj = 0, energy_pj = 0;

  static CostTotals of(const Cost& c);
  void add(const CostTotals& o);
  double network_pj() const;
  double leakage_pj() const;
};

// What a mapped run was asked for (the `mapper` block of report.json and map_report.json).
struct MapperSettings {
  std::string dataflow;  // as used ("none" when unconstrained)
  SearchOptions options;
};

// Cycles, utilization, per-level counts and bytes, the DRAM summary, the energy
// breakdown and EDP: the cost part of a layer record.
Json cost_to_json(const CostTotals& c, const HierarchyConfig& arch);
// The problem's loop bounds by their printed names, groups, strides and dilations.
Json problem_to_json(const Problem& p);
// Architecture summary for report headers.
Json hierarchy_arch_json(const HierarchyConfig& arch, const std::string& dataflow);
Json mapper_settings_json(const MapperSettings& s);

// Human-readable cost tables of one mapping (`loom map`): accesses per level and
// operand, bytes and bandwidth per level, cycles, utilization, energy with shares, EDP.
std::string format_cost_tables(const Cost& cost, const HierarchyConfig& arch);

// `loom run` on a hierarchy.
struct HierarchyRunContext {
  const HierarchyConfig* arch = nullptr;
  const Network* network = nullptr;
  MapperSettings mapper;
};
Json hierarchy_report_to_json(const std::vector<LayerMapping>& layers, const HierarchyRunContext& ctx);
std::string hierarchy_layers_to_csv(const std::vector<LayerMapping>& layers, const HierarchyConfig& arch);
std::string format_hierarchy_table(const std::vector<LayerMapping>& layers, const HierarchyConfig& arch);

// Level names become JSON keys and CSV columns next to "mac", "network", "leakage" and
// "total"; InputError (the architecture file, levels[i].name) when one collides.
void check_level_names_for_reports(const HierarchyConfig& arch);

}  // namespace loom
