// One SM sub-core (SM sub-partition, "processing block"): a warp scheduler issuing at most
// one instruction per cycle from its warps, its functional units and tensor cores, its
// register-file read stage, and its cycle accounting.
//
// Scheduling order. GTO: the warp that issued last (if it still can), then the others
// oldest first. LRR: the warps in age order starting after the last issuer, wrapping.
//
// Stall attribution: a cycle in which nothing issues is charged to the reason the *first
// warp in that order that has not finished* cannot issue (the warp the scheduler would have
// taken had it been ready): at a barrier, instruction buffer empty (fetch), scoreboard,
// register-read stage busy (register_bank), unit or tensor cores busy (execution_unit), MIO
// queue full (memory_pipe), checked in that order. With no unfinished warp the cycle is
// no_warp. Idle stretches are charged in bulk: a sub-core is evaluated only when something
// it waits on can change (`SmState::next_eval`), and the reason found then holds until
// that cycle.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "arch/simt/gpu_stats.h"
#include "arch/simt/timing/functional_units.h"
#include "arch/simt/timing/timing_constants.h"
#include "arch/simt/warp_instruction.h"
#include "sim/huge_page_arena.h"

namespace loom::simt {

// What the scheduler looks at of one warp every time it considers it, kept by the sub-core
// in one compact array (oldest first), so a warp that cannot issue costs no trip to its
// WarpSlot. The fields change only when the warp issues (or waits at or leaves a barrier,
// or finishes); they are written here then.
struct ScheduledWarp {
  enum class State : uint8_t { running, at_barrier, finished };
  int64_t fetch_until = 0;  // its next instruction is in the instruction buffer from this cycle
  int64_t regs_until = 0;   // and its registers are free of pending writes from this cycle
  uint64_t age = 0;         // launch order
  int slot = 0;             // its warp slot in the SM
  State state = State::running;
  // Of its next instruction: the unit, the bank-conflict cycles before dispatch, whether it
  // goes through the MIO queue.
  Unit unit = Unit::control;
  uint8_t dispatch_delay = 0;
  bool uses_mio = false;
  // The earliest cycle its own state lets it issue (kNever while at a barrier).
  int64_t ready_at() const { return state == State::running ? std::max(fetch_until, regs_until) : kNever; }
};

struct SubCore {
  int sm = 0;
  int index = 0;  // within its SM (SmState::next_eval)
  HugePageVector<ScheduledWarp> warps;  // oldest first
  // warps[i].ready_at(), cached in an array of its own so the scheduler's scan over the
  // other warps is a branch-free min and compare over 8 contiguous bytes per warp;
  // refresh(i) after changing fetch_until, regs_until or state.
  HugePageVector<int64_t> ready;
  // The warp that issued last (GTO's greedy warp, LRR's starting point): its position in
  // `warps` when it issued (a CTA retirement may shift it) and its age, which identifies it.
  size_t last_issuer = 0;
  uint64_t last_issuer_age = 0;
  bool issued_once = false;

  FunctionalUnits units;
  int64_t read_free = 0;    // register-file read stage free from this cycle
  int64_t tensor_free = 0;  // tensor cores accept the next MMA from this cycle

  int64_t charged_until = 0;  // cycles before this are accounted
  StallReason pending = StallReason::no_warp;  // reason for cycles since, until the next evaluation
  std::array<int64_t, static_cast<size_t>(StallReason::count)> cycles{};

  // Charges the cycles up to `t` to the pending reason.
  void settle(int64_t t) {
    if (t > charged_until) {
      cycles[static_cast<size_t>(pending)] += t - charged_until;
      charged_until = t;
    }
  }
  // Charges cycle `c` (evaluated now) to `reason`, which also holds until the next evaluation.
  void charge(int64_t c, StallReason reason) {
    settle(c);
    ++cycles[static_cast<size_t>(reason)];
    charged_until = c + 1;
    pending = reason;
  }
  void refresh(size_t i) { ready[i] = warps[i].ready_at(); }
  void add_warp(const ScheduledWarp& e) {
    warps.push_back(e);
    ready.push_back(e.ready_at());
  }
  void remove_warp(size_t i) {
    warps.erase(warps.begin() + static_cast<std::ptrdiff_t>(i));
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(i));
  }
};

}  // namespace loom::simt
