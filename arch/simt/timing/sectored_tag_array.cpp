#include "arch/simt/timing/sectored_tag_array.h"

#include <algorithm>
#include <bit>
#include <string>

#include "arch/simt/timing/way_scan.h"
#include "sim/error.h"

namespace loom::simt {

void SectoredTagArray::configure(int64_t bytes, int line_bytes, int associativity, uint64_t index_stride) {
  const int64_t total_lines = bytes > 0 ? bytes / line_bytes : 0;
  ways_ = static_cast<int>(std::min<int64_t>(associativity, total_lines));
  sets_ = ways_ > 0 ? static_cast<uint64_t>(total_lines / ways_) : 0;
  const uint64_t stride = std::max<uint64_t>(1, index_stride), sets = std::max<uint64_t>(1, sets_);
  stride_ = Divider(stride);
  set_count_ = Divider(sets);
  set_shift_ = is_power_of_two(stride) && is_power_of_two(sets) ? std::countr_zero(stride) : -1;
  set_mask_ = sets - 1;
  const size_t n = static_cast<size_t>(sets_) * static_cast<size_t>(ways_);
  scan_stride_ = static_cast<size_t>(padded_ways(ways_));
  fingerprints_.assign(static_cast<size_t>(sets_) * scan_stride_, 0);
  set_state_.assign(static_cast<size_t>(sets_), SetState{});
  links_.assign(n, Link{});
  lines_.assign(n, CacheLine{});
  time_base_ = 0;
}

void SectoredTagArray::rebase_times(int64_t now) {
  if (now <= time_base_) return;
  // Arrival times are unsigned offsets from the base, so "before now" is one compare.
  const uint64_t shift = static_cast<uint64_t>(now - time_base_);
  for (CacheLine& line : lines_)
    for (uint32_t valid = line.valid; valid; valid &= valid - 1) {
      uint32_t& at = line.arrival[static_cast<size_t>(std::countr_zero(valid))];
      at = at <= shift ? 0 : static_cast<uint32_t>(at - shift);
    }
  time_base_ = now;
}

void SectoredTagArray::arrival_out_of_range(int64_t cycle) const {
  throw InputError("", "launch",
                   "a cache sector arriving at cycle " + std::to_string(cycle) + ", more than 2^32 cycles after cycle " +
                       std::to_string(time_base_) + " (or before it); expected memory latencies under 2^32 cycles");
}

CacheLine* SectoredTagArray::find(uint64_t line) {
  if (ways_ == 0) return nullptr;
  const size_t set = set_of(line);
  const size_t first = set * static_cast<size_t>(ways_);
  const CacheLine* ways = lines_.data() + first;
  SetState& state = set_state_[set];
  // The most recently used way first: a repeat hit leaves the recency order as it is.
  if (state.newest_tag == line + 1) return &lines_[first + state.newest];
  const uint16_t* prints = fingerprints_.data() + set * scan_stride_;
  const uint16_t print = fingerprint(line);
  int w = find_print(prints, 0, ways_, print);
  while (w < ways_ && ways[w].tag != line + 1) w = find_print(prints, w + 1, ways_, print);  // fingerprints collide
  if (w == ways_) return nullptr;
  make_newest(state, links_.data() + first, static_cast<uint16_t>(w), line + 1);
  return &lines_[first + static_cast<size_t>(w)];
}

CacheLine* SectoredTagArray::allocate(uint64_t line, uint64_t& evicted_line, uint8_t& evicted_dirty) {
  if (ways_ == 0) return nullptr;
  const size_t set = set_of(line);
  const size_t first = set * static_cast<size_t>(ways_);
  // An invalid way first (the lowest), else the least recently used.
  SetState& state = set_state_[set];
  Link* links = links_.data() + first;
  uint16_t way;
  if (state.filled < ways_) {
    way = state.filled++;
    if (way == 0) {
      state.newest = state.oldest = 0;  // a list of one
      state.newest_tag = line + 1;
    } else {
      push_newest(state, links, way, line + 1);
    }
  } else {
    way = state.oldest;
    make_newest(state, links, way, line + 1);
  }
  const size_t victim = first + way;
  evicted_line = lines_[victim].tag - 1;
  evicted_dirty = lines_[victim].tag != 0 ? lines_[victim].dirty : 0;
  fingerprints_[set * scan_stride_ + way] = fingerprint(line);
  lines_[victim] = CacheLine{};
  lines_[victim].tag = line + 1;
  return &lines_[victim];
}

}  // namespace loom::simt
