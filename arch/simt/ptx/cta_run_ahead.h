// Executes each CTA ahead of its issues, a CTA at a time, for kernels whose results cannot
// depend on when their instructions execute; the timing model's issues are then answered
// from what each instruction reported (warp_record_stream.h), in order.
//
// Why: with thousands of warps resident, executing at issue finds each warp's registers
// out of the host's caches (the WMMA GEMM at 1024^3 keeps 27 MB of them), and those misses
// were about a third of a run (docs/performance.md, the thirty-eighth round). Run ahead, a
// CTA's warps execute back to back while its registers are at hand, and an issue reads one
// compact record instead.
//
// When it is exact: the functional model is sequentially consistent, so executing a CTA's
// instructions earlier changes what they compute only where some thread reads what another
// writes without synchronization it could see. can_run_ahead() admits kernels with no
// barriers, atomics, fences, or volatile, relaxed, acquire, release or acq_rel accesses (the
// decoder's is_barrier, is_atomic and orders_memory flags); in those,
// threads can only communicate through a data race, whose outcome CUDA leaves undefined.
// Every other kernel executes at issue (FunctionalModel itself).
//
// Bounded memory: each warp runs ahead at most kRunInstructions at a time, and stops early
// once its records of the run take kRunBytes (scattered loads record a segment per lane);
// when a warp has issued all it recorded, it runs on, with any other warp of its CTA that
// has too. So a warp holds at most one run's records: under 16 KiB and one record of at
// most 1,056 bytes, in at most eighteen 2 KiB blocks (a block may leave unused what the
// next record does not fit in): 36 KiB per resident warp, about 300 MB for an H200's 8,448
// (a WMMA GEMM warp's whole stream takes one block). The
// functional model's slot of a CTA whose warps have all finished is reused at once, last
// freed first, so that with short CTAs the registers stay in the host's caches.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/simt/ptx/functional_model.h"
#include "arch/simt/ptx/warp_record_stream.h"
#include "arch/simt/warp_instruction.h"
#include "sim/huge_page_arena.h"

namespace loom::simt {

// True if `kernel` may run ahead (above); otherwise `why` (if given) names the first
// instruction that rules it out.
bool can_run_ahead(const PtxKernel& kernel, std::string* why = nullptr);

class CtaRunAheadSource final : public WarpInstructionSource {
 public:
  static constexpr int kRunInstructions = 1024;  // per warp per run
  static constexpr size_t kRunBytes = 16 * 1024;  // per warp per run, reached by the record that passes it
  // `model` must be a kernel for which can_run_ahead() holds, and outlive this source.
  explicit CtaRunAheadSource(FunctionalModel& model);

  int64_t cta_count() const override { return model_.cta_count(); }
  CtaResources cta_resources() const override { return model_.cta_resources(); }
  void reserve_slots(int slot_count) override;
  void start_cta(int slot, int64_t cta_id) override;
  void retire_cta(int slot) override;
  bool warp_done(int slot, int warp) const override;
  bool warp_at_barrier(int, int) const override { return false; }  // no barriers (can_run_ahead)
  const StaticInstruction& peek(int slot, int warp) const override;
  void execute(int slot, int warp, ExecutedInstruction& out) override;
  WarpStateHandle handle(int slot, int warp) const override;
  void prefetch(const WarpStateHandle& warp, const StaticInstruction& next) const override;

  // Host bytes held for records (tests, limits).
  size_t record_bytes() const { return arena_.reserved_bytes(); }

 private:
  struct Warp {
    WarpRecordStream stream;
    bool done = false;  // its last instruction is recorded
  };
  static_assert(sizeof(Warp) == 64, "a warp in one host line");
  struct Cta {
    HugePageVector<Warp> warps;
    int functional_slot = -1;  // while some warp has instructions left to run
  };
  void run(Cta& cta);

  FunctionalModel& model_;
  HugePageVector<Cta> ctas_;             // by the timing model's slot
  std::vector<int> free_functional_;  // the functional model's free slots, last freed last
  RecordArena arena_;
  ExecutedInstruction scratch_;
};

}  // namespace loom::simt
