// The timing state of one hardware warp slot of an SM (the functional state lives in the
// WarpInstructionSource), in three places by how often it is touched: what the scheduler
// scans every cycle is in its sub-core's ScheduledWarp array (sub_core.h); what it needs to
// issue is here, in one cache line; the instruction buffer and scoreboard, touched only at
// issue, are in WarpPipeline.
#pragma once

#include <cstddef>
#include <cstdint>

#include "arch/simt/timing/instruction_buffer.h"
#include "arch/simt/timing/scoreboard.h"
#include "arch/simt/warp_instruction.h"

namespace loom::simt {

struct alignas(64) WarpSlot {
  const StaticInstruction* next = nullptr;  // source.peek(), cached until it issues
  WarpStateHandle functional;               // source.handle(), for prefetch hints
  int64_t drained_at = 0;   // last completion of anything the warp issued
  uint64_t age = 0;         // launch order (GTO's "oldest")
  int cta = -1;             // index in the SM's CTA table; -1: the slot is free
  int warp = 0;             // warp index within its CTA
  int source_slot = -1;     // its CTA's slot in the WarpInstructionSource
  int16_t subcore = 0;
  int16_t position = 0;     // index in its sub-core's `warps`
  uint8_t read_cycles = 1;  // operand collection of `next` (register banks), worked out once
  bool done = false;
  bool at_barrier = false;
};

static_assert(sizeof(WarpSlot) == 64, "what issue needs of a warp stays in one cache line");

struct WarpPipeline {
  InstructionBuffer ibuffer;
  Scoreboard scoreboard;

  // A hint that the warp issues soon: the buffer, and the scoreboard's filter and first
  // entries (a warp rarely has more than a few instructions in flight), which issue reads
  // and writes.
  void prefetch() const {
    const char* p = reinterpret_cast<const char*>(this);
    for (size_t at = 0; at < kPrefetchedBytes; at += 64) __builtin_prefetch(p + at);
  }
  static constexpr size_t kPrefetchedBytes = sizeof(InstructionBuffer) + 64 * 3;
};

}  // namespace loom::simt
