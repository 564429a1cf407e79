// A SIMT GPU described by a configs/*.json file with "kind": "gpu" (schema in
// docs/arch-schema.md, section "gpu"). Every field a published figure or microbenchmark gave
// is cited in the config file's "sources". Cycles are core-clock cycles.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "arch/simt/warp_instruction.h"

namespace loom::simt {

enum class WarpSchedulerPolicy { gto, lrr };

// A pipelined functional unit of one sub-core: `lanes` lanes, so a 32-thread warp occupies
// it for ceil(32/lanes) * initiation_interval cycles; its result is ready `latency` cycles
// after issue.
struct FunctionalUnitConfig {
  int lanes = 16;
  int latency = 4;
  int initiation_interval = 1;
};

// Volta-style tensor cores: each performs one m x n x k (4x4x4) matrix-multiply-accumulate
// per cycle per `rate` in FP16; a warp-level MMA is decomposed into these (see
// docs/simt-model.md, "Tensor cores").
struct TensorCoreConfig {
  int per_subcore = 2;
  int m = 4, n = 4, k = 4;           // shape of one tensor-core operation
  int pipeline_latency = 4;          // cycles from a 4x4x4 op's issue to its result
  int step_overhead = 0;             // extra cycles per HMMA step (operand collection)
  // Throughput multipliers over FP16 (Turing: INT8 2x, INT4 4x, INT1 16x); 0 = unsupported.
  double rate_f16 = 1, rate_bf16 = 0, rate_tf32 = 0, rate_s8 = 0, rate_s4 = 0, rate_b1 = 0;
};

// The timing model numbers a set's ways in 16 bits (sectored_tag_array.h).
inline constexpr int kMaxCacheAssociativity = 65535;

struct CacheConfig {
  int64_t bytes = 0;
  int line_bytes = 128;
  int sector_bytes = 32;
  int associativity = 4;
  // > 0 (the L1 only): the cache keeps this many sets at every size the carve-out leaves it,
  // and its associativity follows the size (Accel-Sim's adaptive L1, which scales the ways
  // of its configured geometry); `associativity` is then that of the current size. 0: the
  // associativity is fixed and the number of sets follows the size.
  int sets = 0;
  int hit_latency = 28;   // load-to-use cycles on a hit
  int mshrs = 256;        // outstanding missed lines
};

// The L1's associativity at `bytes` of capacity: `associativity`, or, where the config
// gives `sets`, the ways that many sets of its lines make (at least 1: an L1 of 0 bytes has
// none, and the tag array makes no cache of it whatever its ways).
inline int l1_associativity_at(const CacheConfig& l1, int64_t bytes) {
  if (l1.sets <= 0) return l1.associativity;
  const int64_t ways = bytes / (int64_t{l1.line_bytes} * l1.sets);
  return static_cast<int>(ways < 1 ? 1 : ways);
}

struct GpuConfig {
  std::string name;         // e.g. "V100-SXM2-16GB"
  std::string source_file;  // where it was loaded from (errors, reports)
  double clock_hz = 1.53e9;
  double technology_nm = 12;
  int sms = 80;
  int subcores_per_sm = 4;
  int warp_size = 32;

  // Occupancy limits per SM and per CTA.
  int max_threads_per_sm = 2048;
  int max_warps_per_sm = 64;
  int max_ctas_per_sm = 32;
  int registers_per_sm = 65536;
  int max_registers_per_thread = 255;
  int max_threads_per_cta = 1024;
  int64_t max_shared_per_cta = 96 * 1024;
  int max_grid_x = 2147483647, max_grid_yz = 65535;

  // Sub-core front end and back end.
  WarpSchedulerPolicy scheduler = WarpSchedulerPolicy::gto;
  int ibuffer_entries = 2;        // decoded instructions buffered per warp
  int fetch_latency = 1;          // cycles to refill an instruction-buffer entry
  int register_banks = 2;         // per sub-core
  int register_bank_ports = 1;    // reads per bank per cycle
  FunctionalUnitConfig int_alu{16, 4, 1}, fp32{16, 4, 1}, fp16{16, 4, 1}, fp64{4, 8, 1},
      sfu{4, 21, 1}, ldst{8, 4, 1};
  int branch_latency = 4;
  TensorCoreConfig tensor;

  // L1 / shared memory (unified, per SM).
  int64_t l1_shared_bytes = 128 * 1024;  // the unified array
  int64_t shared_bytes = 96 * 1024;      // the largest carve-out for shared memory; the rest is L1
  // The shared-memory capacities the SM can be configured to, ascending, the largest being
  // shared_bytes. Empty: the carve-out is always shared_bytes. Otherwise each launch gets
  // the smallest one that holds its resident CTAs' shared memory, and the rest of the array
  // is its L1 (launch_carveout in occupancy.h).
  std::vector<int64_t> shared_carveouts;
  // Shared memory the system reserves per resident CTA (1 KiB on compute capability 8.0 and
  // later): counted for occupancy and for the carve-out, not usable by the kernel.
  int64_t shared_reserved_per_cta = 0;
  int shared_banks = 32;
  int shared_bank_bytes = 4;
  int shared_latency = 19;               // load-to-use, no conflicts
  CacheConfig l1;                        // bytes = l1_shared_bytes - shared_bytes (the smallest L1)

  // Interconnect between SMs and L2 slices.
  int noc_latency = 0;                   // one-way cycles, added to L2 and DRAM accesses
  double noc_bytes_per_cycle_per_sm = 64;

  // L2, in slices (address-interleaved by line).
  int64_t l2_bytes = 6 * 1024 * 1024;
  int l2_slices = 64;
  int l2_sector_bytes = 32;
  int l2_line_bytes = 128;
  int l2_associativity = 16;
  int l2_hit_latency = 193;              // load-to-use from an SM, L1 miss, L2 hit
  double l2_bytes_per_cycle_per_slice = 32;

  // DRAM / HBM, in channels (address-interleaved).
  int dram_channels = 32;
  double dram_bytes_per_second = 900e9;
  int dram_latency = 437;                // extra cycles beyond the L2 hit latency on a miss
  int64_t dram_bytes = int64_t(16) << 30;
  std::string dram_technology = "HBM2";  // selects the energy table's DRAM pJ/bit ("GDDR6", ...)

  // Energy pricing (arch/simt/gpu_energy.h): the SIMT energy table (resolved absolute path)
  // and the node its on-chip energies are scaled to; 0 = technology_nm. A separate node
  // because the scaling rule covers 7-130 nm only (a 4 nm part is priced at 7 nm, say).
  std::string energy_table;
  double energy_technology_nm = 0;

  // Published reference figures kept for reports (not used by the model itself).
  nlohmann::json sources;

  double dram_bytes_per_cycle() const { return dram_bytes_per_second / clock_hz; }
  int warps_per_subcore_max() const { return max_warps_per_sm / subcores_per_sm; }
  double peak_tensor_flops(TensorPrecision p) const;  // FLOP/s over the whole GPU
  double peak_fp32_flops() const;
};

// Throughput multiplier of `tensor` for an MMA of precision `p` over FP16 (0: unsupported).
double tensor_rate(const TensorCoreConfig& tensor, TensorPrecision p);

// Loads and validates a "kind": "gpu" architecture file (strict: unknown keys, missing
// required fields and impossible values raise InputError naming file and field).
GpuConfig load_gpu_config(const std::string& path);
GpuConfig parse_gpu_config(const nlohmann::json& doc, const std::string& source_name);
// The resolved config in the file's schema (resolved_config.json); reloads to the same config.
nlohmann::json gpu_config_to_json(const GpuConfig& config);

}  // namespace loom::simt
