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
      pending_[static_cast<size_t>(groups_++)] = Writes{ready, bit(d), inst.dst.data(), w, 1, 1, d >= kMaskBits};
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
      while (g < groups_ && pending_[static_cast<size_t>(g)].word != w) ++g;
      if (g == groups_) pending_[static_cast<size_t>(groups_++)] = Writes{ready, 0, inst.dst.data(), w, 0, inst.n_dst, false};
      Writes& e = pending_[static_cast<size_t>(g)];
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

  // One issued instruction's writes to registers of one 64-register word (id / 64 mod 4):
  // they all land at once, so one entry stands for up to kMaxDst of them (a wmma.load's
  // eight), and a check costs one mask compare for all.
  struct Writes {
    int64_t ready;
    uint64_t bits;        // of the destinations in this word
    const uint16_t* dst;  // all the instruction's destinations (its register list)
    uint8_t word;
    uint8_t writes;       // destinations in this entry: what it takes of the capacity
    uint8_t n_dst;        // length of dst
    bool wide;            // a destination here has an id of 256 or more
  };

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
      const Writes& g = pending_[static_cast<size_t>(i)];
      if (g.ready <= now) continue;
      if (kept != i) pending_[static_cast<size_t>(kept)] = g;
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
      by_ready[static_cast<size_t>(i)] = {pending_[static_cast<size_t>(i)].ready, pending_[static_cast<size_t>(i)].writes};
    std::sort(by_ready.begin(), by_ready.begin() + groups_);
    int landed = 0;
    for (int i = 0; i < groups_; ++i)
      if ((landed += by_ready[static_cast<size_t>(i)].second) >= k) return by_ready[static_cast<size_t>(i)].first;
    return by_ready[static_cast<size_t>(groups_ - 1)].first;  // unreachable: k <= count_
  }

  int count_ = 0;   // register writes in pending_
  int groups_ = 0;  // entries in pending_ (each at least one write, so at most count_)
  RegisterMask filter_{};
  std::array<Writes, kScoreboardEntries> pending_;
};

}  // namespace loom::simt
