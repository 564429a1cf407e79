// Energy of one kernel launch on the SIMT model: the event counts in GpuStats priced by a
// per-instruction energy table (configs/energy/simt_*.json, schema "loom-simt-energy/1",
// docs/energy-tables.md, section "SIMT energy tables").
//
// The rule (W. Dally's point that an instruction's fetch, decode and operand fetch cost far
// more than a simple operation, so wide instructions such as HMMA amortise it):
//
//   instruction_overhead = (sum over classes of thread_instructions_by_class) x overhead_pj
//                          -- every thread instruction, whatever its class, pays it once;
//   int, fp32, fp16, fp64, sfu = thread_instructions_by_class[class] x that class's op pJ
//                          -- memory, control and tensor-MMA instructions pay only the overhead;
//   tensor   = tensor_core_ops x (m*n*k of the config's tensor-core op) x (tensor pJ / tensor FMAs)
//                          -- one energy per multiply-accumulate, whatever the precision;
//   shared   = shared_wavefronts x shared_banks x shared_bank_bytes x shared pJ/byte
//                          -- a wavefront is priced as a full pass over every bank;
//   l1, l2   = *_sector_accesses x sector_bytes x pJ/byte;
//   dram     = (dram_read_bytes + dram_write_bytes) x 8 x dram_pj_per_bit[dram_technology];
//   static   = static_w_per_sm x sms x cycles / clock_hz (0 unless the table gives a figure).
//
// On-chip energies are scaled from the table's node to the config's energy node
// (energy_technology_nm, else technology_nm) by TechnologyScaling; DRAM and static power are
// not scaled (they belong to the memory device and to the given part, not to the logic node).
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "sim/energy_table.h"

namespace loom::simt {

// Energies in pJ at `technology_nm`. Per-byte figures are the file's per-access energy
// divided by its access width (access energy is linear in width, as in EnergyTable).
struct SimtEnergyTable {
  std::string name, file;
  double technology_nm = 0;
  double scale_factor = 1;  // product of the technology-scaling factors applied so far
  double instruction_overhead_pj = 0;  // per thread instruction
  double int_pj = 0, fp32_pj = 0, fp16_pj = 0, fp64_pj = 0, sfu_pj = 0;  // per thread instruction
  double tensor_pj = 0;   // one tensor instruction of `tensor_fmas` multiply-accumulates
  int tensor_fmas = 1;
  double shared_pj_per_byte = 0, l1_pj_per_byte = 0, l2_pj_per_byte = 0;
  std::map<std::string, double> dram_pj_per_bit;  // by technology; never scaled
  double static_w_per_sm = 0;                      // never scaled

  double tensor_pj_per_fma() const { return tensor_pj / tensor_fmas; }
  // InputError naming the table and dram_pj_per_bit.<technology> when it is missing.
  double dram_pj_per_byte(const std::string& technology) const;
  // On-chip energies times rule.factor(technology_nm, target_nm); DRAM and static unchanged.
  SimtEnergyTable scaled_to(double target_nm, const TechnologyScaling& rule) const;
};

SimtEnergyTable load_simt_energy_table(const std::string& path);
SimtEnergyTable parse_simt_energy_table(const nlohmann::json& doc, const std::string& file);

// Energy of one launch in pJ, by component; total_pj is their sum.
struct GpuEnergy {
  std::string table;         // the energy table's name
  double technology_nm = 0;  // node the on-chip energies were priced at
  double scale_factor = 1;   // applied to the table's on-chip energies
  double instruction_overhead_pj = 0;
  double int_pj = 0, fp32_pj = 0, fp16_pj = 0, fp64_pj = 0, sfu_pj = 0, tensor_pj = 0;
  double shared_pj = 0, l1_pj = 0, l2_pj = 0, dram_pj = 0, static_pj = 0;
  double total_pj = 0;

  nlohmann::json to_json() const;
};

// Prices `stats` with `table` scaled to the config's energy node (shipped scaling rule).
GpuEnergy price_gpu_energy(const GpuStats& stats, const GpuConfig& config, const SimtEnergyTable& table);
GpuEnergy price_gpu_energy(const GpuStats& stats, const GpuConfig& config, const SimtEnergyTable& table,
                           const TechnologyScaling& rule);

}  // namespace loom::simt
