#include "arch/simt/timing/sectored_tag_array.h"

#include <algorithm>

#include "arch/simt/timing/way_scan.h"

namespace loom::simt {

void SectoredTagArray::configure(int64_t bytes, int line_bytes, int associativity, uint64_t index_stride) {
  const int64_t total_lines = bytes > 0 ? bytes / line_bytes : 0;
  ways_ = static_cast<int>(std::min<int64_t>(associativity, total_lines));
  sets_ = ways_ > 0 ? static_cast<uint64_t>(total_lines / ways_) : 0;
  stride_ = Divider(std::max<uint64_t>(1, index_stride));
  set_count_ = Divider(std::max<uint64_t>(1, sets_));
  const size_t n = static_cast<size_t>(sets_) * static_cast<size_t>(ways_);
  scan_stride_ = static_cast<size_t>(padded_ways(ways_));
  fingerprints_.assign(static_cast<size_t>(sets_) * scan_stride_, 0);
  last_use_.assign(static_cast<size_t>(sets_) * scan_stride_, 0);
  set_state_.assign(static_cast<size_t>(sets_), SetState{});
  lines_.assign(n, CacheLine{});
  clock_ = 0;
}

CacheLine* SectoredTagArray::find(uint64_t line) {
  if (ways_ == 0) return nullptr;
  const size_t set = set_of(line);
  const size_t first = set * static_cast<size_t>(ways_);
  const CacheLine* ways = lines_.data() + first;
  SetState& state = set_state_[set];
  size_t way = state.last_hit;
  if (ways[way].tag != line + 1) {
    const uint16_t* prints = fingerprints_.data() + set * scan_stride_;
    const uint16_t print = fingerprint(line);
    int w = find_print(prints, 0, ways_, print);
    while (w < ways_ && ways[w].tag != line + 1) w = find_print(prints, w + 1, ways_, print);  // fingerprints collide
    if (w == ways_) return nullptr;
    way = static_cast<size_t>(w);
    state.last_hit = static_cast<uint16_t>(way);
  }
  if (clock_ >= stamp_limit_) renumber_stamps();
  last_use_[set * scan_stride_ + way] = ++clock_;
  return &lines_[first + way];
}

CacheLine* SectoredTagArray::allocate(uint64_t line, uint64_t& evicted_line, uint8_t& evicted_dirty) {
  if (ways_ == 0) return nullptr;
  const size_t set = set_of(line);
  const size_t first = set * static_cast<size_t>(ways_);
  const size_t scan = set * scan_stride_;
  // An invalid way first (the lowest), else the least recently used.
  SetState& state = set_state_[set];
  const int way = state.filled < ways_ ? state.filled++ : oldest_way(last_use_.data() + scan, ways_);
  state.last_hit = static_cast<uint16_t>(way);
  const size_t victim = first + static_cast<size_t>(way);
  evicted_line = lines_[victim].tag - 1;
  evicted_dirty = lines_[victim].tag != 0 ? lines_[victim].dirty : 0;
  fingerprints_[scan + static_cast<size_t>(way)] = fingerprint(line);
  if (clock_ >= stamp_limit_) renumber_stamps();
  last_use_[scan + static_cast<size_t>(way)] = ++clock_;
  lines_[victim] = CacheLine{};
  lines_[victim].tag = line + 1;
  return &lines_[victim];
}

void SectoredTagArray::renumber_stamps() {
  std::vector<size_t> order;  // indices into last_use_ of the valid ways
  for (size_t set = 0; set < sets_; ++set)
    for (size_t way = 0; way < static_cast<size_t>(ways_); ++way)
      if (lines_[set * static_cast<size_t>(ways_) + way].tag != 0) order.push_back(set * scan_stride_ + way);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return last_use_[a] < last_use_[b]; });
  for (size_t k = 0; k < order.size(); ++k) last_use_[order[k]] = static_cast<uint32_t>(k + 1);
  clock_ = static_cast<uint32_t>(order.size());
}

}  // namespace loom::simt
