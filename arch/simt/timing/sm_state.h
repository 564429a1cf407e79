// What one SM holds during a launch: its hardware warp slots, its sub-cores, its resident
// CTAs (and when each retires) and its memory pipeline (MIO queue, L1, shared memory).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "arch/simt/timing/sm_memory_pipeline.h"
#include "arch/simt/timing/sub_core.h"
#include "arch/simt/timing/timing_constants.h"
#include "arch/simt/timing/warp_slot.h"
#include "sim/huge_page_arena.h"

namespace loom::simt {

struct CtaContext {
  bool live = false;
  int source_slot = -1;
  int64_t id = 0;
  int warps_live = 0;           // warps not yet finished
  int64_t retire_at = kNever;   // once every warp finished: when everything they issued is done
  HugePageVector<int> warp_slots;  // its warps' slots in SmState::warps, by warp index
};

struct SmState {
  HugePageVector<WarpSlot> warps;  // hardware warp slots; slot s runs on sub-core s % subcores
  HugePageVector<WarpPipeline> pipelines;  // by warp slot
  HugePageVector<SubCore> subcores;
  // By sub-core: when to evaluate it next (kNever while it has no warps, or nothing it
  // waits on can change). Kept apart from the sub-cores, so that finding the SM's next
  // busy cycle reads one cache line rather than every sub-core.
  HugePageVector<int64_t> next_eval;
  HugePageVector<CtaContext> ctas;  // occupancy-limit many
  SmMemoryPipeline memory;
  int live_ctas = 0;
  int64_t next_retire = kNever;  // earliest retire_at of its CTAs

  // The next cycle this SM has something to do: a CTA to retire or a sub-core to evaluate.
  // kSubcores > 0: the SM has that many sub-cores, and the loop is unrolled.
  template <size_t kSubcores = 0>
  int64_t next_visit() const {
    int64_t t = next_retire;
    if constexpr (kSubcores > 0) {
      for (size_t i = 0; i < kSubcores; ++i) t = std::min(t, next_eval[i]);
    } else {
      for (const int64_t e : next_eval) t = std::min(t, e);
    }
    return t;
  }
  // Something sub-core `i` waits on may change at cycle t.
  void wake(int i, int64_t t) {
    int64_t& e = next_eval[static_cast<size_t>(i)];
    if (t < e) e = t;
  }
};

}  // namespace loom::simt
