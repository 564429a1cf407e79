#include "arch/systolic/systolic_result.h"

#include <algorithm>

namespace loom {

EnergyBreakdown& EnergyBreakdown::operator+=(const EnergyBreakdown& o) {
  mac_pj += o.mac_pj;
  sram_ifmap_pj += o.sram_ifmap_pj;
  sram_filter_pj += o.sram_filter_pj;
  sram_ofmap_pj += o.sram_ofmap_pj;
  dram_pj += o.dram_pj;
  return *this;
}

double LayerResult::utilization(int64_t pes) const {
  return cycles_total ? static_cast<double>(macs) / (static_cast<double>(pes) * cycles_total) : 0.0;
}

double LayerResult::mapping_efficiency(int64_t pes) const {
  return steady_state_cycles ? static_cast<double>(macs) / (static_cast<double>(pes) * steady_state_cycles) : 0.0;
}

double LayerResult::dram_avg_bytes_per_cycle() const {
  return cycles_total ? static_cast<double>(dram_read_bytes + dram_write_bytes) / cycles_total : 0.0;
}

LayerResult NetworkResult::totals() const {
  LayerResult t;
  t.name = "total";
  t.kind = "network";
  for (const LayerResult& l : layers) {
    t.macs += l.macs;
    t.folds += l.folds;
    t.cycles_total += l.cycles_total;
    t.cycles_compute += l.cycles_compute;
    t.cycles_stall += l.cycles_stall;
    t.steady_state_cycles += l.steady_state_cycles;
    t.sram += l.sram;
    t.ifmap_fill_writes += l.ifmap_fill_writes;
    t.filter_fill_writes += l.filter_fill_writes;
    t.ofmap_fill_writes += l.ofmap_fill_writes;
    t.ofmap_drain_reads += l.ofmap_drain_reads;
    t.dram_read_bytes += l.dram_read_bytes;
    t.dram_write_bytes += l.dram_write_bytes;
    t.dram_peak_bytes_per_cycle = std::max(t.dram_peak_bytes_per_cycle, l.dram_peak_bytes_per_cycle);
    t.energy += l.energy;
  }
  return t;
}

}  // namespace loom
