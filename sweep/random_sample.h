// Seeded random sampling of distinct point numbers from a design space. Uses its own
// draws from std::mt19937_64 (whose sequence the C++ standard fixes) rather than the
// standard distributions (whose algorithms are left to each library), so the same seed
// gives the same points on every platform.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace loom {

// A number in [0, n) (n > 0); the modulo bias is below 2^-10 for n < 2^54.
inline int64_t draw_below(std::mt19937_64& rng, int64_t n) {
  return static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
}

// `samples` distinct numbers from [0, space), in draw order.
std::vector<int64_t> random_sample(int64_t space, int64_t samples, uint64_t seed);

}  // namespace loom
