// The functional PTX model of one kernel launch, seen by the timing model through
// WarpInstructionSource: CTAs occupy hardware slots, each warp executes its next instruction
// when the timing model issues it, and execute() reports what that instruction did.
//
// SIMT control flow follows GPGPU-Sim: each warp keeps a reconvergence stack of (pc,
// reconvergence pc, mask) entries; a divergent branch parks the current entry at the branch's
// immediate post-dominator and pushes one entry per path; an entry is popped when its lanes
// reach its reconvergence pc. Exited lanes leave every entry's mask; the warp is done when
// none is left. bar.sync holds a warp until every warp of its CTA that has not exited
// arrives (or the barrier's thread count is met). Warps of a CTA share nothing else, so any
// interleaving the timing model picks gives the same results for race-free kernels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/simt/ptx/functional_state.h"
#include "arch/simt/ptx/global_memory.h"
#include "arch/simt/ptx/ptx_program.h"
#include "arch/simt/warp_instruction.h"
#include "sim/huge_page_buffer.h"
#include "sim/huge_page_arena.h"

namespace loom::simt {

struct LaunchConfig {
  Dim3 grid, block;
  int64_t dynamic_shared_bytes = 0;
  int registers_per_thread = 0;  // 0: the kernel's estimate (register_estimate.h)
};

class FunctionalModel final : public WarpInstructionSource {
 public:
  // `kernel` and `memory` must outlive the model; `params` come from bind_kernel_arguments.
  // InputError for impossible launches (zero or oversized dimensions, wrong parameter size).
  FunctionalModel(const PtxKernel& kernel, const LaunchConfig& config, std::vector<uint8_t> params, GlobalMemory& memory);

  int64_t cta_count() const override { return static_cast<int64_t>(launch_.grid.count()); }
  CtaResources cta_resources() const override;
  void reserve_slots(int slot_count) override;
  void start_cta(int slot, int64_t cta_id) override;
  void retire_cta(int slot) override;
  bool warp_done(int slot, int warp) const override { return slots_[static_cast<size_t>(slot)].warps[static_cast<size_t>(warp)].stack.empty(); }
  bool warp_at_barrier(int slot, int warp) const override {
    return slots_[static_cast<size_t>(slot)].warps[static_cast<size_t>(warp)].at_barrier;
  }
  const StaticInstruction& peek(int slot, int warp) const override;
  void execute(int slot, int warp, ExecutedInstruction& out) override;
  WarpStateHandle handle(int slot, int warp) const override;
  void prefetch(const WarpStateHandle& warp, const StaticInstruction& next) const override;

  const PtxKernel& kernel() const { return *launch_.kernel; }
  const LaunchState& launch() const { return launch_; }
  int warps_per_cta() const { return static_cast<int>(launch_.warps_per_cta); }
  const CtaState& cta(int slot) const { return slots_[static_cast<size_t>(slot)]; }
  // Where each unfinished warp of the CTA in `slot` stands, for deadlock messages.
  std::string describe_waiting_warps(int slot) const;

 private:
  void fill_special_registers(CtaState& cta, uint32_t warp);
  inline void step(CtaState& cta, WarpState& w, int warp, ExecutedInstruction& out);  // defined and used in the .cpp only
  // Moves the top stack entry `top` of warp w on to `next_pc`, popping what has then
  // reconverged; most instructions leave the entry in place, so settle() is rarely needed.
  void move_top(WarpState& w, SimtStackEntry& top, uint32_t next_pc) {
    top.pc = next_pc;
    if (top.mask == 0 || top.pc == top.reconverge) settle(w);
  }
  void advance(WarpState& w, uint32_t next_pc) { move_top(w, w.stack.back(), next_pc); }
  void settle(WarpState& w);
  void branch(WarpState& w, const DecodedInstruction& d, uint32_t pc, uint32_t taken);
  void exit_lanes(CtaState& cta, WarpState& w, uint32_t pc, uint32_t lanes);
  void arrive(CtaState& cta, WarpState& w, const DecodedInstruction& d, uint32_t pc, uint32_t mask);
  void release_if_complete(CtaState& cta, int barrier);

  LaunchState launch_;
  int registers_per_thread_ = 0;
  HugePageVector<CtaState> slots_;
  HugePageBuffer registers_;  // slot s's warps' registers start at registers_per_cta_ * s
  size_t registers_per_cta_ = 0;
};

}  // namespace loom::simt
