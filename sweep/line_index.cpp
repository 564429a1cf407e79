#include "sweep/line_index.h"

#include <algorithm>

namespace loom {

namespace {

template <class Vector>
auto lower(Vector& v, int64_t index) {
  return std::lower_bound(v.begin(), v.end(), index, [](const auto& e, int64_t i) { return e.index < i; });
}

}  // namespace

std::optional<LineIndex::Line> LineIndex::find(int64_t index) const {
  if (const auto it = pending_.find(index); it != pending_.end()) return it->second;
  const auto it = lower(sorted_, index);
  if (it == sorted_.end() || it->index != index) return std::nullopt;
  return Line{it->offset, it->length};
}

void LineIndex::put(int64_t index, Line line) {
  if (const auto it = lower(sorted_, index); it != sorted_.end() && it->index == index) {
    it->offset = line.offset, it->length = line.length;
    return;
  }
  if (sorted_.empty() || index > sorted_.back().index) {  // the common case: points in order
    if (pending_.empty()) {
      sorted_.push_back({index, line.offset, line.length});
      ++size_;
      return;
    }
  }
  size_ += pending_.insert_or_assign(index, line).second ? 1 : 0;
  if (pending_.size() >= kPendingMax) merge();
}

void LineIndex::merge() const {
  if (pending_.empty()) return;
  const size_t middle = sorted_.size();
  for (const auto& [index, line] : pending_) sorted_.push_back({index, line.offset, line.length});
  std::unordered_map<int64_t, Line>().swap(pending_);  // frees its buckets too
  const auto by_index = [](const Entry& a, const Entry& b) { return a.index < b.index; };
  std::sort(sorted_.begin() + static_cast<std::ptrdiff_t>(middle), sorted_.end(), by_index);
  std::inplace_merge(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(middle), sorted_.end(), by_index);
}

void LineIndex::for_each(const std::function<void(int64_t, const Line&)>& visit) const {
  merge();
  for (const Entry& e : sorted_) visit(e.index, Line{e.offset, e.length});
}

void LineIndex::relocate(const std::function<Line(int64_t, const Line&)>& place) {
  merge();
  for (Entry& e : sorted_) {
    const Line moved = place(e.index, Line{e.offset, e.length});
    e.offset = moved.offset, e.length = moved.length;
  }
}

}  // namespace loom
