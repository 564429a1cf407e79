// The tag arrays' way scan (arch/simt/timing/way_scan.h): the portable, the chosen, the
// AVX2 and the AVX-512 versions against a plain reference, for every set size up to 80 ways
// and larger ones up to 256 (groups of 16, tails, more than 64 and more than 128), every
// starting way, and repeated and colliding fingerprints, with the padding past the set
// filled with values that would be wrong answers.
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

}  // namespace

TEST_CASE("simt way scan: every version finds the reference's fingerprint") {
  std::vector<FindPrintFn> finds{&find_print_portable, find_print};
  if (loom::host_has_avx2()) finds.push_back(&find_print_avx2);
  if (loom::host_has_avx512bw()) finds.push_back(&find_print_avx512);
  std::mt19937_64 rng(3);
  int checked = 0;
  std::vector<int> sizes;
  for (int ways = 1; ways <= 80; ++ways) sizes.push_back(ways);
  for (int ways : {96, 112, 127, 128, 129, 144, 200, 224, 255, 256}) sizes.push_back(ways);
  for (int ways : sizes)
    for (int trial = 0; trial < 40; ++trial) {
      const size_t padded = static_cast<size_t>(padded_ways(ways));
      // Few distinct fingerprints, so matches repeat; the padding holds the one searched for,
      // except at its first way, so that a version reading past the set would answer a way
      // after `ways` rather than `ways` itself.
      const auto alphabet = static_cast<uint16_t>(1 + rng() % 6);
      std::vector<uint16_t> prints(padded);
      for (uint16_t& p : prints) p = static_cast<uint16_t>(rng() % alphabet);
      const auto print = static_cast<uint16_t>(rng() % alphabet);
      for (size_t w = static_cast<size_t>(ways); w < padded; ++w)
        prints[w] = w == static_cast<size_t>(ways) ? static_cast<uint16_t>(print + 1) : print;
      CAPTURE(ways);
      CAPTURE(trial);
      for (int from = 0; from <= ways; ++from)
        for (FindPrintFn find : finds) {
          CHECK(find(prints.data(), from, ways, print) == first_match(prints, from, ways, print));
          ++checked;
        }
    }
  CHECK(checked > 100000);
}

TEST_CASE("simt way scan: a single match is found at every way, from the first way") {
  // A lookup scans from way 0, and a streaming kernel's match (or none) is anywhere in the
  // set: every position of one match, and none, for every set size, in every version.
  std::vector<FindPrintFn> finds{&find_print_portable, find_print};
  if (loom::host_has_avx2()) finds.push_back(&find_print_avx2);
  if (loom::host_has_avx512bw()) finds.push_back(&find_print_avx512);
  const uint16_t print = 7, other = 9;
  for (int ways = 1; ways <= 256; ++ways) {
    const auto padded = static_cast<size_t>(padded_ways(ways));
    for (int at = 0; at <= ways; ++at) {  // at == ways: no match in the set
      std::vector<uint16_t> prints(padded, other);
      for (size_t w = static_cast<size_t>(ways); w < padded; ++w) prints[w] = print;  // padding: wrong answers
      if (at < ways) prints[static_cast<size_t>(at)] = print;
      CAPTURE(ways);
      CAPTURE(at);
      for (FindPrintFn find : finds) CHECK(find(prints.data(), 0, ways, print) == at);
    }
  }
}

TEST_CASE("simt way scan: the scan of many keys at once answers as one scan per key") {
  // find_prints against find_print from way 0, for every set size up to 80 ways and larger
  // ones past the 256 the AVX-512 version keeps in registers (its fallback), 0 to 32 keys:
  // keys found once, found several times, absent, and equal to what the padding holds.
  std::vector<FindPrintsFn> finds{&find_prints_portable, find_prints};
  if (loom::host_has_avx512bw()) finds.push_back(&find_prints_avx512);
  std::mt19937_64 rng(5);
  std::vector<int> sizes;
  for (int ways = 1; ways <= 80; ++ways) sizes.push_back(ways);
  for (int ways : {96, 127, 128, 129, 191, 192, 200, 240, 255, 256, 257, 300}) sizes.push_back(ways);
  int checked = 0, absent = 0;
  for (int ways : sizes)
    for (int trial = 0; trial < 12; ++trial) {
      const size_t padded = static_cast<size_t>(padded_ways(ways));
      const auto alphabet = static_cast<uint16_t>(2 + rng() % (trial < 6 ? 8 : 600));
      std::vector<uint16_t> prints(padded);
      for (uint16_t& p : prints) p = static_cast<uint16_t>(1 + rng() % alphabet);
      const auto n = static_cast<int>(rng() % 33);
      std::vector<uint16_t> keys(static_cast<size_t>(n));
      for (uint16_t& k : keys) k = static_cast<uint16_t>(1 + rng() % (alphabet + 2));
      // The padding holds the first key, except at its first way (whose index is the answer
      // for an absent key), so a version answering from past the set is caught.
      for (size_t w = static_cast<size_t>(ways); w < padded && n > 0; ++w)
        prints[w] = w == static_cast<size_t>(ways) ? static_cast<uint16_t>(keys[0] + 1) : keys[0];
      CAPTURE(ways);
      CAPTURE(trial);
      for (FindPrintsFn find : finds) {
        std::vector<int> out(static_cast<size_t>(n), -1);
        find(prints.data(), ways, keys.data(), n, out.data(), WayHints{});
        for (int i = 0; i < n; ++i) {
          const int expected = first_match(prints, 0, ways, keys[static_cast<size_t>(i)]);
          CHECK(out[static_cast<size_t>(i)] == expected);
          absent += expected == ways;
          ++checked;
        }
      }
    }
  CHECK(checked > 20000);
  CHECK(absent > checked / 10);
}
