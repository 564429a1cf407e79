#include "arch/simt/timing/dram.h"

namespace loom::simt {

void Dram::configure(const GpuConfig& c) {
  channels_.resize(static_cast<size_t>(c.dram_channels));
  for (BandwidthServer& ch : channels_) ch.reset(c.dram_bytes_per_cycle() / c.dram_channels);
  channels_of_ = Interleave(c.dram_channels);
  latency_ = c.dram_latency;
}

int64_t Dram::read(uint64_t line, int64_t t, int bytes) {
  return channels_[static_cast<size_t>(channel_of(line))].pass(t, bytes) + latency_;
}

void Dram::write(uint64_t line, int64_t t, int bytes) {
  channels_[static_cast<size_t>(channel_of(line))].pass(t, bytes);
}

}  // namespace loom::simt
