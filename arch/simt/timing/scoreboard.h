// A warp's scoreboard: the registers with a write still in flight and the cycle each write
// lands. An instruction may issue only when none of its source or destination registers is
// pending (RAW and WAW hazards). Because execution happens at issue, every write's landing
// cycle is known when it is recorded, so the scoreboard can say not only "blocked" but
// "blocked until cycle t", which lets the engine skip idle cycles. A 256-bit filter
// (register id mod 256) answers the common "no hazard" case without a scan, even for an
// MMA's 32 operands against the 8-register fragments of several loads in flight. An
// issued instruction's writes land together, so they are one entry with a mask of their
// own (one per 64-register word they fall in): a scan compares a wmma.load's eight
// destinations at once. The capacity (kScoreboardEntries) still counts register writes.
//
// Where the entries live: the first kInlineEntries in the scoreboard itself, the rest in a
// ScoreboardSpill that all warp slots of a launch share, row by row (row j holds entries
// kInlineEntries + 16j .. + 15 of every slot, slot after slot). Warps rarely hold more than
// a few entries (a WMMA GEMM's at most 9, a tiled GEMM's 31), so the rows are touched only
// where they are used: inline, a launch's 5,120 V100 warp slots took 11 MB of fresh pages
// that the host kernel cleared, 64 entries of 32 bytes each (docs/performance.md,
// forty-sixth round).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "arch/simt/timing/timing_constants.h"
#include "arch/simt/warp_instruction.h"

namespace loom::simt {

class Scoreboard {
 public:
  static constexpr int kInlineEntries = 16;
  static constexpr int kSpillRowEntries = 16;
  static constexpr int kSpillRows = (kScoreboardEntries - kInlineEntries) / kSpillRowEntries;
  static_assert(kInlineEntries + kSpillRows * kSpillRowEntries == kScoreboardEntries, "whole rows");

  // One issued instruction's writes to registers of one 64-register word (id / 64 mod 4):
  // they all land at once, so one entry stands for up to kMaxDst of them (a wmma.load's
  // eight), and a check costs one mask compare for all. No member initializers: a spill
  // row is left as the host gave it until an entry is written there.
  struct Writes {
    int64_t ready;
    uint64_t bits;        // of the destinations in this word
    const uint16_t* dst;  // all the instruction's destinations (its register list)
    uint8_t word;
    uint8_t writes;       // destinations in this entry: what it takes of the capacity
    uint8_t n_dst;        // length of dst
    bool wide;            // a destination here has an id of 256 or more
  };
  // A slot's entries beyond the inline ones: entry kInlineEntries + kSpillRowEntries * j + e
  // is first[j * stride + e].
  struct Spill {
    Writes* first = nullptr;
    size_t stride = 0;
  };

  // Must be called before any write is reserved, and again whenever the storage moves.
  void attach(Spill spill) { spill_ = spill; }

  void clear() {
    count_ = groups_ = 0;
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
    drop_landed(now, [&](const Writes& g) {
      if (g.ready > until && (registers[g.word] & g.bits) != 0 &&
          ((!wide && !g.wide) || writes_one_of(g, registers, inst)))
        until = g.ready;
    });
    if (count_ + inst.n_dst > kScoreboardEntries) until = std::max(until, room_at(count_ + inst.n_dst - kScoreboardEntries));
    return until;
  }

  // Before `inst`, which passed clear_at, reserves its destinations at cycle `now`: drops
  // the writes landed by then if it would not fit otherwise (clear_at's answer counted on
  // them having landed).
  void make_room(const StaticInstruction& inst, int64_t now) {
    if (count_ + inst.n_dst > kScoreboardEntries) drop_landed(now, [](const Writes&) {});
  }

  // Records inst's writes to its destinations, all landing at cycle `ready` (inst passed
  // clear_at, and make_room made room for them). `inst` must outlive the entries: decoded
  // instructions live as long as their kernel.
  void reserve(const StaticInstruction& inst, int64_t ready) {
    if (inst.n_dst == 1) {  // most instructions: one entry, no grouping
      const uint16_t d = inst.dst[0];
      const auto w = static_cast<uint8_t>(word(d));
      at(groups_++) = Writes{ready, bit(d), inst.dst.data(), w, 1, 1, d >= kMaskBits};
      filter_[w] |= bit(d);
      count_ += 1;
      return;
    }
    // One entry per 64-register word the destinations fall in: usually one (a fragment's
    // registers are numbered together).
    const int first = groups_;
    for (int i = 0; i < inst.n_dst; ++i) {
      const uint16_t d = inst.dst[i];
      const auto w = static_cast<uint8_t>(word(d));
      int g = first;
      while (g < groups_ && at(g).word != w) ++g;
      if (g == groups_) at(groups_++) = Writes{ready, 0, inst.dst.data(), w, 0, inst.n_dst, false};
      Writes& e = at(g);
      e.bits |= bit(d);
      ++e.writes;
      e.wide |= d >= kMaskBits;
      filter_[w] |= bit(d);
    }
    count_ += inst.n_dst;
  }

