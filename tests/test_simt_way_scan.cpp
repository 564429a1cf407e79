// The tag arrays' way scans (arch/simt/timing/way_scan.h): the portable, the chosen and the
// AVX2 versions against plain references, for every set size up to 80 ways (groups of 16,
// tails, more than 64), every starting way, repeated and colliding fingerprints, and stamps
// anywhere in [0, 2^32), with the padding past the set filled with values that would be
// wrong answers.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "arch/simt/timing/way_scan.h"
#include "sim/host_cpu.h"

using namespace loom::simt;

namespace {

int first_match(const std::vector<uint16_t>& prints, int from, int ways, uint16_t print) {
  for (int w = from; w < ways; ++w)
    if (prints[static_cast<size_t>(w)] == print) return w;
  return ways;
}

int first_least(const std::vector<uint32_t>& stamps, int ways) {
  int best = 0;
  for (int w = 0; w < ways; ++w)
    if (stamps[static_cast<size_t>(w)] < stamps[static_cast<size_t>(best)]) best = w;
  return best;
}

}  // namespace

TEST_CASE("simt way scan: every version finds the reference's fingerprint and oldest way") {
  std::vector<FindPrintFn> finds{&find_print_portable, find_print};
  std::vector<OldestWayFn> oldest{&oldest_way_portable, oldest_way};
  if (loom::host_has_avx2()) {
    finds.push_back(&find_print_avx2);
    oldest.push_back(&oldest_way_avx2);
  }
  std::mt19937_64 rng(3);
  int checked = 0;
  for (int ways = 1; ways <= 80; ++ways)
    for (int trial = 0; trial < 40; ++trial) {
      const size_t padded = static_cast<size_t>(padded_ways(ways));
      // Few distinct fingerprints, so matches repeat; the padding holds the one searched for.
      const auto alphabet = static_cast<uint16_t>(1 + rng() % 6);
      std::vector<uint16_t> prints(padded);
      for (uint16_t& p : prints) p = static_cast<uint16_t>(rng() % alphabet);
      const auto print = static_cast<uint16_t>(rng() % alphabet);
      for (size_t w = static_cast<size_t>(ways); w < padded; ++w) prints[w] = print;
      // Stamps: unique or not, small or near 2^32; the padding holds 0, below all of them.
      std::vector<uint32_t> stamps(padded, 0);
      for (int w = 0; w < ways; ++w)
        stamps[static_cast<size_t>(w)] = trial % 2 ? static_cast<uint32_t>(rng()) : static_cast<uint32_t>(1 + rng() % 8);
      CAPTURE(ways);
      CAPTURE(trial);
      for (int from = 0; from <= ways; ++from)
        for (FindPrintFn find : finds) {
          CHECK(find(prints.data(), from, ways, print) == first_match(prints, from, ways, print));
          ++checked;
        }
      for (OldestWayFn f : oldest) CHECK(f(stamps.data(), ways) == first_least(stamps, ways));
    }
  CHECK(checked > 100000);
}
