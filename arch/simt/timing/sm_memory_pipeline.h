// One SM's side of a memory instruction, from dispatch to the cycle its data is usable:
// the MIO queue, the coalescer and L1 for global/local accesses, the banks for shared
// memory, and the hand-off of L1 misses and stores to L2Subsystem.
//
//  * global/local load: one L1 tag lookup per line, one line per cycle; a hit is usable
//    l1.hit_latency after its lookup; a miss takes an MSHR (waiting, and holding up the
//    pipeline, while none is free) and is usable when L2Subsystem returns it.
//  * global load with .cg (StaticInstruction::bypass_l1): like a load that misses every
//    sector, except that nothing is installed in L1 (so it never hits there either).
//  * global/local store: one cycle per line; written through to L2, no L1 allocation;
//    nobody waits for it except the CTA's retirement.
//  * shared: as many cycles as wavefronts; usable shared_latency + wavefronts - 1 after its
//    service starts.
//  * param/const: kParamLoadLatency after dispatch, outside the MIO (see timing_constants.h).
//  * An instruction of no state space (generic addressing) is treated as global.
#pragma once

#include <cstdint>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/timing/coalescer.h"
#include "arch/simt/timing/l1_cache.h"
#include "arch/simt/timing/l2_subsystem.h"
#include "arch/simt/timing/mio_queue.h"

namespace loom::simt {

struct MemoryTiming {
  int64_t ready = 0;  // destination registers usable
  int64_t done = 0;   // every effect complete (stores written into L2)
};

inline bool uses_mio(const StaticInstruction& inst) {
  return inst.space != MemorySpace::param && inst.space != MemorySpace::constant;
}

class SmMemoryPipeline {
 public:
  void configure(const GpuConfig& config, int sm, L2Subsystem* beyond_l1, CoalescedAccess* scratch);

  bool mio_full_at(int64_t c) const { return mio_.full_at(c); }
  int64_t mio_space_at() const { return mio_.space_at(); }

  MemoryTiming execute(const StaticInstruction& inst, const ExecutedInstruction& executed, int64_t dispatch,
                       GpuStats& stats);
  // The L1's SectoredTagArray::rebase_times.
  void rebase_times(int64_t now) { l1_.rebase_times(now); }

 private:
  MemoryTiming load(const ExecutedInstruction& executed, bool bypass_l1, int64_t dispatch, GpuStats& stats);
  // Requests `sectors` of `line` from L2 at cycle t, holding an MSHR until they are back
  // (t moves on to when one is free); returns when they are usable. `l2_probed`: as
  // L2Subsystem::load's `probed`.
  int64_t fetch_from_l2(uint64_t line, uint32_t sectors, int64_t& t, GpuStats& stats,
                        const L2Subsystem::Probe* l2_probed = nullptr);
  MemoryTiming store(const ExecutedInstruction& executed, int64_t dispatch, GpuStats& stats);
  MemoryTiming shared(const ExecutedInstruction& executed, int64_t dispatch, GpuStats& stats);

  int sm_ = 0;
  L2Subsystem* beyond_l1_ = nullptr;
  CoalescedAccess* coalesced_ = nullptr;  // scratch shared by all SMs (they run one at a time)
  MioQueue mio_;
  L1Cache l1_;
  int line_bytes_ = 128, sector_bytes_ = 32, hit_latency_ = 1;
  int shared_banks_ = 32, shared_bank_bytes_ = 4, shared_latency_ = 1;
  int shared_word_shift_ = 2;  // log2(shared_bank_bytes_), or -1 unless both bank sizes are powers of two
};

}  // namespace loom::simt
