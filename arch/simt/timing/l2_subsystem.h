// The L2 subsystem: everything beyond an SM's L1 (the interconnect, the L2 slices and
// DRAM) as an L1 miss or a store sees it. Latencies are end to end from the SM: an L1 miss
// that hits in L2 is back l2_hit_latency + 2*noc_latency cycles after it left the L1 tag
// stage (noc_latency is 0 in configs whose l2_hit_latency was measured end to end); a DRAM
// miss adds dram_latency. Half of l2_hit_latency is spent before the slice and half after,
// so queueing at a slice or at DRAM is met where it happens. L1 and L2 lines and sectors
// may differ in size.
#pragma once

#include <algorithm>
#include <cstdint>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/interconnect.h"
#include "arch/simt/timing/l1_to_l2_lines.h"
#include "arch/simt/timing/l2_cache.h"

namespace loom::simt {

class L2Subsystem {
 public:
  void configure(const GpuConfig& config);

  // Where prefetch() found the sectors of an L1 line in the L2, for load(): where they lie
  // in one L2 line that no other L1 line shares, that line, its slice, the way it is at
  // (SectoredTagArray::probe) and the bit of the L1 mask its sectors begin at (-1 where L1
  // and L2 sectors differ in size); else `way` is kUnprobed and load() works it all out
  // afresh.
  static constexpr int kUnprobed = L2Cache::kUnprobed;
  // No default member initialisers: a load keeps an array of them, set line by line.
  struct Probe {
    uint64_t line;
    int slice;
    int way;
    int first_bit;
  };
  static constexpr Probe kNoProbe{0, 0, kUnprobed, 0};

  // An L1 miss for sectors `mask` (L1 sectors) of L1 line `line`, leaving SM `sm` at `t`:
  // returns the cycle the data is back at the SM. Inline: every L1 miss comes here.
  // `probed`: prefetch()'s answer for the line (sectors `mask` or more of it), when no L2
  // allocation of its L2 line came between them; nullptr, or a way of kUnprobed, otherwise.
  int64_t load(int sm, uint64_t line, uint32_t mask, int64_t t, GpuStats& stats, const Probe* probed = nullptr) {
    const int64_t at_l2 = noc_.to_l2(sm, t, 0) + before_slice_;
    int64_t data = at_l2;
    if (probed && probed->way != kUnprobed) {
      // Sectors `mask` lie in the probed L2 line too: a part of those prefetch() was asked for.
      uint32_t sectors;
      if (probed->first_bit >= 0) {
        sectors = mask >> probed->first_bit;
      } else {  // L1 and L2 sectors differ in size: the one piece split gives
        L2Piece pieces[L1ToL2Lines::kMaxPieces]{};
        lines_.split(line, mask, pieces);
        sectors = pieces[0].mask;
      }
      data = std::max(data, l2_.read_at(static_cast<size_t>(probed->slice), probed->line, sectors, at_l2, stats,
                                        probed->way));
    } else {
      L2Piece pieces[L1ToL2Lines::kMaxPieces];
      const int n = lines_.split(line, mask, pieces);
      for (int i = 0; i < n; ++i) data = std::max(data, l2_.read(pieces[i].line, pieces[i].mask, at_l2, stats));
    }
    return noc_.to_sm(sm, data + after_slice_, sector_count(mask) * l1_sector_);
  }
  // A hint that sectors `mask` of L1 line `line` are loaded soon; returns load()'s `probed`.
  // Inline: a multi-line load asks it for nearly every line it fetches.
  Probe prefetch(uint64_t line, uint32_t mask) const {
    L2Piece pieces[L1ToL2Lines::kMaxPieces];
    const int n = lines_.split(line, mask, pieces);
    Probe p = kNoProbe;
    if (n == 1 && own_l2_lines_) {
      p.line = pieces[0].line;
      p.slice = l2_.slice_of(p.line);
      p.way = l2_.prefetch_at(static_cast<size_t>(p.slice), p.line);
      p.first_bit = lines_.uniform() ? lines_.first_bit(line, p.line) : -1;
      return p;
    }
    for (int i = 0; i < n; ++i) l2_.prefetch(pieces[i].line);
    return p;
  }
  // A store of sectors `mask` of L1 line `line` leaving SM `sm` at `t`: returns the cycle
  // the data is written into the L2.
  int64_t store(int sm, uint64_t line, uint32_t mask, int64_t t, GpuStats& stats);
  // The L2's SectoredTagArray::rebase_times.
  void rebase_times(int64_t now) { l2_.rebase_times(now); }
  // End of kernel (dirty L2 sectors).
  void finish(GpuStats& stats) const { l2_.write_back_dirty(stats); }

 private:
  Interconnect noc_;
  L2Cache l2_;
  L1ToL2Lines lines_;
  int l1_sector_ = 32;
  // Every L2 line lies inside one L1 line, so distinct L1 lines never share an L2 line and
  // a probe stays valid while other L1 lines are read (prefetch).
  bool own_l2_lines_ = true;
  int before_slice_ = 0, after_slice_ = 0;
};

}  // namespace loom::simt
