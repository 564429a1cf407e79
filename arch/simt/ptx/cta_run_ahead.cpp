#include "arch/simt/ptx/cta_run_ahead.h"

#include "sim/error.h"

namespace loom::simt {

bool can_run_ahead(const PtxKernel& kernel, std::string* why) {
  if (kernel.statics.size() > 65536) {  // records number instructions in 16 bits
    if (why) *why = "it has more than 65,536 instructions";
    return false;
  }
  for (const StaticInstruction& s : kernel.statics) {
    if (s.is_barrier || s.is_atomic || s.orders_memory) {
      if (why) *why = "'" + s.text + "' (line " + std::to_string(s.line) + ") synchronizes or orders memory";
      return false;
    }
  }
  return true;
}

CtaRunAheadSource::CtaRunAheadSource(FunctionalModel& model) : model_(model) {
  std::string why;
  LOOM_CHECK(can_run_ahead(model.kernel(), &why), "run-ahead", "kernel '" + model.kernel().name + "' cannot run ahead: " + why);
}

void CtaRunAheadSource::reserve_slots(int slot_count) {
  model_.reserve_slots(slot_count);
  ctas_.assign(static_cast<size_t>(slot_count), Cta{});
  free_functional_.clear();
  for (int s = slot_count - 1; s >= 0; --s) free_functional_.push_back(s);
}

void CtaRunAheadSource::start_cta(int slot, int64_t cta_id) {
  Cta& cta = ctas_[static_cast<size_t>(slot)];
  LOOM_CHECK(!free_functional_.empty(), "run-ahead", "more CTAs started than slots reserved");
  cta.functional_slot = free_functional_.back();
  free_functional_.pop_back();
  model_.start_cta(cta.functional_slot, cta_id);
  cta.warps.resize(static_cast<size_t>(model_.warps_per_cta()));
  for (Warp& w : cta.warps) {
    w.stream.open(arena_);
    w.done = false;
  }
  run(cta);
}

// Each warp that has issued everything recorded for it and has instructions left runs up to
// kRunInstructions of them (or kRunBytes of records). A CTA whose warps have all finished
// leaves the functional model.
void CtaRunAheadSource::run(Cta& cta) {
  const int f = cta.functional_slot;
  bool all_done = true;
  for (size_t i = 0; i < cta.warps.size(); ++i) {
    Warp& w = cta.warps[i];
    const int warp = static_cast<int>(i);
    if (!w.done && w.stream.drained()) {  // a warp still holding records waits for its own turn
      const uint32_t start = w.stream.appended_bytes();
      for (int n = 0; n < kRunInstructions && w.stream.appended_bytes() - start < kRunBytes && !model_.warp_done(f, warp);
           ++n) {
        model_.execute(f, warp, scratch_);
        w.stream.append(arena_, scratch_);
      }
      w.done = model_.warp_done(f, warp);
      w.stream.settle(arena_);
    }
    all_done &= w.done;
  }
  if (all_done) {
    model_.retire_cta(f);
    free_functional_.push_back(f);
    cta.functional_slot = -1;
  }
}

void CtaRunAheadSource::retire_cta(int slot) {
  Cta& cta = ctas_[static_cast<size_t>(slot)];
  LOOM_CHECK(cta.functional_slot < 0, "run-ahead", "retire_cta before every warp finished");
  for (Warp& w : cta.warps) w.stream.close(arena_);
}

bool CtaRunAheadSource::warp_done(int slot, int warp) const {
  const Warp& w = ctas_[static_cast<size_t>(slot)].warps[static_cast<size_t>(warp)];
  return w.done && w.stream.drained();
}

const StaticInstruction& CtaRunAheadSource::peek(int slot, int warp) const {
  const Warp& w = ctas_[static_cast<size_t>(slot)].warps[static_cast<size_t>(warp)];
  LOOM_CHECK(!w.stream.drained(), "run-ahead", "peek at a finished warp");
  return model_.kernel().statics[w.stream.next_pc()];
}

void CtaRunAheadSource::execute(int slot, int warp, ExecutedInstruction& out) {
  Cta& cta = ctas_[static_cast<size_t>(slot)];
  Warp& w = cta.warps[static_cast<size_t>(warp)];
  w.stream.replay(arena_, model_.kernel().statics, out);
  if (!out.warp_done && !out.next) {
    // The warp has issued everything recorded for it: its CTA runs on.
    run(cta);
    out.next = &peek(slot, warp);
  }
  out.next_state = w.stream.cursor();
}

WarpStateHandle CtaRunAheadSource::handle(int slot, int warp) const {
  const WarpRecordStream& stream = ctas_[static_cast<size_t>(slot)].warps[static_cast<size_t>(warp)].stream;
  return {&stream, stream.cursor()};
}

// The warp's stream and its next record's first two host lines (a wmma.load's runs into the
// second). The record's place comes with the handle (the cursor after the warp's last
// replay), not from the stream: reading the stream here waited on its miss, 5% of the WMMA
// GEMM's samples. Another warp of the CTA running on may have moved the cursor past a jump
// since; the hint then names the jump, a stale but harmless address.
void CtaRunAheadSource::prefetch(const WarpStateHandle& warp, const StaticInstruction&) const {
  const auto* line = static_cast<const char*>(warp.data);
  __builtin_prefetch(warp.state);
  __builtin_prefetch(line);
  __builtin_prefetch(line + 64);
}

}  // namespace loom::simt
