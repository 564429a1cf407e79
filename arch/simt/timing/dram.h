// DRAM (HBM / GDDR) as `dram_channels` independent channels, interleaved by L2 line. Each
// channel is a FIFO with dram_bytes_per_cycle()/channels bandwidth; a read's data is back
// in the L2 dram_latency cycles after its last byte has crossed the channel (the latency
// beyond an L2 hit, as the config defines it). Write-backs of dirty L2 sectors take channel
// bandwidth but nobody waits for them.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/timing/address_interleave.h"
#include "arch/simt/timing/bandwidth_server.h"

namespace loom::simt {

class Dram {
 public:
  void configure(const GpuConfig& config);
  // A fill of `bytes` for L2 line `line` requested at cycle `t`: returns when it is in L2.
  int64_t read(uint64_t line, int64_t t, int bytes);
  // A write-back of `bytes` of L2 line `line` starting at `t`.
  void write(uint64_t line, int64_t t, int bytes);
  int channel_of(uint64_t line) const { return channels_of_.unit_of(line); }

 private:
  std::vector<BandwidthServer> channels_;
  Interleave channels_of_;
  int latency_ = 0;
};

}  // namespace loom::simt
