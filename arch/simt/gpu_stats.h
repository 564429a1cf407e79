// What one kernel launch on the SIMT timing model counted. Filled by the timing model
// (arch/simt/gpu_engine.*), priced by gpu_energy.*, printed and written by apps/gpu_*.
#pragma once

#include <array>
#include <cstdint>

#include "arch/simt/warp_instruction.h"

namespace loom::simt {

// Why a sub-core issued nothing in a cycle, charged to the best-placed warp (the one the
// scheduler would have picked): the classic GPGPU-Sim / Nsight stall categories.
enum class StallReason : uint8_t {
  issued,          // not a stall: an instruction issued
  no_warp,         // no resident warp on this sub-core (tail effect, low occupancy)
  fetch,           // instruction buffer empty
  scoreboard,      // waiting on a register written by an earlier, unfinished instruction
  memory_pipe,     // LD/ST (MIO) queue full, MSHRs exhausted, shared bank conflicts
  execution_unit,  // target functional unit (or tensor core) busy
  barrier,         // waiting at bar.sync
  register_bank,   // operand collection delayed by register-bank conflicts
  count
};
const char* stall_reason_name(StallReason reason);

struct GpuStats {
  int64_t cycles = 0;
  int64_t ctas = 0;
  int resident_ctas_per_sm = 0;           // occupancy the CTA scheduler achieved
  const char* occupancy_limiter = "";     // "threads", "warps", "registers", "shared", "ctas"
  int64_t shared_carveout_bytes = 0;      // the launch's shared-memory carve-out (occupancy.h)
  int64_t l1_bytes = 0;                   // the L1 that carve-out leaves

  int64_t warp_instructions = 0;
  int64_t thread_instructions = 0;        // sum of active lanes
  std::array<int64_t, size_t(EnergyClass::count)> warp_instructions_by_class{};
  std::array<int64_t, size_t(EnergyClass::count)> thread_instructions_by_class{};
  int64_t flops = 0;

  // Sub-core cycles by outcome (sums to cycles * sms * subcores_per_sm).
  std::array<int64_t, size_t(StallReason::count)> subcore_cycles{};

  // Memory system.
  int64_t global_load_requests = 0, global_store_requests = 0;  // warp-level instructions
  int64_t l1_sector_accesses = 0, l1_sector_hits = 0;
  int64_t l2_sector_accesses = 0, l2_sector_hits = 0;
  int64_t dram_read_bytes = 0, dram_write_bytes = 0;
  int64_t shared_requests = 0;            // warp-level shared-memory instructions
  int64_t shared_wavefronts = 0;          // bank-conflict-free passes needed (>= requests)
  int64_t register_bank_conflicts = 0;    // extra operand-collection cycles

  // Tensor cores.
  int64_t tensor_mma_instructions = 0;    // warp-level MMAs (e.g. 16x16x16)
  int64_t tensor_core_ops = 0;            // 4x4x4 operations executed
  int64_t tensor_busy_cycles = 0;         // sum over tensor cores of cycles busy

  int64_t shared_bank_conflicts() const { return shared_wavefronts - shared_requests; }
};

}  // namespace loom::simt
