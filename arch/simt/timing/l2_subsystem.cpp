#include "arch/simt/timing/l2_subsystem.h"

#include <algorithm>
#include <bit>

#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

void L2Subsystem::configure(const GpuConfig& c) {
  noc_.configure(c.sms, c.noc_latency, c.noc_bytes_per_cycle_per_sm);
  l2_.configure(c);
  lines_.configure(c.l1.line_bytes, c.l1.sector_bytes, c.l2_line_bytes, c.l2_sector_bytes);
  l1_sector_ = c.l1.sector_bytes;
  own_l2_lines_ = c.l1.line_bytes % c.l2_line_bytes == 0;
  before_slice_ = c.l2_hit_latency / 2;
  after_slice_ = c.l2_hit_latency - before_slice_;
}

int64_t L2Subsystem::store(int sm, uint64_t line, uint32_t mask, int64_t t, GpuStats& stats) {
  L2Piece pieces[L1ToL2Lines::kMaxPieces];
  const int n = lines_.split(line, mask, pieces);
  const int64_t at_l2 = noc_.to_l2(sm, t, sector_count(mask) * l1_sector_) + before_slice_;
  int64_t written = at_l2;
  for (int i = 0; i < n; ++i) written = std::max(written, l2_.write(pieces[i].line, pieces[i].mask, at_l2, stats));
  return written;
}

}  // namespace loom::simt
