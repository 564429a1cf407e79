// A warp's instruction buffer: `entries` decoded instructions, consumed in order at issue.
// A slot freed by an issue is refilled `fetch_latency` cycles later; a taken branch flushes
// the buffer, and the first instruction of the target is there `redirect` cycles later.
// Only the ready cycles of the buffered entries are kept (oldest first): what the entries
// hold is the functional model's business.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

class InstructionBuffer {
 public:
  // A new warp starts with an empty buffer that fills `fetch_latency` cycles after launch.
  void reset(int entries, int64_t now, int fetch_latency) {
    entries_ = entries;
    head_ = 0;
    for (int i = 0; i < entries_; ++i) ready_[i] = now + fetch_latency;
  }

  // Cycle the next instruction is in the buffer.
  int64_t head_ready() const { return ready_[head_]; }

  // The head issued at `now`: its slot is refilled with a later instruction.
  void consume(int64_t now, int fetch_latency) {
    const int tail = head_;  // the freed slot becomes the youngest
    // The ring's wrap-arounds by masks, not branches: the warps issue in an order no branch
    // predictor follows, so a branch on where each one's ring stands mispredicted often.
    const int next = head_ + 1;
    head_ = next & -static_cast<int>(next != entries_);
    const int64_t youngest = ready_[tail - 1 + (entries_ & -static_cast<int>(tail == 0))];
    ready_[tail] = std::max(now + fetch_latency, youngest);
  }

  // A taken branch at `now`: every buffered instruction is discarded and refetched.
  void flush(int64_t now, int redirect) {
    for (int i = 0; i < entries_; ++i) ready_[i] = now + redirect;
  }

 private:
  int entries_ = 1;
  int head_ = 0;
  std::array<int64_t, kMaxIbufferEntries> ready_{};
};

}  // namespace loom::simt
