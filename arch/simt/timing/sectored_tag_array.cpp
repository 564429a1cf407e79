#include "arch/simt/timing/sectored_tag_array.h"

#include <algorithm>

namespace loom::simt {

void SectoredTagArray::configure(int64_t bytes, int line_bytes, int associativity, uint64_t index_stride) {
  const int64_t total_lines = bytes > 0 ? bytes / line_bytes : 0;
  ways_ = static_cast<int>(std::min<int64_t>(associativity, total_lines));
  sets_ = ways_ > 0 ? static_cast<uint64_t>(total_lines / ways_) : 0;
  stride_ = Divider(std::max<uint64_t>(1, index_stride));
  set_count_ = Divider(std::max<uint64_t>(1, sets_));
  const size_t n = static_cast<size_t>(sets_) * static_cast<size_t>(ways_);
  tags_.assign(n, 0);
  last_use_.assign(n, 0);
  last_hit_.assign(static_cast<size_t>(sets_), 0);
  lines_.assign(n, CacheLine{});
  clock_ = 0;
}

CacheLine* SectoredTagArray::find(uint64_t line) {
  if (ways_ == 0) return nullptr;
  const size_t set = set_of(line);
  const size_t first = set * static_cast<size_t>(ways_);
  const uint64_t* tags = tags_.data() + first;
  size_t way = last_hit_[set];
  if (tags[way] != line + 1) {
    way = static_cast<size_t>(ways_);
    for (size_t w = 0; w < static_cast<size_t>(ways_); ++w)
      if (tags[w] == line + 1) {
        way = w;
        break;
      }
    if (way == static_cast<size_t>(ways_)) return nullptr;
    last_hit_[set] = static_cast<uint32_t>(way);
  }
  last_use_[first + way] = ++clock_;
  return &lines_[first + way];
}

CacheLine* SectoredTagArray::allocate(uint64_t line, uint64_t& evicted_line, uint8_t& evicted_dirty) {
  if (ways_ == 0) return nullptr;
  const size_t first = set_of(line) * static_cast<size_t>(ways_);
  const uint64_t* tags = tags_.data() + first;
  const uint64_t* use = last_use_.data() + first;
  size_t way = 0;
  uint64_t oldest = use[0];
  for (size_t w = 0; w < static_cast<size_t>(ways_); ++w) {
    if (tags[w] == 0) {  // an invalid way first
      way = w;
      break;
    }
    if (use[w] < oldest) {
      oldest = use[w];
      way = w;
    }
  }
  const size_t victim = first + way;
  evicted_line = tags_[victim] - 1;
  evicted_dirty = tags_[victim] != 0 ? lines_[victim].dirty : 0;
  tags_[victim] = line + 1;
  last_use_[victim] = ++clock_;
  lines_[victim] = CacheLine{};
  return &lines_[victim];
}

}  // namespace loom::simt