  // Register writes still recorded (landed ones may linger until they matter).
  int pending() const { return count_; }

 private:
  static size_t word(uint16_t reg) { return (reg >> 6) & 3; }
  static uint64_t bit(uint16_t reg) { return uint64_t{1} << (reg & 63); }

  static constexpr uint16_t kMaskBits = 256;

  // Entry i, wherever it lives (the class comment).
  Writes& at(int i) {
    if (i < kInlineEntries) [[likely]]
      return inline_[static_cast<size_t>(i)];
    const int beyond = i - kInlineEntries;
    return spill_.first[static_cast<size_t>(beyond / kSpillRowEntries) * spill_.stride +
                        static_cast<size_t>(beyond % kSpillRowEntries)];
  }
  const Writes& at(int i) const { return const_cast<Scoreboard*>(this)->at(i); }

  // Whether some destination of g's instruction is one of inst's registers, register by
  // register: the mask bits alone cannot tell where an id of 256 or more is involved. (A
  // match in another word of the same instruction lands at the same cycle.)
  static bool writes_one_of(const Writes& g, const RegisterMask& registers, const StaticInstruction& inst) {
    for (int i = 0; i < g.n_dst; ++i) {
      const uint16_t d = g.dst[i];
      if ((registers[word(d)] & bit(d)) && any_register(inst, [&](uint16_t reg) { return reg == d; })) return true;
    }
    return false;
  }

  // Whether `test` holds for any register inst reads or writes.
  template <class Test>
  static bool any_register(const StaticInstruction& inst, Test&& test) {
    for (int i = 0; i < inst.n_src; ++i)
      if (test(inst.src[i])) return true;
    for (int i = 0; i < inst.n_dst; ++i)
      if (test(inst.dst[i])) return true;
    return false;
  }

  // Drops the writes landed by `now`, showing each entry kept to `visit`.
  template <class Visit>
  void drop_landed(int64_t now, Visit&& visit) {
    int kept = 0, count = 0;
    RegisterMask filter{};
    for (int i = 0; i < groups_; ++i) {
      const Writes& g = at(i);
      if (g.ready <= now) continue;
      if (kept != i) at(kept) = g;
      ++kept;
      count += g.writes;
      filter[g.word] |= g.bits;
      visit(g);
    }
    groups_ = kept;
    count_ = count;
    filter_ = filter;
  }

  // The cycle by which `k` of the pending writes have landed.
  int64_t room_at(int k) const {
    std::array<std::pair<int64_t, int>, kScoreboardEntries> by_ready;
    for (int i = 0; i < groups_; ++i)
      by_ready[static_cast<size_t>(i)] = {at(i).ready, at(i).writes};
    std::sort(by_ready.begin(), by_ready.begin() + groups_);
    int landed = 0;
    for (int i = 0; i < groups_; ++i)
      if ((landed += by_ready[static_cast<size_t>(i)].second) >= k) return by_ready[static_cast<size_t>(i)].first;
    return by_ready[static_cast<size_t>(groups_ - 1)].first;  // unreachable: k <= count_
  }

  int count_ = 0;   // register writes pending
  int groups_ = 0;  // entries (each at least one write, so at most count_)
  RegisterMask filter_{};
  std::array<Writes, kInlineEntries> inline_;
  Spill spill_;  // last: read only past the inline entries
};

// The spill rows of `slots` scoreboards (Scoreboard's class comment). Allocated untouched:
// the host gives a row's pages only when some entry is written in them.
class ScoreboardSpill {
 public:
  // Storage for `slots` scoreboards; the old storage (and every Spill of it) is given up
  // unless it already has that many.
  void reserve(size_t slots) {
    if (slots == slots_) return;
    slots_ = slots;
    const size_t stride = slots * Scoreboard::kSpillRowEntries;
    // new of a type without initializers leaves the memory as the host gave it.
    rows_.reset(stride > 0 ? new Scoreboard::Writes[stride * Scoreboard::kSpillRows] : nullptr);
  }
  Scoreboard::Spill of(size_t slot) const {
    return {rows_.get() + slot * Scoreboard::kSpillRowEntries, slots_ * Scoreboard::kSpillRowEntries};
  }

 private:
  size_t slots_ = 0;
  std::unique_ptr<Scoreboard::Writes[]> rows_;
};

}  // namespace loom::simt
