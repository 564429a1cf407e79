// The L2: l2_slices slices, interleaved by line (address_interleave.h), each a sectored LRU
// tag array (l2_associativity ways) behind a port of l2_bytes_per_cycle_per_slice. Reads
// that miss fetch only their missing sectors from DRAM; a sector still in flight from DRAM
// is merged with. Stores are write-back and write-allocate without a fetch (a partial
// sector write is treated as a whole-sector write); dirty sectors are written to DRAM when
// their line is evicted, and those still dirty when the kernel ends are counted as DRAM
// writes then (untimed: the kernel does not wait for them). A "hit" is a sector that
// needed no DRAM read, so writes always hit.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/timing/address_interleave.h"
#include "arch/simt/timing/bandwidth_server.h"
#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/dram.h"
#include "arch/simt/timing/sectored_tag_array.h"

namespace loom::simt {

class L2Cache {
 public:
  void configure(const GpuConfig& config);

  // Sectors `mask` of L2 line `line` read at its slice from cycle `t`: returns the cycle the
  // data leaves the slice. Inline, as the rest of an L1 miss's path (L2Subsystem::load), so
  // that the miss is one function rather than a chain of calls; a DRAM fill is not.
  // `probed`: where prefetch() found the line (SectoredTagArray::probe), with no allocation
  // of `line` since, or kUnprobed.
  static constexpr int kUnprobed = -2;
  int64_t read(uint64_t line, uint32_t mask, int64_t t, GpuStats& stats, int probed = kUnprobed) {
    return read_at(static_cast<size_t>(slice_of(line)), line, mask, t, stats, probed);
  }
  // read() where the line's slice (slice_of) is known already.
  int64_t read_at(size_t slice, uint64_t line, uint32_t mask, int64_t t, GpuStats& stats, int probed = kUnprobed) {
    const int sectors = sector_count(mask);
    const int64_t at_slice = ports_[slice].pass(t, sectors * sector_bytes_);
    int64_t data = at_slice;
    CacheLine* entry = probed == kUnprobed ? slices_[slice].find(line) : slices_[slice].find_probed(line, probed);
    uint32_t missing = mask;
    if (entry) {
      for (uint32_t present = mask & entry->valid; present; present &= present - 1)
        data = std::max(data, slices_[slice].arrival(*entry, std::countr_zero(present)));  // in flight: merge
      missing &= ~static_cast<uint32_t>(entry->valid);
    }
    stats.l2_sector_accesses += sectors;
    stats.l2_sector_hits += sectors - sector_count(missing);
    if (missing == 0) return data;
    return std::max(data, fill_from_dram(slices_[slice], line, entry, missing, at_slice, stats));
  }
  // A hint that `line` is read or written soon; returns where it is, for read()'s `probed`.
  int prefetch(uint64_t line) const { return prefetch_at(static_cast<size_t>(slice_of(line)), line); }
  int prefetch_at(size_t slice, uint64_t line) const { return slices_[slice].probe(line); }
  // Sectors `mask` of `line` written at its slice from cycle `t`: returns when written.
  int64_t write(uint64_t line, uint32_t mask, int64_t t, GpuStats& stats);
  // SectoredTagArray::rebase_times, in every slice.
  void rebase_times(int64_t now) {
    for (SectoredTagArray& s : slices_) s.rebase_times(now);
  }
  // End of kernel: counts the sectors still dirty as DRAM writes.
  void write_back_dirty(GpuStats& stats) const;

  int slice_of(uint64_t line) const { return slices_of_.unit_of(line); }

 private:
  // Reads sectors `missing` of `line` (resident at `entry`, or nullptr) from DRAM at
  // `at_slice`, allocating the line if needed: returns when they are in the slice.
  int64_t fill_from_dram(SectoredTagArray& tags, uint64_t line, CacheLine* entry, uint32_t missing, int64_t at_slice,
                         GpuStats& stats);
  // Writes the dirty sectors of an evicted line back to DRAM.
  void write_back(uint64_t line, uint8_t dirty, int64_t t, GpuStats& stats);

  std::vector<SectoredTagArray> slices_;
  std::vector<BandwidthServer> ports_;
  Interleave slices_of_;
  Dram dram_;
  int sector_bytes_ = 32;
};

}  // namespace loom::simt
