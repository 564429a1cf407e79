// What one simulation of a layer or network on a systolic array produces. Counts and
// cycles are integers; derived ratios are computed from them. The report writers turn
// these into report.json / layers.csv (schema: docs/report-schema.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/systolic/fold_plan.h"
#include "workloads/layer.h"

namespace loom {

struct EnergyBreakdown {
  double mac_pj = 0, sram_ifmap_pj = 0, sram_filter_pj = 0, sram_ofmap_pj = 0, dram_pj = 0;
  double total_pj() const { return mac_pj + sram_ifmap_pj + sram_filter_pj + sram_ofmap_pj + dram_pj; }
  EnergyBreakdown& operator+=(const EnergyBreakdown& o);
};

struct LayerResult {
  std::string name;
  std::string kind;
  GemmView gemm;
  int64_t macs = 0;
  int64_t folds = 0;
  int64_t cycles_total = 0, cycles_compute = 0, cycles_stall = 0;
  int64_t steady_state_cycles = 0;  // sum over folds of the streamed length T (no fill/drain)
  SramAccesses sram;          // array-side accesses (what the PE-level model counts)
  // DRAM-side accesses of the buffers, in words: fills from DRAM are buffer writes, the
  // write-back of outputs reads the ofmap buffer, spilled partial sums come back as writes.
  int64_t ifmap_fill_writes = 0, filter_fill_writes = 0, ofmap_fill_writes = 0, ofmap_drain_reads = 0;
  int64_t dram_read_bytes = 0, dram_write_bytes = 0;
  double dram_peak_bytes_per_cycle = 0;
  EnergyBreakdown energy;

  // Network totals sum many layers and so have no single GEMM shape.
  bool has_gemm_shape() const { return kind != "network"; }
  double utilization(int64_t pes) const;         // MACs / (PEs x total cycles)
  double mapping_efficiency(int64_t pes) const;  // MACs / (PEs x steady-state cycles)
  double dram_avg_bytes_per_cycle() const;
};

struct NetworkResult {
  std::string arch_name, workload_name;
  int64_t array_pes = 0;
  double clock_hz = 0;
  std::vector<LayerResult> layers;

  LayerResult totals() const;  // sums; peak bandwidth is the maximum over layers
};

}  // namespace loom
