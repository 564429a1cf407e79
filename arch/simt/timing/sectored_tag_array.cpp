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
  // Room for the fingerprints and the state, in whole host lines (64 bytes, 32 units); at
  // least padded_ways(ways_), so a scan stays inside its set's block.
  block_units_ = (static_cast<size_t>(ways_) + kStateUnits + 31) / 32 * 32;
  blocks_.assign(static_cast<size_t>(sets_) * block_units_, 0);
  for (size_t set = 0; set < sets_; ++set)  // the state's bytes hold a SetState from here on
    new (blocks_.data() + (set + 1) * block_units_ - kStateUnits) SetState{};
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
  SetState& state = state_of(set);
  // The most recently used way first: a repeat hit leaves the recency order as it is.
  if (state.newest_tag == line + 1) return &lines_[first + state.newest];
  const uint16_t* prints = prints_of(set);
  const uint16_t print = fingerprint(line);
  int w = find_print(prints, 0, ways_, print);
  while (w < ways_ && ways[w].tag != line + 1) w = find_print(prints, w + 1, ways_, print);  // fingerprints collide
  if (w == ways_) return nullptr;
  make_newest(state, links_.data() + first, static_cast<uint16_t>(w), line + 1);
  return &lines_[first + static_cast<size_t>(w)];
}

void SectoredTagArray::probe_all(const uint64_t* lines, int n, int* ways) const {
  constexpr int kChunk = 32;  // a wmma.load's 16 rows, or a 32-lane scatter, in one
  for (int from = 0; from < n; from += kChunk) {
    const uint64_t* chunk = lines + from;
    int* chunk_ways = ways + from;
    const int count = std::min(kChunk, n - from);
    const size_t set = set_of(chunk[0]);
    bool one_set = ways_ > 0;
    for (int i = 1; i < count && one_set; ++i) one_set = set_of(chunk[i]) == set;
    if (!one_set) {
      for (int i = 0; i < count; ++i) chunk_ways[i] = probe(chunk[i]);
      continue;
    }
    // The set's newest way answers without a scan, as in probe(); the others are scanned
    // together, each answer hinted as soon as it is found (the lookups wait on them).
    const SetState& state = state_of(set);
    const size_t first = set * static_cast<size_t>(ways_);
    uint16_t keys[kChunk];
    int scanned[kChunk], found[kChunk];
    int m = 0;
    for (int i = 0; i < count; ++i) {
      if (chunk[i] + 1 == state.newest_tag) {
        chunk_ways[i] = state.newest;
        prefetch_way(first + state.newest);
      } else {
        keys[m] = fingerprint(chunk[i]);
        scanned[m++] = i;
      }
    }
    WayHints hints;
    hints.lines = reinterpret_cast<const char*>(lines_.data() + first);
    hints.line_bytes = sizeof(CacheLine);
    hints.links = reinterpret_cast<const char*>(links_.data() + first);
    hints.link_bytes = sizeof(Link);
    hints.victim = state.filled == ways_ ? state.oldest : -1;
    find_prints(prints_of(set), ways_, keys, m, found, hints);
    for (int j = 0; j < m; ++j) chunk_ways[scanned[j]] = found[j] == ways_ ? kAbsent : found[j];
  }
}

CacheLine* SectoredTagArray::allocate(uint64_t line, uint64_t& evicted_line, uint8_t& evicted_dirty) {
  if (ways_ == 0) return nullptr;
  const size_t set = set_of(line);
  const size_t first = set * static_cast<size_t>(ways_);
  // An invalid way first (the lowest), else the least recently used.
  SetState& state = state_of(set);
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
  blocks_[set * block_units_ + way] = fingerprint(line);
  lines_[victim] = CacheLine{};
  lines_[victim].tag = line + 1;
  return &lines_[victim];
}

}  // namespace loom::simt
