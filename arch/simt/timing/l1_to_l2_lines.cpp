#include "arch/simt/timing/l1_to_l2_lines.h"

#include <bit>

#include "arch/simt/timing/bit_ops.h"

namespace loom::simt {

void L1ToL2Lines::configure(int l1_line_bytes, int l1_sector_bytes, int l2_line_bytes, int l2_sector_bytes) {
  l1_line_ = l1_line_bytes;
  l1_sector_ = l1_sector_bytes;
  l2_line_ = l2_line_bytes;
  l2_sector_ = l2_sector_bytes;
  l2_lines_per_l1_line_ = l1_sector_ == l2_sector_ && l1_line_ >= l2_line_ ? l1_line_ / l2_line_ : 0;
  per_l2_ = l2_line_ / l2_sector_;
  field_ = per_l2_ >= 32 ? ~uint32_t{0} : (uint32_t{1} << per_l2_) - 1;
  per_l2_shift_ = is_power_of_two(static_cast<uint64_t>(per_l2_)) ? std::countr_zero(static_cast<unsigned>(per_l2_)) : -1;
}

int L1ToL2Lines::split_general(uint64_t line, uint32_t mask, L2Piece* pieces) const {
  // Every L2 sector that each L1 sector's bytes overlap.
  int count = 0;
  const auto per_line = static_cast<uint64_t>(per_l2_);
  for (; mask; mask &= mask - 1) {
    const uint64_t first = line * static_cast<uint64_t>(l1_line_) +
                           static_cast<uint64_t>(std::countr_zero(mask)) * static_cast<uint64_t>(l1_sector_);
    for (uint64_t s = first / static_cast<uint64_t>(l2_sector_);
         s <= (first + static_cast<uint64_t>(l1_sector_) - 1) / static_cast<uint64_t>(l2_sector_); ++s) {
      const uint64_t l2_line = s / per_line;
      const uint32_t bit = uint32_t{1} << (s % per_line);
      int p = 0;
      while (p < count && pieces[p].line != l2_line) ++p;
      if (p == count) pieces[count++] = L2Piece{l2_line, 0};
      pieces[p].mask |= bit;
    }
  }
  return count;
}

}  // namespace loom::simt
