// Where each point's line is in a results file: point number -> (byte offset, length), in
// 24 bytes per point, so a sweep log of 10^7 points (loom's limit) indexes its file in about
// 240 MB instead of holding 50 GB of records. Points appended out of order (workers finish
// in any order) wait in a small hash table and are merged into the sorted array in batches.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <unordered_map>

namespace loom {

class LineIndex {
 public:
  struct Line {
    uint64_t offset = 0;  // of the line's first byte
    uint32_t length = 0;  // without the newline
  };

  size_t size() const { return size_; }
  bool has(int64_t index) const { return find(index).has_value(); }
  std::optional<Line> find(int64_t index) const;
  // Records where the point's line is (a point already indexed moves to the new line).
  void put(int64_t index, Line line);
  // Every point in point order.
  void for_each(const std::function<void(int64_t index, const Line& line)>& visit) const;
  // Moves every point, in point order, to where `place` says (after the file is rewritten).
  void relocate(const std::function<Line(int64_t index, const Line& line)>& place);

 private:
  struct Entry {
    int64_t index = 0;
    uint64_t offset = 0;
    uint32_t length = 0;
  };
  // Points put since the last merge wait here; 2^20 of them (about 56 MB) at most.
  static constexpr size_t kPendingMax = size_t{1} << 20;
  void merge() const;  // moves the pending points into the sorted array

  // By index, each index once. A deque: it grows by blocks, without the vector's copy and
  // up to 2x spare capacity at 10^7 entries.
  mutable std::deque<Entry> sorted_;
  mutable std::unordered_map<int64_t, Line> pending_;   // not in sorted_
  size_t size_ = 0;
};

}  // namespace loom
