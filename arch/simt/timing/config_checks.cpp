#include "arch/simt/timing/config_checks.h"

#include <string>

#include "arch/simt/timing/timing_constants.h"
#include "sim/error.h"

namespace loom::simt {

namespace {

struct Checker {
  const GpuConfig& c;
  void at_least(const char* field, double value, double min) const {
    if (value < min)
      throw InputError(c.source_file, field, "must be at least " + std::to_string(min) + " (got " + std::to_string(value) + ")");
  }
  void within(const char* field, double value, double min, double max) const {
    if (value < min || value > max)
      throw InputError(c.source_file, field,
                       "must be between " + std::to_string(min) + " and " + std::to_string(max) + " (got " +
                           std::to_string(value) + ")");
  }
  void positive(const char* field, double value) const {
    if (!(value > 0)) throw InputError(c.source_file, field, "must be positive (got " + std::to_string(value) + ")");
  }
  void unit(const std::string& name, const FunctionalUnitConfig& u) const {
    at_least((name + ".lanes").c_str(), u.lanes, 1);
    at_least((name + ".latency").c_str(), u.latency, 1);
    at_least((name + ".initiation_interval").c_str(), u.initiation_interval, 1);
  }
  void sectors(const char* field, int line_bytes, int sector_bytes) const {
    if (sector_bytes < 1 || line_bytes < sector_bytes || line_bytes % sector_bytes != 0 ||
        line_bytes / sector_bytes > kMaxSectorsPerLine)
      throw InputError(c.source_file, field,
                       "a line must be 1 to " + std::to_string(kMaxSectorsPerLine) + " whole sectors (line " +
                           std::to_string(line_bytes) + " bytes, sector " + std::to_string(sector_bytes) + " bytes)");
  }
};

}  // namespace

void check_timing_config(const GpuConfig& c) {
  const Checker k{c};
  k.at_least("sms", c.sms, 1);
  k.at_least("subcores_per_sm", c.subcores_per_sm, 1);
  if (c.warp_size != 32) throw InputError(c.source_file, "warp_size", "must be 32 (lane masks are 32 bits)");
  k.at_least("max_warps_per_sm", c.max_warps_per_sm, 1);
  k.at_least("max_threads_per_sm", c.max_threads_per_sm, c.warp_size);
  k.at_least("max_ctas_per_sm", c.max_ctas_per_sm, 1);
  k.at_least("registers_per_sm", c.registers_per_sm, 1);
  k.within("ibuffer_entries", c.ibuffer_entries, 1, kMaxIbufferEntries);
  k.at_least("fetch_latency", c.fetch_latency, 0);
  k.within("register_banks", c.register_banks, 1, kMaxRegisterBanks);
  k.at_least("register_bank_ports", c.register_bank_ports, 1);
  k.unit("int_alu", c.int_alu);
  k.unit("fp32", c.fp32);
  k.unit("fp16", c.fp16);
  k.unit("fp64", c.fp64);
  k.unit("sfu", c.sfu);
  k.unit("ldst", c.ldst);
  k.at_least("branch_latency", c.branch_latency, 1);
  k.at_least("tensor.per_subcore", c.tensor.per_subcore, 1);
  k.at_least("tensor.m", c.tensor.m, 1);
  k.at_least("tensor.n", c.tensor.n, 1);
  k.at_least("tensor.k", c.tensor.k, 1);
  k.at_least("tensor.pipeline_latency", c.tensor.pipeline_latency, 1);
  k.at_least("tensor.step_overhead", c.tensor.step_overhead, 0);
  k.within("shared_banks", c.shared_banks, 1, kMaxSharedBanks);
  k.at_least("shared_bank_bytes", c.shared_bank_bytes, 1);
  k.at_least("shared_latency", c.shared_latency, 1);
  k.at_least("shared_bytes", static_cast<double>(c.shared_bytes), 0);
  k.at_least("l1.bytes", static_cast<double>(c.l1.bytes), 0);
  k.sectors("l1.sector_bytes", c.l1.line_bytes, c.l1.sector_bytes);
  k.within("l1.associativity", c.l1.associativity, 1, kMaxCacheAssociativity);
  k.at_least("l1.hit_latency", c.l1.hit_latency, 1);
  k.at_least("l1.mshrs", c.l1.mshrs, 1);
  k.at_least("noc_latency", c.noc_latency, 0);
  k.positive("noc_bytes_per_cycle_per_sm", c.noc_bytes_per_cycle_per_sm);
  k.at_least("l2_bytes", static_cast<double>(c.l2_bytes), 0);
  k.at_least("l2_slices", c.l2_slices, 1);
  k.sectors("l2_sector_bytes", c.l2_line_bytes, c.l2_sector_bytes);
  if (c.l1.line_bytes / c.l2_line_bytes > kMaxSectorsPerLine)
    throw InputError(c.source_file, "l2_line_bytes", "must be at least l1.line_bytes / " + std::to_string(kMaxSectorsPerLine));
  k.within("l2_associativity", c.l2_associativity, 1, kMaxCacheAssociativity);
  k.at_least("l2_hit_latency", c.l2_hit_latency, 1);
  k.positive("l2_bytes_per_cycle_per_slice", c.l2_bytes_per_cycle_per_slice);
  k.at_least("dram_channels", c.dram_channels, 1);
  k.positive("clock_hz", c.clock_hz);
  k.positive("dram_bytes_per_second", c.dram_bytes_per_second);
  k.at_least("dram_latency", c.dram_latency, 0);
}

}  // namespace loom::simt
