// The PE-level systolic model: functional correctness against Eigen and a direct
// convolution, and exact agreement of its stepped cycle / MAC / SRAM counts with the
// closed-form fold_cost() summed over plan_folds().
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arch/systolic/fold_plan.h"
#include "arch/systolic/pe_array_model.h"
#include "workloads/im2col.h"

using namespace loom;

namespace {

const Dataflow kDataflows[] = {Dataflow::ws, Dataflow::is, Dataflow::os};

std::string describe(const ArrayGeometry& g, int64_t m, int64_t n, int64_t k, int64_t groups) {
  return std::string(name_of(g.dataflow)) + (g.scalesim_compat ? " compat " : " native ") +
         std::to_string(g.rows) + "x" + std::to_string(g.cols) + " M=" + std::to_string(m) +
         " N=" + std::to_string(n) + " K=" + std::to_string(k) + " groups=" + std::to_string(groups);
}

IntMatrix random_matrix(std::mt19937_64& rng, int64_t r, int64_t c) {
  std::uniform_int_distribution<int64_t> v(-50, 50);
  IntMatrix m(r, c);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) m(i, j) = v(rng);
  return m;
}

std::vector<int64_t> random_vector(std::mt19937_64& rng, int64_t n) {
  std::uniform_int_distribution<int64_t> v(-20, 20);
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (auto& x : out) x = v(rng);
  return out;
}

FoldCost summed_fold_cost(const GemmView& g, const ArrayGeometry& geo) {
  FoldCost total;
  for (const Fold& f : plan_folds(g, geo)) {
    const FoldCost c = fold_cost(f, geo);
    total.cycles += c.cycles;
    total.macs += c.macs;
    total.sram += c.sram;
  }
  return total;
}

// Runs the PE-level model and checks outputs against Eigen and counts against fold_cost.
// Returns false (after reporting through doctest) on any mismatch.
bool check_gemm(const ArrayGeometry& geo, const std::vector<IntMatrix>& a,
                const std::vector<IntMatrix>& b) {
  const int64_t m = a[0].rows(), k = a[0].cols(), n = b[0].cols();
  const int64_t groups = static_cast<int64_t>(a.size());
  INFO(describe(geo, m, n, k, groups));
  const PeLevelResult r = run_pe_level(geo, a, b);
  bool ok = r.outputs.size() == a.size();
  for (size_t g = 0; ok && g < a.size(); ++g) ok = r.outputs[g] == a[g] * b[g];
  const FoldCost want = summed_fold_cost(GemmView{m, n, k, groups}, geo);
  CHECK(ok);
  CHECK(r.cycles == want.cycles);
  CHECK(r.macs == want.macs);
  CHECK(r.macs == m * n * k * groups);
  CHECK(r.sram.ifmap_reads == want.sram.ifmap_reads);
  CHECK(r.sram.filter_reads == want.sram.filter_reads);
  CHECK(r.sram.ofmap_reads == want.sram.ofmap_reads);
  CHECK(r.sram.ofmap_writes == want.sram.ofmap_writes);
  return ok && r.cycles == want.cycles && r.macs == want.macs && r.sram == want.sram;
}

Layer random_conv(std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (;;) {
    Layer l;
    l.kind = LayerKind::conv2d;
    l.batch = pick(1, 2);
    Conv2d& c = l.conv;
    const int64_t mode = pick(0, 2);  // 0 dense, 1 grouped, 2 depthwise
    c.groups = mode == 0 ? 1 : pick(2, 4);
    c.in_channels = mode == 2 ? c.groups : c.groups * pick(1, 3);
    c.out_channels = c.groups * (mode == 2 ? pick(1, 2) : pick(1, 4));
    c.in_h = pick(1, 9);
    c.in_w = pick(1, 9);
    c.kernel_h = pick(1, 3);
    c.kernel_w = pick(1, 3);
    c.stride_h = pick(1, 3);
    c.stride_w = pick(1, 3);
    c.pad_h = pick(0, 2);
    c.pad_w = pick(0, 2);
    c.dilation_h = pick(1, 2);
    c.dilation_w = pick(1, 2);
    std::string field;
    if (shape_error(l, &field).empty()) return l;
  }
}

}  // namespace

