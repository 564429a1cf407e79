#include "validate/sweep_plan.h"

#include <algorithm>

namespace loom::validate {

namespace {

constexpr int64_t kChaseStride = 128;

void add_range(std::vector<int64_t>& out, int64_t from, int64_t to, int64_t factor, bool quick) {
  std::vector<int64_t> all;
  for (int64_t v = from; v <= to; v *= factor) all.push_back(v);
  const size_t keep = quick ? (all.size() + 1) / 2 : all.size();
  out.insert(out.end(), all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep));
}

}  // namespace

std::vector<PlannedRun> validation_sweep(const ProbeTarget& target, bool quick) {
  std::vector<PlannedRun> runs;
  std::vector<int64_t> gemm, elements, footprints;
  add_range(gemm, 128, 8192, 2, quick);
  add_range(elements, int64_t{1} << 16, int64_t{1} << 28, 4, quick);
  const int64_t l2 = target.l2_bytes > 0 ? target.l2_bytes : int64_t{4} << 20;
  add_range(footprints, 4096, 4 * l2, 4, quick);
  for (const char* k : {"naive_gemm", "tiled_gemm", "wmma_gemm"})
    for (int64_t s : gemm) runs.push_back({k, {{"M", s}, {"N", s}, {"K", s}}});
  for (const char* k : {"relu_add", "reduction"})
    for (int64_t n : elements) runs.push_back({k, {{"n", n}}});
  for (int64_t n : elements) runs.push_back({"triad", {{"n", n}, {"blocks", 0}}});
  // A fixed number of dependent loads: a footprint below the caches' sizes is walked more
  // than once (hits after the first pass), one above them misses all the way.
  for (int64_t f : footprints)
    runs.push_back({"pointer_chase", {{"footprint", f}, {"stride", kChaseStride}, {"steps", 4096}}});
  // ResNet-50's 3x3 convolutions at batch 1, one per stage, and one 1x1 projection.
  struct Conv {
    int64_t c, hw, k, rs, stride, pad;
  };
  std::vector<Conv> convs{{64, 56, 64, 3, 1, 1}, {128, 28, 128, 3, 1, 1}, {256, 14, 256, 3, 1, 1},
                          {512, 7, 512, 3, 1, 1}, {256, 56, 64, 1, 1, 0}};
  if (quick) convs.resize(2);
  for (const Conv& c : convs)
    runs.push_back({"conv_implicit_gemm",
                    {{"N", 1}, {"C", c.c}, {"H", c.hw}, {"W", c.hw}, {"K", c.k}, {"R", c.rs}, {"S", c.rs},
                     {"stride", c.stride}, {"pad", c.pad}}});
  return runs;
}

std::vector<int64_t> library_gemm_sizes(bool quick) {
  std::vector<int64_t> sizes;
  add_range(sizes, 128, 8192, 2, quick);
  return sizes;
}

}  // namespace loom::validate
