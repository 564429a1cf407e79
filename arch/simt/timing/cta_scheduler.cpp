#include "arch/simt/timing/cta_scheduler.h"

#include <algorithm>
#include <functional>

#include "sim/error.h"

namespace loom::simt {

void CtaScheduler::reset(int64_t total_ctas, int source_slots) {
  total_ = total_ctas;
  next_id_ = retired_ = 0;
  free_slots_.clear();
  for (int s = 0; s < source_slots; ++s) free_slots_.push_back(s);  // ascending: already a min-heap
}

CtaScheduler::Dispatch CtaScheduler::take() {
  LOOM_CHECK(has_pending() && !free_slots_.empty(), "simt cta scheduler", "no CTA or no slot to dispatch");
  std::pop_heap(free_slots_.begin(), free_slots_.end(), std::greater<>());
  const int slot = free_slots_.back();
  free_slots_.pop_back();
  return Dispatch{next_id_++, slot};
}

void CtaScheduler::release(int source_slot) {
  ++retired_;
  free_slots_.push_back(source_slot);
  std::push_heap(free_slots_.begin(), free_slots_.end(), std::greater<>());
}

}  // namespace loom::simt
