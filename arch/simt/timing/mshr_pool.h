// The L1's miss-status holding registers: each outstanding line miss holds one from the
// cycle it is looked up until its data is back. When all are held, the next miss waits for
// the earliest release, and with it the L1 pipeline behind it (the MIO backs up, and memory
// instructions stall at issue: StallReason::memory_pipe).
//
// A streaming kernel takes and releases one MSHR per line miss, hundreds of them in flight,
// so the pool is a calendar rather than a heap: a count of releases per cycle over the next
// kSlots cycles (a ring, with a bitmap of the cycles that have any), and a min-heap only
// for the rare release further out. Taking one costs a few operations; finding the
// earliest release, needed only when all are held, is a scan of at most kSlots / 64 words.
// Lookup cycles reach the pool in non-decreasing order (the L1 looks lines up in order,
// SmMemoryPipeline), which is what lets the ring forget the cycles behind it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace loom::simt {

class MshrPool {
 public:
  void reset(int capacity) {
    capacity_ = capacity;
    held_ = in_ring_ = 0;
    now_ = 0;
    count_.fill(0);
    occupied_.fill(0);
    far_.clear();
  }

  // The first cycle >= t at which a new miss can take an MSHR; takes it (call hold_until).
  // t never decreases from one call to the next.
  int64_t acquire(int64_t t) {
    // held_ counts releases after now_ as still held, so it never undercounts: below the
    // capacity there is a free MSHR at t without bringing the calendar up to t. It is
    // brought up every kLazyCycles, so that releases stay within the ring's reach.
    if (held_ < capacity_ && t - now_ < kLazyCycles) return t;
    advance(t);
    if (held_ < capacity_) return t;
    const int64_t freed = earliest();
    release_one(freed);
    return freed;
  }
  void hold_until(int64_t release) {
    if (release <= now_) return;  // free again before any later acquire looks
    ++held_;
    if (release - now_ < kSlots) {
      add_to_ring(release);
    } else {
      far_.push_back(release);
      std::push_heap(far_.begin(), far_.end(), std::greater<>());
    }
  }

 private:
  static constexpr int64_t kSlots = 1024;  // a power of two, > any usual miss latency
  static constexpr size_t kWords = kSlots / 64;
  static constexpr int64_t kLazyCycles = 256;  // leaves a miss latency of kSlots - 256 in the ring

  static size_t slot(int64_t cycle) { return static_cast<size_t>(cycle & (kSlots - 1)); }

  void add_to_ring(int64_t release) {
    const size_t s = slot(release);
    // The bit is set whether or not the slot had releases already: no branch on a count
    // that follows the miss latencies (it mispredicted often).
    ++count_[s];
    occupied_[s / 64] |= uint64_t{1} << (s % 64);
    ++in_ring_;
  }

  // Frees everything released by cycle t, and brings far releases into the ring's reach.
  void advance(int64_t t) {
    if (t <= now_) return;
    if (in_ring_ > 0) {
      if (t - now_ >= kSlots - 1) {
        held_ -= in_ring_;
        in_ring_ = 0;
        count_.fill(0);
        occupied_.fill(0);
      } else {
        clear_slots(slot(now_ + 1), static_cast<size_t>(t - now_));
      }
    }
    now_ = t;
    while (!far_.empty() && far_.front() - now_ < kSlots) {
      const int64_t release = far_.front();
      std::pop_heap(far_.begin(), far_.end(), std::greater<>());
      far_.pop_back();
      if (release > now_)
        add_to_ring(release);
      else
        --held_;
    }
  }

  // Frees the releases in `n` (< kSlots) consecutive slots from `first`, wrapping around.
  void clear_slots(size_t first, size_t n) {
    while (n > 0) {
      const size_t word = first / 64, bit = first % 64;
      const size_t take = std::min<size_t>(n, 64 - bit);
      const uint64_t span = take == 64 ? ~uint64_t{0} : ((uint64_t{1} << take) - 1) << bit;
      for (uint64_t hits = occupied_[word] & span; hits; hits &= hits - 1) {
        const size_t s = word * 64 + static_cast<size_t>(std::countr_zero(hits));
        held_ -= count_[s];
        in_ring_ -= count_[s];
        count_[s] = 0;
      }
      occupied_[word] &= ~span;
      n -= take;
      first = (first + take) & (kSlots - 1);
    }
  }

  // The earliest release still held (there is one).
  int64_t earliest() const {
    if (in_ring_ == 0) return far_.front();
    // Slots after now_'s, in cycle order: the rest of its word, the other words, then the
    // part of its own word before it.
    const size_t start = slot(now_ + 1);
    const size_t w0 = start / 64;
    const auto found = [&](size_t s) {
      const size_t offset = (s - start) & static_cast<size_t>(kSlots - 1);
      return now_ + 1 + static_cast<int64_t>(offset);
    };
    if (const uint64_t high = occupied_[w0] & (~uint64_t{0} << (start % 64)))
      return found(w0 * 64 + static_cast<size_t>(std::countr_zero(high)));
    for (size_t k = 1; k < kWords; ++k) {
      const size_t w = (w0 + k) % kWords;
      if (occupied_[w]) return found(w * 64 + static_cast<size_t>(std::countr_zero(occupied_[w])));
    }
    return found(w0 * 64 + static_cast<size_t>(std::countr_zero(occupied_[w0])));
  }

  void release_one(int64_t cycle) {
    --held_;
    if (in_ring_ == 0) {
      std::pop_heap(far_.begin(), far_.end(), std::greater<>());
      far_.pop_back();
      return;
    }
    const size_t s = slot(cycle);
    --in_ring_;
    if (--count_[s] == 0) occupied_[s / 64] &= ~(uint64_t{1} << (s % 64));
  }

  int capacity_ = 1;
  int held_ = 0, in_ring_ = 0;
  int64_t now_ = 0;                       // the calendar's cycle: releases up to it are freed
  std::array<uint32_t, kSlots> count_{};  // releases per cycle, by cycle mod kSlots
  std::array<uint64_t, kWords> occupied_{};
  std::vector<int64_t> far_;  // min-heap of releases kSlots or more cycles after now_
};

}  // namespace loom::simt
