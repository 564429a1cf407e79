// A DRAM interface as one SystemC module: a FIFO channel with a sustained bandwidth
// (bytes per cycle) and a fixed latency. Transfers are transactions: the caller issues
// one at the current simulation time and learns the cycle its last byte arrives; the
// channel serialises transfers (occupancy = ceil(bytes / bandwidth) cycles) and overlaps
// latency with the next transfer, as a pipelined memory controller does.
#pragma once

#include <cstdint>

#include <systemc>

namespace loom {

class DramChannel : public sc_core::sc_module {
 public:
  explicit DramChannel(sc_core::sc_module_name name);

  // unlimited = ideal memory: every transfer completes the cycle it is issued.
  void configure(bool unlimited, double bytes_per_cycle, int64_t latency_cycles);
  // Starts a new statistics window at cycle `origin` (a layer's start).
  void begin_window(int64_t origin);

  // Issues a transfer at cycle `now`; returns the cycle at which it completes.
  int64_t transfer(int64_t now, int64_t bytes, bool is_write);

  int64_t read_bytes() const { return read_bytes_; }
  int64_t write_bytes() const { return write_bytes_; }
  // Highest mean bandwidth over any aligned window of kPeakWindowCycles cycles, the last
  // window clipped at cycle `end` (so a short layer is not diluted by an empty tail).
  double peak_bytes_per_cycle(int64_t end) const;
  static constexpr int64_t kPeakWindowCycles = 1024;

 private:
  // Transfers start in non-decreasing order (the channel is FIFO), so aligned windows
  // close one after another and the peak can be kept in O(1) memory.
  void add_to_windows(int64_t start, int64_t occupancy, int64_t bytes);

  bool unlimited_ = true;
  double bytes_per_cycle_ = 0;
  int64_t latency_ = 0;
  int64_t free_at_ = 0;  // first cycle the channel can start a new transfer
  int64_t origin_ = 0;
  int64_t read_bytes_ = 0, write_bytes_ = 0;
  int64_t window_index_ = 0;     // the open window
  double window_bytes_ = 0;      // bytes in the open window
  double closed_peak_bytes_ = 0; // most bytes in any closed (full-length) window
};

}  // namespace loom
