// sim/huge_page_arena.h: blocks aligned and counted, a freed block handed out again for its
// size, sizes above a chunk served, the arena starting over once empty, and vectors of it
// behaving as vectors (copies, moves, growth) from several threads at once.
#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#include "sim/huge_page_arena.h"

using loom::HugePageVector;
using loom::huge_page_arena_allocate;
using loom::huge_page_arena_free;
using loom::huge_page_arena_use;

TEST_CASE("huge page arena: blocks aligned to a host cache line, with or without the arena") {
  // Under AddressSanitizer operator new serves the blocks, and must align them as well:
  // the cache tag arrays hold 32-byte-aligned lines (UBSan caught 16-byte ones).
  struct alignas(32) Line {
    uint64_t words[4] = {};
  };
  for (size_t n : {size_t{1}, size_t{3}, size_t{1000}}) {
    HugePageVector<Line> lines(n);
    CHECK(reinterpret_cast<uintptr_t>(lines.data()) % loom::kHugePageArenaAlignment == 0);
  }
  void* p = huge_page_arena_allocate(24);
  CHECK(reinterpret_cast<uintptr_t>(p) % loom::kHugePageArenaAlignment == 0);
  huge_page_arena_free(p, 24);
}

TEST_CASE("huge page arena: aligned, counted and reused blocks; big blocks; vectors from several threads") {
  if (!loom::huge_page_arena_enabled()) return;  // AddressSanitizer: operator new serves every block
  const size_t live_before = huge_page_arena_use().live_bytes;

  void* a = huge_page_arena_allocate(1000);  // rounded up to 1,024
  void* b = huge_page_arena_allocate(1);     // 64
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  CHECK(reinterpret_cast<uintptr_t>(b) % 64 == 0);
  CHECK(a != b);
  CHECK(huge_page_arena_use().live_bytes == live_before + 1024 + 64);
  huge_page_arena_free(a, 1000);
  CHECK(huge_page_arena_use().live_bytes == live_before + 64);
  void* again = huge_page_arena_allocate(1000);
  CHECK(again == a);  // the freed block of that size
  void* other = huge_page_arena_allocate(2000);
  CHECK(other != a);
  huge_page_arena_free(other, 2000);
  huge_page_arena_free(again, 1000);
  huge_page_arena_free(b, 1);
  CHECK(huge_page_arena_use().live_bytes == live_before);

  // A block larger than a chunk gets a chunk of its own, and all of it is writable.
  const size_t big = size_t{40} << 20;
  auto* p = static_cast<uint8_t*>(huge_page_arena_allocate(big));
  p[0] = 1;
  p[big - 1] = 2;
  CHECK(huge_page_arena_use().reserved_bytes >= big);
  huge_page_arena_free(p, big);
  CHECK(huge_page_arena_use().live_bytes == live_before);
  if (live_before == 0) {
    // Emptied, the arena starts over in its first chunk and lets the others go.
    CHECK(huge_page_arena_use().reserved_bytes < big);
  }

  // Vectors on the arena from four threads at once: contents intact, nothing left live.
  std::vector<std::thread> threads;
  std::vector<int64_t> sums(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &sums] {
      int64_t sum = 0;
      for (int round = 0; round < 200; ++round) {
        HugePageVector<int> v;
        for (int i = 0; i < 1000 + round; ++i) v.push_back(i + t);  // grows: allocates and frees
        HugePageVector<int> copy = v;
        HugePageVector<int> moved = std::move(copy);
        sum += std::accumulate(moved.begin(), moved.end(), int64_t{0});
      }
      sums[static_cast<size_t>(t)] = sum;
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < 4; ++t) {
    int64_t expected = 0;
    for (int round = 0; round < 200; ++round) {
      const int64_t n = 1000 + round;
      expected += n * (n - 1) / 2 + n * t;
    }
    CHECK(sums[static_cast<size_t>(t)] == expected);
  }
  CHECK(huge_page_arena_use().live_bytes == live_before);
}
