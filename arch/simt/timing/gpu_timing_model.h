// The cycle-level SIMT GPU timing model of one kernel launch, free of SystemC (GpuEngine
// drives it). Execute at issue: each cycle, every sub-core that may issue picks a warp by
// its scheduling policy and issue rules, the functional model executes that warp's next
// instruction, and the model charges what it reports: unit occupancy and latency, register
// banks, the memory hierarchy, tensor cores. All completion cycles are known at issue, so
// each sub-core is visited only in cycles in which what it does can change, and only SMs
// with resident CTAs are visited (idle stretches cost nothing). SMs are run window by
// window (kSmWindowCycles, timing_constants.h). See sub_core.h for the scheduling and stall
// rules, sm_memory_pipeline.h and l2_subsystem.h for memory, tensor_core.h for MMAs,
// occupancy.h and cta_scheduler.h for CTAs.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/timing/coalescer.h"
#include "arch/simt/timing/cta_scheduler.h"
#include "arch/simt/timing/functional_units.h"
#include "arch/simt/timing/l2_subsystem.h"
#include "arch/simt/timing/occupancy.h"
#include "arch/simt/timing/sm_state.h"
#include "arch/simt/timing/static_facts_cache.h"
#include "arch/simt/timing/tensor_core.h"
#include "arch/simt/warp_instruction.h"
#include "sim/huge_page_arena.h"

namespace loom::simt {

class GpuTimingModel {
 public:
  // Checks the launch (InputError on a CTA that can never fit), dispatches the first CTAs.
  // `source` must outlive the launch; the model keeps its own copy of `config`.
  void begin(const GpuConfig& config, WarpInstructionSource& source);
  // Simulates the cycles before `stop`; true once the launch has finished.
  bool run_until(int64_t stop);
  // Accounting of the finished launch.
  GpuStats finish();
  // Drops a launch that failed (an exception from the source or the model).
  void abandon() { finished_ = true; }

  int64_t next_cycle() const { return now_; }
  int64_t end_cycle() const { return end_; }
  int64_t ctas_total() const { return ctas_.total(); }
  int64_t ctas_retired() const { return ctas_.retired(); }
  int64_t warp_instructions() const { return stats_.warp_instructions; }
  // SM-cycles the loop actually visited (idle stretches are skipped).
  int64_t loop_iterations() const { return iterations_; }
  // Sub-core evaluations (scheduler decisions, issuing or not) in the launch.
  int64_t evaluations() const { return evaluations_; }
  // How often the caches' time bases move (kSectorTimeRebaseCycles): tests set it shorter,
  // to check that rebasing changes nothing. Kept across launches.
  void set_rebase_period(int64_t cycles) { rebase_period_ = cycles; }
  // Times the bases moved in the launch.
  int64_t rebases() const { return rebases_; }

 private:
  struct Blocker {
    StallReason reason;  // `issued`: nothing blocks
    int64_t until;
  };

  void launch_cta(int sm, int64_t t);
  void retire_cta(int sm, int cta, int64_t t);
  void retire_due(int sm, int64_t t);
  // Runs SM `sm` through the cycles before `end` that it has something to do in.
  void run_sm(int sm, int64_t end);
  // Moves every cache's time base to now_ (SectoredTagArray::rebase_times).
  void rebase_cache_times();
  // run_sm's cycle loop; kSubcores > 0: the SM has that many sub-cores (loops unrolled).
  template <size_t kSubcores>
  void run_sm_cycles(int sm_index, SmState& sm, int64_t from, int64_t end);
  void evaluate(SubCore& sc, int64_t c);
  // What keeps a warp whose own state allows an issue from issuing: the sub-core's read
  // stage, its unit, the SM's MIO queue.
  // Inline, as prepare_next: defined in the .cpp, the only place either is used.
  inline Blocker check_resources(SmState& sm, const SubCore& sc, const ScheduledWarp& e, int64_t c) const;
  void issue(SmState& sm, SubCore& sc, int slot, WarpSlot& w, int64_t c);
  void count(const StaticInstruction& inst);
  // Caches warp w's next instruction `next` and what the scheduler needs to know of it.
  inline void prepare_next(SmState& sm, WarpSlot& w, WarpPipeline& pipe, const StaticInstruction& next, int64_t c);
  // Hints the source to start loading what issuing the warp in `slot` will touch.
  void prefetch(SmState& sm, int slot) const;
  // Prefetch hints for the SM's warps that become ready after `from` (its next busy cycle)
  // and before `end` (run_sm's window).
  void hint_waking_warps(SmState& sm, int64_t from, int64_t end) const;
  // Warp w's entry in its sub-core's scheduling array.
  static ScheduledWarp& entry(SmState& sm, const WarpSlot& w) {
    return sm.subcores[static_cast<size_t>(w.subcore)].warps[static_cast<size_t>(w.position)];
  }
  // Re-caches warp w's ready cycle in its sub-core after its entry changed.
  static void refresh(SmState& sm, const WarpSlot& w) {
    sm.subcores[static_cast<size_t>(w.subcore)].refresh(static_cast<size_t>(w.position));
  }
  void warp_finished(SmState& sm, WarpSlot& w, int64_t c);
  void release_barrier(SmState& sm, int cta, int64_t c);

  GpuConfig config_storage_;  // the launch's view of the config (config_for_launch)
  const GpuConfig* config_ = nullptr;
  WarpInstructionSource* source_ = nullptr;
  CtaResources cta_{};
  Occupancy occupancy_;
  std::array<UnitTiming, FunctionalUnits::kUnits> units_{};
  MmaTimingCache mma_;
  StaticFactsCache facts_;
  L2Subsystem beyond_l1_;
  CoalescedAccess coalesced_;
  ExecutedInstruction executed_;
  ScoreboardSpill scoreboard_spill_;  // the warp slots' scoreboard entries past the inline ones
  HugePageVector<SmState> sms_;
  std::vector<int> live_sms_;  // SMs with resident CTAs, ascending (rebuilt when one empties or fills)
  bool live_sms_changed_ = true;
  CtaScheduler ctas_;
  GpuStats stats_;
  uint64_t next_age_ = 0;
  int64_t now_ = 0, end_ = 0, iterations_ = 0, evaluations_ = 0, windows_ = 0;
  int64_t window_end_ = 0;  // the end of the SM window being run: hints reach that far
  int64_t rebase_period_ = kSectorTimeRebaseCycles, rebased_at_ = 0, rebases_ = 0;
  bool finished_ = true;
};

}  // namespace loom::simt
