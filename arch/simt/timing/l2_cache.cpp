#include "arch/simt/timing/l2_cache.h"

#include <algorithm>
#include <bit>

#include "arch/simt/timing/bit_ops.h"

namespace loom::simt {

void L2Cache::configure(const GpuConfig& c) {
  sector_bytes_ = c.l2_sector_bytes;
  slices_.resize(static_cast<size_t>(c.l2_slices));
  ports_.resize(static_cast<size_t>(c.l2_slices));
  for (SectoredTagArray& s : slices_)
    s.configure(c.l2_bytes / c.l2_slices, c.l2_line_bytes, c.l2_associativity, static_cast<uint64_t>(c.l2_slices));
  for (BandwidthServer& p : ports_) p.reset(c.l2_bytes_per_cycle_per_slice);
  slices_of_ = Interleave(c.l2_slices);
  dram_.configure(c);
}

void L2Cache::write_back(uint64_t line, uint8_t dirty, int64_t t, GpuStats& stats) {
  if (dirty == 0) return;
  const int bytes = sector_count(dirty) * sector_bytes_;
  dram_.write(line, t, bytes);
  stats.dram_write_bytes += bytes;
}

int64_t L2Cache::fill_from_dram(SectoredTagArray& tags, uint64_t line, CacheLine* entry, uint32_t missing,
                                int64_t at_slice, GpuStats& stats) {
  if (!entry) {
    uint64_t victim = 0;
    uint8_t dirty = 0;
    entry = tags.allocate(line, victim, dirty);
    write_back(victim, dirty, at_slice, stats);
  }
  const int bytes = sector_count(missing) * sector_bytes_;
  const int64_t filled = dram_.read(line, at_slice, bytes);
  stats.dram_read_bytes += bytes;
  if (entry)
    for (uint32_t m = missing; m; m &= m - 1) {
      const int s = std::countr_zero(m);
      entry->valid |= static_cast<uint8_t>(1u << s);
      tags.set_arrival(*entry, s, filled);
    }
  return filled;
}

int64_t L2Cache::write(uint64_t line, uint32_t mask, int64_t t, GpuStats& stats) {
  const int slice = slice_of(line);
  const int sectors = sector_count(mask);
  const int64_t written = ports_[static_cast<size_t>(slice)].pass(t, sectors * sector_bytes_);
  stats.l2_sector_accesses += sectors;
  stats.l2_sector_hits += sectors;
  SectoredTagArray& tags = slices_[static_cast<size_t>(slice)];
  CacheLine* entry = tags.find(line);
  if (!entry) {
    uint64_t victim = 0;
    uint8_t dirty = 0;
    entry = tags.allocate(line, victim, dirty);
    write_back(victim, dirty, written, stats);
  }
  if (!entry) {  // no L2 at all: write through
    dram_.write(line, written, sectors * sector_bytes_);
    stats.dram_write_bytes += sectors * sector_bytes_;
    return written;
  }
  for (uint32_t m = mask; m; m &= m - 1) {
    const int s = std::countr_zero(m);
    const uint8_t bit = static_cast<uint8_t>(1u << s);
    if (!(entry->valid & bit)) tags.set_arrival(*entry, s, written);
    entry->valid |= bit;
    entry->dirty |= bit;
  }
  return written;
}

void L2Cache::write_back_dirty(GpuStats& stats) const {
  for (const SectoredTagArray& s : slices_)
    for (const CacheLine& line : s.lines()) stats.dram_write_bytes += int64_t{sector_count(line.dirty)} * sector_bytes_;
}

}  // namespace loom::simt
