// Where an L1 miss goes in L2: the L2 lines, and the sectors of each, that hold a set of
// sectors of one L1 line. L1 and L2 lines and sectors may differ in size (V100: 128-byte L1
// lines, 64-byte L2 lines, 32-byte sectors in both).
#pragma once

#include <bit>
#include <cstdint>

#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

struct L2Piece {
  uint64_t line;  // L2 line number (address / l2 line bytes)
  uint32_t mask;  // its sectors
};

class L1ToL2Lines {
 public:
  // An L1 line spans at most this many L2 lines (check_timing_config enforces it).
  static constexpr int kMaxPieces = kMaxSectorsPerLine;

  void configure(int l1_line_bytes, int l1_sector_bytes, int l2_line_bytes, int l2_sector_bytes);

  // The pieces of sectors `mask` of L1 line `line`, in address order; returns their count.
  // Inline for the usual geometry (every L1 miss comes here): each L2 line is a field of
  // the L1 mask. Most misses lie in one L2 line (a wmma.load's rows are one sector each):
  // that field is found from the mask's lowest sector, without a pass over the fields.
  int split(uint64_t line, uint32_t mask, L2Piece* pieces) const {
    if (l2_lines_per_l1_line_ == 0) return split_general(line, mask, pieces);
    const uint64_t first = line * static_cast<uint64_t>(l2_lines_per_l1_line_);
    if (per_l2_shift_ >= 0 && mask != 0) {
      const int j = std::countr_zero(mask) >> per_l2_shift_;
      const uint32_t rest = mask >> (j << per_l2_shift_);
      if ((rest & ~field_) == 0) {
        pieces[0] = L2Piece{first + static_cast<uint64_t>(j), rest};
        return 1;
      }
    }
    int count = 0;
    for (int j = 0; j < l2_lines_per_l1_line_; ++j, mask >>= per_l2_)
      if (const uint32_t sub = mask & field_) pieces[count++] = L2Piece{first + static_cast<uint64_t>(j), sub};
    return count;
  }
  // Whether L1 and L2 sectors are of one size and L2 lines lie whole in L1 lines (the
  // usual geometry: each L2 line is a field of the L1 mask).
  bool uniform() const { return l2_lines_per_l1_line_ > 0; }
  // The bit of an L1 mask where the sectors of L2 line `l2_line`, one of L1 line `line`'s
  // pieces, begin: sectors `mask` of that piece are `mask >> first_bit(...)` of it. Only
  // where uniform().
  int first_bit(uint64_t line, uint64_t l2_line) const {
    return static_cast<int>(l2_line - line * static_cast<uint64_t>(l2_lines_per_l1_line_)) * per_l2_;
  }

 private:
  int split_general(uint64_t line, uint32_t mask, L2Piece* pieces) const;

  int l1_line_ = 128, l1_sector_ = 32, l2_line_ = 128, l2_sector_ = 32;
  // > 0: sectors of one size and whole L2 lines in an L1 line, this many of them.
  int l2_lines_per_l1_line_ = 0;
  int per_l2_ = 1;       // sectors per L2 line
  uint32_t field_ = 1;   // an L2 line's sectors as mask bits: per_l2_ ones
  int per_l2_shift_ = 0;  // log2(per_l2_), or -1 where per_l2_ is not a power of two
};

}  // namespace loom::simt
