// SectoredTagArray::probe_all, the L1's probe of a multi-line load in one pass over a set's
// fingerprints (sectored_tag_array.h): the ways it answers are probe()'s, line by line, in
// arrays of 1 to 300 ways and 1 to 4 sets (indices by shift and mask, and by division),
// for lists of lines in one set (the one-pass case: resident lines, absent ones, the set's
// newest, repeats) and across sets (line by line), of up to 80 lines (chunks of 32).
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "arch/simt/timing/sectored_tag_array.h"

using namespace loom::simt;

TEST_CASE("simt timing: probing a load's lines together answers as probing each") {
  int one_set_lists = 0, resident = 0, absent = 0;
  for (int ways : {1, 4, 24, 64, 128, 256, 300})
    for (int sets : {1, 2, 3, 4}) {
      CAPTURE(ways);
      CAPTURE(sets);
      SectoredTagArray tags;
      tags.configure(int64_t{sets} * ways * 128, 128, ways, 1);
      std::mt19937_64 rng(static_cast<uint64_t>(ways * 7 + sets));
      const uint64_t span = static_cast<uint64_t>(2 * sets * ways + 8);
      for (int round = 0; round < 60; ++round) {
        // Fill and touch some lines, so sets are partly or wholly filled and have a newest way.
        for (int f = 0; f < ways / 2 + 3; ++f) {
          const uint64_t line = rng() % span;
          if (!tags.find(line)) {
            uint64_t evicted = 0;
            uint8_t dirty = 0;
            tags.allocate(line, evicted, dirty);
          }
        }
        const bool one_set = round % 3 != 2;
        const int n = static_cast<int>(rng() % 81);
        const uint64_t set = rng() % static_cast<uint64_t>(sets);
        std::vector<uint64_t> lines(static_cast<size_t>(n));
        for (uint64_t& line : lines) {
          line = rng() % span;
          if (one_set) line = line / static_cast<uint64_t>(sets) * static_cast<uint64_t>(sets) + set;
        }
        one_set_lists += one_set && n > 1;
        std::vector<int> together(static_cast<size_t>(n), -2);
        tags.probe_all(lines.data(), n, together.data());
        for (int i = 0; i < n; ++i) {
          const int alone = tags.probe(lines[static_cast<size_t>(i)]);
          CHECK(together[static_cast<size_t>(i)] == alone);
          (alone == SectoredTagArray::kAbsent ? absent : resident) += 1;
        }
      }
    }
  CHECK(one_set_lists > 500);
  CHECK(resident > 10000);
  CHECK(absent > 10000);
}
