// The GPU's CTA (thread-block) scheduler: hands out CTAs in id order, at launch filling the
// SMs round-robin (CTA 0 to SM 0, CTA 1 to SM 1, ...) up to the occupancy limit, and
// afterwards one new CTA to an SM each time one of its CTAs retires. It also numbers the
// CTAs' slots in the WarpInstructionSource, always taking the lowest free one.
#pragma once

#include <cstdint>
#include <vector>

namespace loom::simt {

class CtaScheduler {
 public:
  void reset(int64_t total_ctas, int source_slots);

  bool has_pending() const { return next_id_ < total_; }
  int64_t total() const { return total_; }
  int64_t dispatched() const { return next_id_; }
  int64_t retired() const { return retired_; }

  struct Dispatch {
    int64_t cta_id;
    int source_slot;
  };
  Dispatch take();                 // requires has_pending()
  void release(int source_slot);   // a CTA retired

 private:
  int64_t total_ = 0, next_id_ = 0, retired_ = 0;
  std::vector<int> free_slots_;  // min-heap
};

}  // namespace loom::simt
