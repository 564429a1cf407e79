// The network between the SMs and the L2 slices: noc_latency cycles each way, and per SM
// one port each way moving noc_bytes_per_cycle_per_sm. Store data crosses the SM's
// request port; load data crosses its response port; a load request itself is a small
// header and is not charged bandwidth. (Slices are not a NoC bottleneck here: each slice
// has its own bandwidth in l2_cache.h.)
#pragma once

#include <cstdint>
#include <vector>

#include "arch/simt/timing/bandwidth_server.h"

namespace loom::simt {

class Interconnect {
 public:
  void configure(int sms, int latency, double bytes_per_cycle_per_sm) {
    latency_ = latency;
    to_l2_.resize(static_cast<size_t>(sms));
    to_sm_.resize(static_cast<size_t>(sms));
    for (BandwidthServer& p : to_l2_) p.reset(bytes_per_cycle_per_sm);
    for (BandwidthServer& p : to_sm_) p.reset(bytes_per_cycle_per_sm);
  }

  // A request leaving SM `sm` at `t` with `data_bytes` of store data: arrival at the L2.
  int64_t to_l2(int sm, int64_t t, double data_bytes) {
    if (data_bytes <= 0) return t + latency_;
    return to_l2_[static_cast<size_t>(sm)].pass(t, data_bytes) + latency_;
  }
  // `bytes` of data leaving the L2 for SM `sm` at `t`: arrival at the SM.
  int64_t to_sm(int sm, int64_t t, double bytes) { return to_sm_[static_cast<size_t>(sm)].pass(t + latency_, bytes); }

 private:
  int latency_ = 0;
  std::vector<BandwidthServer> to_l2_, to_sm_;
};

}  // namespace loom::simt