TEST_CASE("pe-level: hand-computed cycle counts") {
  std::mt19937_64 rng(7);
  auto run = [&](Dataflow d, bool compat, int64_t R, int64_t C, int64_t m, int64_t n,
                 int64_t k) {
    const ArrayGeometry geo{R, C, d, compat};
    const std::vector<IntMatrix> a{random_matrix(rng, m, k)}, b{random_matrix(rng, k, n)};
    PeLevelResult r = run_pe_level(geo, a, b);
    CHECK(r.outputs[0] == a[0] * b[0]);
    return r;
  };
  // ws 4x4, M=5 N=3 K=2: preload 2 + stream 5 + ripple 4 + columns 3 - 2.
  PeLevelResult r = run(Dataflow::ws, false, 4, 4, 5, 3, 2);
  CHECK(r.cycles == 12);
  CHECK(r.macs == 30);
  CHECK(r.sram == SramAccesses{10, 6, 0, 15});
  // Same under SCALE-Sim's convention: full-array preload and column skew: 4 + 5 + 4 + 4 - 2.
  r = run(Dataflow::ws, true, 4, 4, 5, 3, 2);
  CHECK(r.cycles == 15);
  CHECK(r.sram == SramAccesses{10, 6, 0, 15});
  // os 4x4, M=3 N=2 K=5: 5 + 3 + 2 - 2 compute, 4 drain.
  r = run(Dataflow::os, false, 4, 4, 3, 2, 5);
  CHECK(r.cycles == 12);
  CHECK(r.sram == SramAccesses{15, 10, 0, 6});
  r = run(Dataflow::os, true, 4, 4, 3, 2, 5);  // 5 + 4 + 4 - 2, no drain
  CHECK(r.cycles == 11);
  // is 4x4, M=5 N=3 K=2: two column folds (4 and 1 columns of M), T = N = 3.
  // (2 + 3 + 4 + 4 - 2) + (2 + 3 + 4 + 1 - 2) = 11 + 8.
  r = run(Dataflow::is, false, 4, 4, 5, 3, 2);
  CHECK(r.cycles == 19);
  CHECK(r.sram == SramAccesses{10, 12, 0, 15});
  // ws 2x2, M=3 N=2 K=5: three K folds (2, 2, 1 rows) accumulate in the ofmap buffer.
  // (2+3+2+2-2) * 2 + (1+3+2+2-2) = 20; two non-first folds read 3*2 partial sums each.
  r = run(Dataflow::ws, false, 2, 2, 3, 2, 5);
  CHECK(r.cycles == 20);
  CHECK(r.sram == SramAccesses{15, 10, 12, 18});
  r = run(Dataflow::ws, true, 2, 2, 3, 2, 5);  // compat: 3 * 7, no read-back counted
  CHECK(r.cycles == 21);
  CHECK(r.sram == SramAccesses{15, 10, 0, 18});
  // 1x1 array: preload 1, stream 1, ripple 1, column 1, minus 2.
  r = run(Dataflow::ws, false, 1, 1, 1, 1, 1);
  CHECK(r.cycles == 2);
  r = run(Dataflow::os, false, 1, 1, 1, 1, 1);  // 1 + 1 + 1 - 2 compute, 1 drain
  CHECK(r.cycles == 2);
}

TEST_CASE("pe-level: outputs and counts equal Eigen and fold_cost on random GEMMs") {
  std::mt19937_64 rng(0x5eed'10a4ULL);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  constexpr int kShapesPerCase = 200;
  int checked = 0, failed = 0;
  for (Dataflow d : kDataflows) {
    for (bool compat : {false, true}) {
      for (int i = 0; i < kShapesPerCase; ++i) {
        ArrayGeometry geo;
        geo.dataflow = d;
        geo.scalesim_compat = compat;
        geo.rows = pick(1, 16);
        geo.cols = i % 4 == 0 ? geo.rows : pick(1, 16);  // a quarter square
        // Dimensions up to ~2.5 array extents so shapes span one and several folds,
        // including exact multiples; capped to keep the test fast.
        const int64_t ext = std::max(geo.rows, geo.cols);
        const int64_t hi = std::min<int64_t>(40, ext * 5 / 2 + 2);
        const int64_t m = pick(1, hi), n = pick(1, hi), k = pick(1, hi);
        const int64_t groups = pick(1, 3);
        std::vector<IntMatrix> a, b;
        for (int64_t g = 0; g < groups; ++g) {
          a.push_back(random_matrix(rng, m, k));
          b.push_back(random_matrix(rng, k, n));
        }
        ++checked;
        if (!check_gemm(geo, a, b)) ++failed;
      }
    }
  }
  MESSAGE("random GEMM cases checked: " << checked << ", failed: " << failed);
  CHECK(checked == 6 * kShapesPerCase);
  CHECK(failed == 0);
}

TEST_CASE("pe-level: exact-multiple and edge shapes") {
  std::mt19937_64 rng(99);
  int failed = 0;
  for (Dataflow d : kDataflows)
    for (bool compat : {false, true})
      for (auto [R, C] : {std::pair<int64_t, int64_t>{1, 1}, {1, 16}, {16, 1}, {4, 4}, {8, 3},
                          {3, 8}, {16, 16}}) {
        const ArrayGeometry geo{R, C, d, compat};
        for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1},
                               {R, C, R}, {C, R, C}, {2 * R, 2 * C, 2 * R}, {R + 1, C + 1, R + 1},
                               {2 * C, 3 * R, 2 * C}}) {
          const std::vector<IntMatrix> a{random_matrix(rng, m, k)}, b{random_matrix(rng, k, n)};
          if (!check_gemm(geo, a, b)) ++failed;
        }
      }
  CHECK(failed == 0);
}

