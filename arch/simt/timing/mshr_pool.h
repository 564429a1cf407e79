// The L1's miss-status holding registers: each outstanding line miss holds one from the
// cycle it is looked up until its data is back. When all are held, the next miss waits for
// the earliest release, and with it the L1 pipeline behind it (the MIO backs up, and memory
// instructions stall at issue: StallReason::memory_pipe).
//
// The pool is a log of release cycles, appended to as misses take MSHRs. Lookup cycles
// reach it in non-decreasing order (the L1 looks lines up in order, SmMemoryPipeline), so a
// release at or before an acquire's cycle is free for good, and the log, stale releases and
// all, never undercounts the MSHRs held: below the capacity an acquire needs nothing else.
// The log is looked at only when it reaches the capacity or, for a pool of more than
// kCompactionFloor MSHRs, twice what it held after the last look (at least
// kCompactionFloor), so that it never grows past twice the MSHRs held; the released ones
// are dropped from it in one sequential pass. A miss thus writes the end of one array,
// where the calendar this replaced wrote a slot of a 4 KiB ring picked by its release
// cycle, a line the host's cache rarely held (docs/performance.md, thirty-seventh round).
// While every MSHR stays held (a streaming kernel's misses at the capacity), the log is
// kept as a min-heap instead, so that each acquire finds the earliest release in a few
// steps rather than a pass; it is a plain log again once half the MSHRs are free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace loom::simt {

class MshrPool {
 public:
  void reset(int capacity) {
    capacity_ = capacity;
    releases_.clear();
    heap_ = false;
    look_at_ = std::min(capacity_, kCompactionFloor);
    // Room for the usual log from the start: a pool of up to kCompactionFloor never grows
    // it during the launch.
    releases_.reserve(static_cast<size_t>(look_at_) + 1);
  }

  // The first cycle >= t at which a new miss can take an MSHR; takes it (call hold_until).
  // t never decreases from one call to the next.
  int64_t acquire(int64_t t) {
    if (!heap_) {
      if (held_at_most() < look_at_) return t;  // look_at_ <= capacity_
      std::erase_if(releases_, [t](int64_t release) { return release <= t; });
      if (held_at_most() < capacity_) {
        look_at_ = next_look();
        return t;
      }
      // Every MSHR is held past t: keep the releases as a heap while that lasts.
      std::make_heap(releases_.begin(), releases_.end(), std::greater<>());
      heap_ = true;
    } else {
      while (!releases_.empty() && releases_.front() <= t) pop_earliest();
      if (held_at_most() < capacity_) {
        if (held_at_most() <= capacity_ / 2) {  // back to the log once half are free
          heap_ = false;
          look_at_ = next_look();
        }
        return t;
      }
    }
    // The earliest release frees the MSHR this miss takes.
    const int64_t freed = releases_.front();
    pop_earliest();
    return freed;
  }
  void hold_until(int64_t release) {
    releases_.push_back(release);
    if (heap_) std::push_heap(releases_.begin(), releases_.end(), std::greater<>());
  }

  // Release cycles kept, stale ones included: at most the capacity, and at most
  // kCompactionFloor or twice the MSHRs held at the last look, whichever is more.
  size_t kept() const { return releases_.size(); }

 private:
  static constexpr int kCompactionFloor = 512;

  int held_at_most() const { return static_cast<int>(releases_.size()); }
  // Where the log is next looked at, after a look left it holding only MSHRs still held.
  int next_look() const {
    const int64_t twice = 2 * int64_t{held_at_most()};
    return static_cast<int>(std::min<int64_t>(capacity_, std::max<int64_t>(kCompactionFloor, twice)));
  }
  void pop_earliest() {
    std::pop_heap(releases_.begin(), releases_.end(), std::greater<>());
    releases_.pop_back();
  }

  int capacity_ = 1;
  // Release cycles of the MSHRs taken, some perhaps passed already; a min-heap while heap_.
  std::vector<int64_t> releases_;
  bool heap_ = false;
  int look_at_ = 1;  // while a log: the size at which it is next looked at
};

}  // namespace loom::simt
