// The L2: l2_slices slices, interleaved by line (address_interleave.h), each a sectored LRU
// tag array (l2_associativity ways) behind a port of l2_bytes_per_cycle_per_slice. Reads
// that miss fetch only their missing sectors from DRAM; a sector still in flight from DRAM
// is merged with. Stores are write-back and write-allocate without a fetch (a partial
// sector write is treated as a whole-sector write); dirty sectors are written to DRAM when
// their line is evicted, and those still dirty when the kernel ends are counted as DRAM
// writes then (untimed: the kernel does not wait for them). A "hit" is a sector that
// needed no DRAM read, so writes always hit.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/timing/address_interleave.h"
#include "arch/simt/timing/bandwidth_server.h"
#include "arch/simt/timing/dram.h"
#include "arch/simt/timing/sectored_tag_array.h"

namespace loom::simt {

class L2Cache {
 public:
  void configure(const GpuConfig& config);

  // Sectors `mask` of L2 line `line` read at its slice from cycle `t`: returns the cycle the
  // data leaves the slice.
  int64_t read(uint64_t line, uint32_t mask, int64_t t, GpuStats& stats);
  // A hint that `line` is read or written soon.
  void prefetch(uint64_t line) const { slices_[static_cast<size_t>(slice_of(line))].probe(line); }
  // Sectors `mask` of `line` written at its slice from cycle `t`: returns when written.
  int64_t write(uint64_t line, uint32_t mask, int64_t t, GpuStats& stats);
  // End of kernel: counts the sectors still dirty as DRAM writes.
  void write_back_dirty(GpuStats& stats) const;

  int slice_of(uint64_t line) const { return slices_of_.unit_of(line); }

 private:
  // Writes the dirty sectors of an evicted line back to DRAM.
  void write_back(uint64_t line, uint8_t dirty, int64_t t, GpuStats& stats);

  std::vector<SectoredTagArray> slices_;
  std::vector<BandwidthServer> ports_;
  Interleave slices_of_;
  Dram dram_;
  int sector_bytes_ = 32;
};

}  // namespace loom::simt