TEST_CASE("pe-level: im2col lowering matches the direct convolution") {
  std::mt19937_64 rng(2024);
  for (int i = 0; i < 100; ++i) {
    const Layer l = random_conv(rng);
    const auto ifmap = random_vector(rng, l.ifmap_elements());
    const auto weights = random_vector(rng, l.filter_elements());
    const auto a = im2col(l, ifmap);
    const auto b = filter_matrices(l, weights);
    const auto ref = reference_conv2d(l, ifmap, weights);
    const GemmView g = l.gemm_view();
    REQUIRE(static_cast<int64_t>(a.size()) == g.groups);
    for (size_t grp = 0; grp < a.size(); ++grp) {
      CHECK(a[grp].rows() == g.m);
      CHECK(a[grp].cols() == g.k);
      CHECK(b[grp].rows() == g.k);
      CHECK(b[grp].cols() == g.n);
      CHECK(a[grp] * b[grp] == ref[grp]);
    }
    CHECK(static_cast<int64_t>(ofmap_tensor(l, ref).size()) == l.ofmap_elements());
  }
  // A hand case: 1 channel 3x3 input, 2x2 kernel of ones, padding 1, stride 2.
  Layer l;
  l.kind = LayerKind::conv2d;
  l.conv = Conv2d{3, 3, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 1};
  const std::vector<int64_t> x{1, 2, 3, 4, 5, 6, 7, 8, 9}, w{1, 1, 1, 1};
  const auto out = ofmap_tensor(l, reference_conv2d(l, x, w));
  CHECK(out == std::vector<int64_t>{1, 5, 11, 28});
  // GEMM layers just reshape.
  Layer gl;
  gl.kind = LayerKind::gemm;
  gl.batch = 2;
  gl.gemm = Gemm{2, 3, 4, 2};
  const auto gx = random_vector(rng, gl.ifmap_elements());
  const auto gw = random_vector(rng, gl.filter_elements());
  const auto ga = im2col(gl, gx), gb = filter_matrices(gl, gw);
  const auto gref = reference_conv2d(gl, gx, gw);
  REQUIRE(ga.size() == 2);
  CHECK(ga[1](3, 2) == gx[(1 * 4 + 3) * 4 + 2]);
  CHECK(gb[1](2, 1) == gw[(1 * 4 + 2) * 3 + 1]);
  for (size_t grp = 0; grp < 2; ++grp) CHECK(ga[grp] * gb[grp] == gref[grp]);
  CHECK(ofmap_tensor(gl, gref).size() == static_cast<size_t>(gl.ofmap_elements()));
}

TEST_CASE("pe-level: random conv layers on the array equal the direct convolution") {
  std::mt19937_64 rng(31337);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int checked = 0, failed = 0;
  for (Dataflow d : kDataflows) {
    for (bool compat : {false, true}) {
      for (int i = 0; i < 25; ++i) {
        const Layer l = random_conv(rng);
        const ArrayGeometry geo{pick(1, 16), pick(1, 16), d, compat};
        const auto ifmap = random_vector(rng, l.ifmap_elements());
        const auto weights = random_vector(rng, l.filter_elements());
        const auto ref = reference_conv2d(l, ifmap, weights);
        const auto a = im2col(l, ifmap), b = filter_matrices(l, weights);
        const PeLevelResult r = run_pe_level(geo, a, b);
        const GemmView g = l.gemm_view();
        INFO(describe(geo, g.m, g.n, g.k, g.groups));
        bool ok = r.outputs.size() == ref.size();
        for (size_t grp = 0; ok && grp < ref.size(); ++grp) ok = r.outputs[grp] == ref[grp];
        const FoldCost want = summed_fold_cost(g, geo);
        ok = ok && r.cycles == want.cycles && r.macs == l.macs() && r.sram == want.sram;
        CHECK(ok);
        ++checked;
        if (!ok) ++failed;
      }
    }
  }
  MESSAGE("random conv cases checked: " << checked << ", failed: " << failed);
  CHECK(failed == 0);
}
