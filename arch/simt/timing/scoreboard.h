// A warp's scoreboard: the registers with a write still in flight and the cycle each write
// lands. An instruction may issue only when none of its source or destination registers is
// pending (RAW and WAW hazards). Because execution happens at issue, every write's landing
// cycle is known when it is recorded, so the scoreboard can say not only "blocked" but
// "blocked until cycle t", which lets the engine skip idle cycles. A 256-bit filter
// (register id mod 256) answers the common "no hazard" case without a scan, even for an
// MMA's 32 operands against the 8-register fragments of several loads in flight.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "arch/simt/timing/timing_constants.h"
#include "arch/simt/warp_instruction.h"

namespace loom::simt {

class Scoreboard {
 public:
  void clear() {
    count_ = 0;
    filter_.fill(0);
  }

  // Bit (id mod 256) of every register an instruction reads or writes: the filter's key.
  using RegisterMask = std::array<uint64_t, 4>;
  static RegisterMask registers_of(const StaticInstruction& inst) {
    RegisterMask m{};
    for (int i = 0; i < inst.n_src; ++i) m[word(inst.src[i])] |= bit(inst.src[i]);
    for (int i = 0; i < inst.n_dst; ++i) m[word(inst.dst[i])] |= bit(inst.dst[i]);
    return m;
  }
  // Whether any of inst's registers is 256 or above, so that its mask bits can stand for
  // more than one register and a match must be confirmed against its register list.
  static bool has_wide_registers(const StaticInstruction& inst) {
    return any_register(inst, [](uint16_t reg) { return reg >= kMaskBits; });
  }

  // The cycle from which `inst` has no register hazard (<= now: none now). A full
  // scoreboard also blocks, until enough writes have landed to make room for inst's. The
  // answer stays exact until the warp issues again (nothing else adds entries), so the
  // engine asks once per instruction. `registers` is registers_of(inst) and `wide`
  // has_wide_registers(inst), which callers that see the same instruction again keep.
  int64_t clear_at(const StaticInstruction& inst, int64_t now) {
    return clear_at(inst, registers_of(inst), has_wide_registers(inst), now);
  }
  int64_t clear_at(const StaticInstruction& inst, const RegisterMask& registers, bool wide, int64_t now) {
    if (count_ == 0) return now;
    // Writes that have landed are dropped only when they could matter: they never delay
    // an instruction (`until` starts at `now`), but they do take room and filter bits.
    if (count_ + inst.n_dst <= kScoreboardEntries &&
        ((filter_[0] & registers[0]) | (filter_[1] & registers[1]) | (filter_[2] & registers[2]) |
         (filter_[3] & registers[3])) == 0)
      return now;
    // One pass drops the landed writes and takes the latest landing among the rest that
    // write one of inst's registers (a mask bit is that register itself unless a register
    // id of 256 or more is involved on either side).
    int64_t until = now;
    drop_landed(now, [&](const Write& w) {
      if ((registers[word(w.reg)] & bit(w.reg)) && w.ready > until &&
          ((!wide && w.reg < kMaskBits) || any_register(inst, [&](uint16_t reg) { return reg == w.reg; })))
        until = w.ready;
    });
    if (count_ + inst.n_dst > kScoreboardEntries) until = std::max(until, room_at(count_ + inst.n_dst - kScoreboardEntries));
    return until;
  }

  // Before an instruction that passed clear_at reserves its `writes` destinations at cycle
  // `now`: drops the writes landed by then if it would not fit otherwise (clear_at's answer
  // counted on them having landed).
  void make_room(int writes, int64_t now) {
    if (count_ + writes > kScoreboardEntries) drop_landed(now, [](const Write&) {});
  }

  // Records a write to `reg` landing at cycle `ready` (the instruction passed clear_at, and
  // make_room made room for it).
  void reserve(uint16_t reg, int64_t ready) {
    pending_[static_cast<size_t>(count_++)] = Write{ready, reg};
    filter_[word(reg)] |= bit(reg);
  }

  int pending() const { return count_; }

 private:
  static size_t word(uint16_t reg) { return (reg >> 6) & 3; }
  static uint64_t bit(uint16_t reg) { return uint64_t{1} << (reg & 63); }

  static constexpr uint16_t kMaskBits = 256;

  // Whether `test` holds for any register inst reads or writes.
  template <class Test>
  static bool any_register(const StaticInstruction& inst, Test&& test) {
    for (int i = 0; i < inst.n_src; ++i)
      if (test(inst.src[i])) return true;
    for (int i = 0; i < inst.n_dst; ++i)
      if (test(inst.dst[i])) return true;
    return false;
  }

  // Drops the writes landed by `now`, showing each one kept to `visit`.
  template <class Visit>
  void drop_landed(int64_t now, Visit&& visit) {
    int kept = 0;
    RegisterMask filter{};
    for (int i = 0; i < count_; ++i) {
      const Write w = pending_[static_cast<size_t>(i)];
      if (w.ready <= now) continue;
      pending_[static_cast<size_t>(kept++)] = w;
      filter[word(w.reg)] |= bit(w.reg);
      visit(w);
    }
    count_ = kept;
    filter_ = filter;
  }

  // The cycle by which `k` of the pending writes have landed.
  int64_t room_at(int k) const {
    std::array<int64_t, kScoreboardEntries> sorted;
    for (int i = 0; i < count_; ++i) sorted[static_cast<size_t>(i)] = pending_[static_cast<size_t>(i)].ready;
    std::nth_element(sorted.begin(), sorted.begin() + (k - 1), sorted.begin() + count_);
    return sorted[static_cast<size_t>(k - 1)];
  }

  // Register and landing cycle side by side: the few pending writes share a cache line.
  struct Write {
    int64_t ready;
    uint16_t reg;
  };
  int count_ = 0;
  std::array<uint64_t, 4> filter_{};
  std::array<Write, kScoreboardEntries> pending_;
};

}  // namespace loom::simt
