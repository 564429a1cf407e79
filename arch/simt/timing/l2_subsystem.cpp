#include "arch/simt/timing/l2_subsystem.h"

#include <algorithm>
#include <bit>

#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

void L2Subsystem::configure(const GpuConfig& c) {
  noc_.configure(c.sms, c.noc_latency, c.noc_bytes_per_cycle_per_sm);
  l2_.configure(c);
  l1_line_ = c.l1.line_bytes;
  l1_sector_ = c.l1.sector_bytes;
  l2_line_ = c.l2_line_bytes;
  l2_sector_ = c.l2_sector_bytes;
  before_slice_ = c.l2_hit_latency / 2;
  after_slice_ = c.l2_hit_latency - before_slice_;
}

int L2Subsystem::split(uint64_t line, uint32_t mask, Piece* pieces) const {
  if (l1_line_ == l2_line_ && l1_sector_ == l2_sector_) {
    pieces[0] = Piece{line, mask};
    return 1;
  }
  int count = 0;
  for (; mask; mask &= mask - 1) {
    const uint64_t first = line * static_cast<uint64_t>(l1_line_) +
                           static_cast<uint64_t>(std::countr_zero(mask)) * static_cast<uint64_t>(l1_sector_);
    const uint64_t per_line = static_cast<uint64_t>(l2_line_ / l2_sector_);
    for (uint64_t s = first / static_cast<uint64_t>(l2_sector_);
         s <= (first + static_cast<uint64_t>(l1_sector_) - 1) / static_cast<uint64_t>(l2_sector_); ++s) {
      const uint64_t l2_line = s / per_line;
      const uint32_t bit = uint32_t{1} << (s % per_line);
      int p = 0;
      while (p < count && pieces[p].line != l2_line) ++p;
      if (p == count) pieces[count++] = Piece{l2_line, 0};
      pieces[p].mask |= bit;
    }
  }
  return count;
}

int64_t L2Subsystem::load(int sm, uint64_t line, uint32_t mask, int64_t t, GpuStats& stats) {
  Piece pieces[kMaxSectorsPerLine * 2];
  const int n = split(line, mask, pieces);
  const int64_t at_l2 = noc_.to_l2(sm, t, 0) + before_slice_;
  int64_t data = at_l2;
  for (int i = 0; i < n; ++i) data = std::max(data, l2_.read(pieces[i].line, pieces[i].mask, at_l2, stats));
  return noc_.to_sm(sm, data + after_slice_, bit_count(mask) * l1_sector_);
}

int64_t L2Subsystem::store(int sm, uint64_t line, uint32_t mask, int64_t t, GpuStats& stats) {
  Piece pieces[kMaxSectorsPerLine * 2];
  const int n = split(line, mask, pieces);
  const int64_t at_l2 = noc_.to_l2(sm, t, bit_count(mask) * l1_sector_) + before_slice_;
  int64_t written = at_l2;
  for (int i = 0; i < n; ++i) written = std::max(written, l2_.write(pieces[i].line, pieces[i].mask, at_l2, stats));
  return written;
}

}  // namespace loom::simt
