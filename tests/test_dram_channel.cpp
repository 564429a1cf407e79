// The DRAM channel against closed forms (unloaded latency, serialisation) and its O(1)
// peak-bandwidth bookkeeping against a brute-force per-cycle histogram.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "arch/memory/dram_channel.h"
#include "sim/systemc_context.h"

using namespace loom;

namespace {
DramChannel& channel() {
  sim::prepare_systemc();
  static DramChannel c("test_dram");
  return c;
}
// SystemC forbids new modules once the kernel has run, and other test files run
// simulations: registered like the engines, it is built before the kernel first starts.
[[maybe_unused]] const bool channel_registered = (sim::register_engine([] { channel(); }), true);
}  // namespace

TEST_CASE("dram channel: unloaded latency and FIFO serialisation follow the closed form") {
  DramChannel& d = channel();
  d.configure(false, 8.0, 30);
  d.begin_window(1000);
  CHECK(d.transfer(1000, 64, false) == 1000 + 8 + 30);  // 64 B at 8 B/cycle, then latency
  CHECK(d.transfer(1000, 64, true) == 1008 + 8 + 30);   // waits for the first to leave the channel
  CHECK(d.transfer(2000, 1, false) == 2000 + 1 + 30);   // idle channel again; partial cycle rounds up
  CHECK(d.transfer(2100, 0, false) == 2100);            // nothing to move
  CHECK(d.read_bytes() == 65);
  CHECK(d.write_bytes() == 64);
  d.configure(true, 0, 0);
  d.begin_window(3000);
  CHECK(d.transfer(3000, 1 << 20, false) == 3000);  // ideal memory
}

TEST_CASE("dram channel: peak bandwidth equals a brute-force histogram over aligned windows") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    DramChannel& d = channel();
    const double bw = std::uniform_real_distribution<double>(0.5, 64.0)(rng);
    d.configure(false, bw, 0);
    const int64_t origin = int64_t{1000000000} * (trial + 1);  // after the previous trial's traffic
    d.begin_window(origin);
    std::vector<double> per_cycle;  // bytes moved in each cycle since origin
    int64_t now = origin, free_at = origin;
    for (int i = 0; i < 20; ++i) {
      now += std::uniform_int_distribution<int64_t>(0, 3000)(rng);
      const int64_t bytes = std::uniform_int_distribution<int64_t>(1, 40000)(rng);
      d.transfer(now, bytes, i % 3 == 0);
      const int64_t start = std::max(now, free_at);
      const auto occ = static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / bw));
      free_at = start + occ;
      if (static_cast<int64_t>(per_cycle.size()) < free_at - origin) per_cycle.resize(static_cast<size_t>(free_at - origin), 0);
      for (int64_t t = start; t < free_at; ++t) per_cycle[static_cast<size_t>(t - origin)] += static_cast<double>(bytes) / occ;
    }
    const int64_t end = free_at;
    double peak = 0;
    const int64_t w = DramChannel::kPeakWindowCycles;
    for (int64_t lo = 0; lo < end - origin; lo += w) {
      double sum = 0;
      const int64_t hi = std::min<int64_t>(lo + w, end - origin);
      for (int64_t t = lo; t < hi; ++t) sum += per_cycle[static_cast<size_t>(t)];
      peak = std::max(peak, sum / static_cast<double>(hi - lo));
    }
    CAPTURE(trial);
    CHECK(d.peak_bytes_per_cycle(end) == doctest::Approx(peak).epsilon(1e-9));
    CHECK(d.peak_bytes_per_cycle(end) <= bw * (1 + 1e-9));
  }
}
