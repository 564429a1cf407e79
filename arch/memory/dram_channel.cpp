#include "arch/memory/dram_channel.h"

#include <algorithm>
#include <cmath>

namespace loom {

DramChannel::DramChannel(sc_core::sc_module_name name) : sc_core::sc_module(name) {}

void DramChannel::configure(bool unlimited, double bytes_per_cycle, int64_t latency_cycles) {
  unlimited_ = unlimited;
  bytes_per_cycle_ = bytes_per_cycle;
  latency_ = latency_cycles;
}

void DramChannel::begin_window(int64_t origin) {
  origin_ = origin;
  free_at_ = std::max(free_at_, origin);
  read_bytes_ = write_bytes_ = 0;
  window_bytes_.clear();
}

int64_t DramChannel::transfer(int64_t now, int64_t bytes, bool is_write) {
  if (bytes <= 0) return now;
  (is_write ? write_bytes_ : read_bytes_) += bytes;
  if (unlimited_) {
    add_to_windows(now, 0, bytes);
    return now;
  }
  const int64_t start = std::max(now, free_at_);
  const auto occupancy = static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / bytes_per_cycle_));
  free_at_ = start + occupancy;
  add_to_windows(start, occupancy, bytes);
  return free_at_ + latency_;
}

void DramChannel::add_to_windows(int64_t start, int64_t occupancy, int64_t bytes) {
  const int64_t w = kPeakWindowCycles;
  const int64_t rel = start - origin_;
  const int64_t first = rel / w;
  const int64_t last = occupancy > 0 ? (rel + occupancy - 1) / w : first;
  if (static_cast<int64_t>(window_bytes_.size()) <= last) window_bytes_.resize(static_cast<size_t>(last + 1), 0.0);
  if (occupancy == 0) {
    window_bytes_[static_cast<size_t>(first)] += static_cast<double>(bytes);
    return;
  }
  // Spread the bytes evenly over the cycles the transfer occupies the channel.
  const double per_cycle = static_cast<double>(bytes) / static_cast<double>(occupancy);
  for (int64_t b = first; b <= last; ++b) {
    const int64_t lo = std::max(rel, b * w), hi = std::min(rel + occupancy, (b + 1) * w);
    window_bytes_[static_cast<size_t>(b)] += per_cycle * static_cast<double>(hi - lo);
  }
}

double DramChannel::peak_bytes_per_cycle(int64_t end) const {
  double peak = 0;
  const int64_t span = std::max<int64_t>(1, end - origin_);
  for (size_t b = 0; b < window_bytes_.size(); ++b) {
    const int64_t lo = static_cast<int64_t>(b) * kPeakWindowCycles;
    const int64_t len = std::max<int64_t>(1, std::min(kPeakWindowCycles, span - lo));
    peak = std::max(peak, window_bytes_[b] / static_cast<double>(len));
  }
  return peak;
}

}  // namespace loom
