#include "sweep/random_sample.h"

#include <unordered_set>

namespace loom {

std::vector<int64_t> random_sample(int64_t space, int64_t samples, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(samples));
  if (samples * 2 > space) {
    // Dense: a partial Fisher-Yates shuffle of the whole space (bounded by the spec's limits).
    std::vector<int64_t> all(static_cast<size_t>(space));
    for (int64_t i = 0; i < space; ++i) all[i] = i;
    for (int64_t i = 0; i < samples; ++i) {
      std::swap(all[i], all[i + draw_below(rng, space - i)]);
      out.push_back(all[i]);
    }
    return out;
  }
  // Sparse: rejection of repeats; fewer than two draws per sample on average.
  std::unordered_set<int64_t> seen;
  while (static_cast<int64_t>(out.size()) < samples) {
    const int64_t x = draw_below(rng, space);
    if (seen.insert(x).second) out.push_back(x);
  }
  return out;
}

}  // namespace loom
