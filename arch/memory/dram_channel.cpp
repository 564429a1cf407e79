#include "arch/memory/dram_channel.h"

#include <algorithm>
#include <cmath>

#include "sim/error.h"

namespace loom {

DramChannel::DramChannel(sc_core::sc_module_name name) : sc_core::sc_module(name) {}

void DramChannel::configure(bool unlimited, double bytes_per_cycle, int64_t latency_cycles) {
  unlimited_ = unlimited;
  bytes_per_cycle_ = bytes_per_cycle;
  latency_ = latency_cycles;
}

void DramChannel::begin_window(int64_t origin) {
  // A window opens when the previous layer has finished all its transfers.
  LOOM_CHECK(free_at_ <= origin, "dram_channel", "statistics window opened while a transfer is in flight");
  origin_ = origin;
  free_at_ = origin;
  read_bytes_ = write_bytes_ = 0;
  window_index_ = 0;
  window_bytes_ = closed_peak_bytes_ = 0;
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
  auto advance_to = [&](int64_t index) {  // close the open window, move to `index`
    if (index == window_index_) return;
    closed_peak_bytes_ = std::max(closed_peak_bytes_, window_bytes_);
    window_index_ = index;
    window_bytes_ = 0;
  };
  advance_to(rel / w);
  if (occupancy == 0) {
    window_bytes_ += static_cast<double>(bytes);
    return;
  }
  // Spread the bytes evenly over the cycles the transfer occupies the channel; windows it
  // covers completely all get the same share, so one of them stands for all.
  const double per_cycle = static_cast<double>(bytes) / static_cast<double>(occupancy);
  const int64_t end = rel + occupancy;
  const int64_t first_end = std::min(end, (window_index_ + 1) * w);
  window_bytes_ += per_cycle * static_cast<double>(first_end - rel);
  if (end <= first_end) return;
  const int64_t last = (end - 1) / w;
  if (last > window_index_ + 1) closed_peak_bytes_ = std::max(closed_peak_bytes_, per_cycle * static_cast<double>(w));
  advance_to(last);
  window_bytes_ = per_cycle * static_cast<double>(end - last * w);
}

double DramChannel::peak_bytes_per_cycle(int64_t end) const {
  // The open window is the last one: clip its length at `end`.
  const int64_t open_len = std::clamp<int64_t>(end - origin_ - window_index_ * kPeakWindowCycles, 1, kPeakWindowCycles);
  return std::max(closed_peak_bytes_ / static_cast<double>(kPeakWindowCycles),
                  window_bytes_ / static_cast<double>(open_len));
}

}  // namespace loom
