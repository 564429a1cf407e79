#include "arch/systolic/systolic_energy.h"

namespace loom {

EnergyBreakdown price_layer(const LayerResult& r, const SystolicConfig& c, const EnergyTable& t) {
  auto buffer_pj = [&](int64_t accesses, int64_t total_bytes, int bits) {
    return static_cast<double>(accesses) * t.sram_access_pj(c.sram.working_bytes(total_bytes), bits);
  };
  EnergyBreakdown e;
  e.mac_pj = static_cast<double>(r.macs) * t.mac_pj(c.data_type);
  e.sram_ifmap_pj = buffer_pj(r.sram.ifmap_reads + r.ifmap_fill_writes, c.sram.ifmap_bytes, c.ifmap_bits);
  e.sram_filter_pj = buffer_pj(r.sram.filter_reads + r.filter_fill_writes, c.sram.filter_bytes, c.filter_bits);
  e.sram_ofmap_pj = buffer_pj(r.sram.ofmap_reads + r.sram.ofmap_writes + r.ofmap_fill_writes + r.ofmap_drain_reads,
                              c.sram.ofmap_bytes, c.ofmap_bits);
  e.dram_pj = static_cast<double>(r.dram_read_bytes + r.dram_write_bytes) * t.dram_pj_per_byte(c.dram.technology);
  return e;
}

}  // namespace loom
