// The functional PTX model against CPU references: the 8 validation kernels on random inputs
// (fixed seeds, sizes that are not multiples of the tiles where the kernel allows), SIMT
// divergence and reconvergence, barriers, warp shuffles and votes, and the errors a user
// sees for bad launches and bad memory accesses.
#include <doctest/doctest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "arch/simt/ptx/exec_context.h"
#include "arch/simt/ptx/half_float.h"
#include "arch/simt/ptx/kernel_arguments.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/ptx_parser.h"
#include "arch/simt/ptx/run_functional.h"
#include "sim/error.h"

using namespace loom;
using namespace loom::simt;
using KA = KernelArgument;

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::string kernel_path(const std::string& name) { return std::string(LOOM_SOURCE_DIR) + "/validate/kernels/" + name + ".ptx"; }

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

FunctionalRunStats launch(const PtxKernel& kernel, Dim3 grid, Dim3 block, const std::vector<KA>& args, GlobalMemory& memory) {
  LaunchConfig config;
  config.grid = grid;
  config.block = block;
  FunctionalModel model(kernel, config, bind_kernel_arguments(kernel, args), memory);
  return run_functional(model);
}

PtxKernel kernel_from_text(const std::string& text, const std::string& entry = "") {
  return decode_kernel(parse_ptx(text, "test.ptx"), entry);
}

// |got - want| <= tolerance * scale elementwise, where scale is sum |a||b| of the product
// (so cancellation in the sum does not demand impossible relative accuracy).
void check_close(const Matrix& got, const Matrix& want, const Matrix& scale, double tolerance) {
  REQUIRE(got.rows() == want.rows());
  REQUIRE(got.cols() == want.cols());
  int bad = 0;
  for (Eigen::Index i = 0; i < got.rows(); ++i)
    for (Eigen::Index j = 0; j < got.cols(); ++j)
      if (!(std::fabs(got(i, j) - want(i, j)) <= tolerance * scale(i, j))) {
        if (bad++ < 5) MESSAGE("(" << i << "," << j << "): got " << got(i, j) << " want " << want(i, j));
      }
  CHECK(bad == 0);
}

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// A matrix-multiply kernel with the signature (A, B, C, M, N, K).
void check_simt_gemm(const std::string& name, int M, int N, int K) {
  CAPTURE(name);
  const PtxKernel kernel = load_ptx_kernel(kernel_path(name), "");
  GlobalMemory memory;
  const std::vector<float> a = random_floats(static_cast<size_t>(M * K), 11), b = random_floats(static_cast<size_t>(K * N), 12);
  const uint64_t da = memory.upload(a, "A"), db = memory.upload(b, "B"), dc = memory.allocate(uint64_t(M) * N * 4, "C");
  launch(kernel, {ceil_div(N, 16), ceil_div(M, 16), 1}, {16, 16, 1},
         {KA::pointer(da), KA::pointer(db), KA::pointer(dc), KA::integer(M), KA::integer(N), KA::integer(K)}, memory);
  const std::vector<float> c = memory.read<float>(dc, static_cast<size_t>(M * N));
  const Matrix A = Eigen::Map<const Matrix>(a.data(), M, K), B = Eigen::Map<const Matrix>(b.data(), K, N);
  const Matrix C = Eigen::Map<const Matrix>(c.data(), M, N);
  // fp32, K <= 64: the kernel's fma chain and Eigen's blocked sum each err by at most about
  // K * 2^-24 * sum|a||b| (< 4e-6 of it); allow 1e-5.
  check_close(C, A * B, A.cwiseAbs() * B.cwiseAbs(), 1e-5);
}

}  // namespace

TEST_CASE("simt functional: naive_gemm matches Eigen on non-multiple-of-16 sizes") { check_simt_gemm("naive_gemm", 37, 45, 29); }

TEST_CASE("simt functional: tiled_gemm matches Eigen on non-multiple-of-16 sizes") { check_simt_gemm("tiled_gemm", 50, 35, 41); }

TEST_CASE("simt functional: wmma_gemm matches an fp32 product of the fp16-rounded inputs") {
  const int M = 32, N = 80, K = 48;  // multiples of 16, as the kernel requires; N leaves idle warps
  const PtxKernel kernel = load_ptx_kernel(kernel_path("wmma_gemm"), "");
  GlobalMemory memory;
  const std::vector<float> af = random_floats(M * K, 21), bf = random_floats(N * K, 22);
  std::vector<uint16_t> a(af.size()), b(bf.size());
  for (size_t i = 0; i < a.size(); ++i) a[i] = float_to_half(af[i]);
  for (size_t i = 0; i < b.size(); ++i) b[i] = float_to_half(bf[i]);
  const uint64_t da = memory.upload(a, "A"), db = memory.upload(b, "B"), dc = memory.allocate(M * N * 4, "C");
  launch(kernel, {ceil_div(N, 64), M / 16, 1}, {128, 1, 1},
         {KA::pointer(da), KA::pointer(db), KA::pointer(dc), KA::integer(M), KA::integer(N), KA::integer(K)}, memory);
  Matrix A(M, K), B(K, N);  // B is stored column-major: element (k, n) at n * K + k
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) A(i, k) = half_to_float(a[i * K + k]);
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) B(k, n) = half_to_float(b[n * K + k]);
  const std::vector<float> c = memory.read<float>(dc, M * N);
  // Tensor-core semantics: fp16 inputs, exact products, fp32 accumulation. Relative 1e-3 of
  // sum|a||b| is far above fp32 rounding yet far below any fragment-layout mistake.
  check_close(Eigen::Map<const Matrix>(c.data(), M, N), A * B, A.cwiseAbs() * B.cwiseAbs(), 1e-3);
}

TEST_CASE("simt functional: relu_add is exact on a size that is not a multiple of the block") {
  const int n = 1000;
  const PtxKernel kernel = load_ptx_kernel(kernel_path("relu_add"), "");
  GlobalMemory memory;
  const std::vector<float> a = random_floats(n, 31), b = random_floats(n, 32);
  const uint64_t da = memory.upload(a, "a"), db = memory.upload(b, "b"), dy = memory.allocate(n * 4, "y");
  launch(kernel, {ceil_div(n, 256), 1, 1}, {256, 1, 1}, {KA::pointer(da), KA::pointer(db), KA::pointer(dy), KA::integer(n)}, memory);
  const Eigen::VectorXf want = (Eigen::Map<const Eigen::VectorXf>(a.data(), n) + Eigen::Map<const Eigen::VectorXf>(b.data(), n)).cwiseMax(0.0f);
  const std::vector<float> y = memory.read<float>(dy, n);
  CHECK(Eigen::Map<const Eigen::VectorXf>(y.data(), n) == want);  // one fp32 add: exact
}

TEST_CASE("simt functional: triad's grid-stride loop is exact against std::fma") {
  const int n = 5000;  // 7 CTAs of 256 threads: each thread loops 2-3 times
  const PtxKernel kernel = load_ptx_kernel(kernel_path("triad"), "");
  GlobalMemory memory;
  const std::vector<float> b = random_floats(n, 41), c = random_floats(n, 42);
  const float s = 1.7f;
  const uint64_t da = memory.allocate(n * 4, "a"), db = memory.upload(b, "b"), dc = memory.upload(c, "c");
  launch(kernel, {7, 1, 1}, {256, 1, 1}, {KA::pointer(da), KA::pointer(db), KA::pointer(dc), KA::f32(s), KA::integer(n)}, memory);
  const std::vector<float> a = memory.read<float>(da, n);
  // triad.ptx contracts b + s * c into fma.rn.f32 (c, s, b): one rounding, so exact.
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += a[i] != std::fma(c[i], s, b[i]);
  CHECK(bad == 0);
}

TEST_CASE("simt functional: pointer_chase follows the chain exactly, including the unroll remainder") {
  const int size = 4096;
  const PtxKernel kernel = load_ptx_kernel(kernel_path("pointer_chase"), "");
  std::vector<uint32_t> next(size);
  for (int i = 0; i < size; ++i) next[i] = static_cast<uint32_t>((i + 97) % size);
  for (int steps : {0, 1, 3, 1003}) {  // the PTX unrolls by 4 and finishes with a remainder loop
    CAPTURE(steps);
    GlobalMemory memory;
    const uint64_t dn = memory.upload(next, "next"), dout = memory.allocate(4, "out");
    launch(kernel, {1, 1, 1}, {1, 1, 1}, {KA::pointer(dn), KA::pointer(dout), KA::integer(steps)}, memory);
    uint32_t j = 0;
    for (int i = 0; i < steps; ++i) j = next[j];
    CHECK(memory.read<uint32_t>(dout, 1)[0] == j);
  }
}

TEST_CASE("simt functional: reduction's shared-memory tree matches Eigen block sums") {
  const int n = 3000;  // 6 blocks of 512, the last one partial
  const PtxKernel kernel = load_ptx_kernel(kernel_path("reduction"), "");
  GlobalMemory memory;
  const std::vector<float> x = random_floats(n, 51);
  const int blocks = static_cast<int>(ceil_div(n, 512));
  const uint64_t dx = memory.upload(x, "x"), dp = memory.allocate(blocks * 4, "partial");
  launch(kernel, {static_cast<uint32_t>(blocks), 1, 1}, {256, 1, 1}, {KA::pointer(dx), KA::pointer(dp), KA::integer(n)}, memory);
  const std::vector<float> partial = memory.read<float>(dp, blocks);
  const Eigen::Map<const Eigen::VectorXf> X(x.data(), n);
  for (int b = 0; b < blocks; ++b) {
    const int len = std::min(512, n - b * 512);
    // A tree and a sequential sum of <= 512 fp32 values differ by at most ~10 * 2^-24 of
    // sum|x|; allow 1e-5 of it.
    CHECK(std::fabs(partial[b] - X.segment(b * 512, len).sum()) <= 1e-5 * X.segment(b * 512, len).cwiseAbs().sum());
  }
}

TEST_CASE("simt functional: conv_implicit_gemm matches an Eigen im2col product with stride and padding") {
  const int N = 2, C = 3, H = 9, W = 11, K = 5, R = 3, S = 3, stride = 2, pad = 1;
  const int P = (H + 2 * pad - R) / stride + 1, Q = (W + 2 * pad - S) / stride + 1;  // 5 x 6
  const int rows = N * P * Q, crs = C * R * S;                                          // 60 x 27: not multiples of 16
  const PtxKernel kernel = load_ptx_kernel(kernel_path("conv_implicit_gemm"), "");
  GlobalMemory memory;
  const std::vector<float> x = random_floats(N * C * H * W, 61), w = random_floats(K * crs, 62);
  const uint64_t dx = memory.upload(x, "x"), dw = memory.upload(w, "w"), dy = memory.allocate(N * K * P * Q * 4, "y");
  launch(kernel, {ceil_div(K, 16), ceil_div(rows, 16), 1}, {16, 16, 1},
         {KA::pointer(dx), KA::pointer(dw), KA::pointer(dy), KA::integer(N), KA::integer(C), KA::integer(H), KA::integer(W),
          KA::integer(K), KA::integer(R), KA::integer(S), KA::integer(P), KA::integer(Q), KA::integer(stride), KA::integer(pad)},
         memory);
  Matrix cols = Matrix::Zero(rows, crs);  // im2col: one row per output pixel
  for (int n = 0; n < N; ++n)
    for (int p = 0; p < P; ++p)
      for (int q = 0; q < Q; ++q)
        for (int c = 0; c < C; ++c)
          for (int r = 0; r < R; ++r)
            for (int s = 0; s < S; ++s) {
              const int h = p * stride - pad + r, wi = q * stride - pad + s;
              if (h >= 0 && h < H && wi >= 0 && wi < W) cols((n * P + p) * Q + q, (c * R + r) * S + s) = x[((n * C + c) * H + h) * W + wi];
            }
  const Matrix weights = Eigen::Map<const Matrix>(w.data(), K, crs);
  const Matrix want = cols * weights.transpose(), scale = cols.cwiseAbs() * weights.cwiseAbs().transpose();
  const std::vector<float> y = memory.read<float>(dy, N * K * P * Q);
  Matrix got(rows, K);  // NKPQ -> (pixel, channel)
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int pq = 0; pq < P * Q; ++pq) got(n * P * Q + pq, k) = y[(n * K + k) * P * Q + pq];
  check_close(got, want, scale, 1e-5);  // fp32 sums of 27 products, as for the GEMMs
}

namespace {

// Nested if/else, then a loop whose trip count is the lane's thread index; records what
// each thread computed and which lanes were active at two reconvergence points.
const char* kDivergence = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry diverge(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r8, 0;
  and.b32 %r3, %r1, 1;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra ODD;
  and.b32 %r4, %r1, 3;
  setp.ne.u32 %p2, %r4, 0;
  @%p2 bra TWO;
  mov.u32 %r2, 100;
  bra.uni JOIN_EVEN;
TWO:
  mov.u32 %r2, 200;
JOIN_EVEN:
  add.u32 %r2, %r2, 1;        // the even lanes, reconverged
  activemask.b32 %r8;
  bra.uni JOIN;
ODD:
  mov.u32 %r2, 300;
JOIN:
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
LOOP:
  setp.ge.u32 %p3, %r5, %r1;
  @%p3 bra DONE;
  add.u32 %r6, %r6, %r5;
  add.u32 %r5, %r5, 1;
  bra.uni LOOP;
DONE:
  activemask.b32 %r7;         // every live lane again
  add.u32 %r2, %r2, %r6;
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r8;
  st.global.u32 [%rd3+8], %r7;
  ret;
}
)";

}  // namespace

TEST_CASE("simt functional: divergent branches and loops reconverge at immediate post-dominators") {
  const PtxKernel kernel = kernel_from_text(kDivergence);
  GlobalMemory memory;
  const int threads = 48;  // a full warp and a half warp
  const uint64_t out = memory.allocate(threads * 12, "out");
  launch(kernel, {1, 1, 1}, {threads, 1, 1}, {KA::pointer(out)}, memory);
  const std::vector<uint32_t> v = memory.read<uint32_t>(out, threads * 3);
  for (uint32_t t = 0; t < threads; ++t) {
    CAPTURE(t);
    const uint32_t branch_value = t % 4 == 0 ? 101 : t % 2 == 0 ? 201 : 300;
    CHECK(v[3 * t] == branch_value + t * (t - 1) / 2);
    const uint32_t warp_lanes = t < 32 ? 0xffffffffu : 0xffffu;
    CHECK(v[3 * t + 1] == (t % 2 == 0 ? (0x55555555u & warp_lanes) : 0u));
    CHECK(v[3 * t + 2] == warp_lanes);
  }
}

namespace {

// Runs `kernel` (one parameter: `out`) on a CTA of one warp, instruction by instruction:
// `before` sees the model before each instruction, `after` what the instruction did.
// Returns the lanes live at the end.
template <class Before, class After>
uint32_t run_one_warp(const PtxKernel& kernel, GlobalMemory& memory, uint64_t out, Before before, After after) {
  LaunchConfig config;
  config.block = {32, 1, 1};
  FunctionalModel model(kernel, config, bind_kernel_arguments(kernel, {KA::pointer(out)}), memory);
  model.reserve_slots(1);
  model.start_cta(0, 0);
  ExecutedInstruction e;
  while (!model.warp_done(0, 0)) {
    before(model);
    model.execute(0, 0, e);
    after(e);
  }
  const uint32_t live = model.cta(0).warps[0].live;
  model.retire_cta(0);
  return live;
}

}  // namespace

TEST_CASE("simt functional: the reconvergence stack reports active masks per instruction") {
  const PtxKernel kernel = kernel_from_text(kDivergence);
  GlobalMemory memory;
  const uint64_t out = memory.allocate(32 * 12, "out");
  std::vector<std::pair<std::string, uint32_t>> trace;
  const uint32_t live = run_one_warp(
      kernel, memory, out,
      [&](const FunctionalModel& model) {
        CHECK(&model.peek(0, 0) == &kernel.statics[model.cta(0).warps[0].stack.back().pc]);
      },
      [&](const ExecutedInstruction& e) { trace.emplace_back(e.inst->text, e.active_mask); });
  auto mask_of = [&](const std::string& text) {
    for (const auto& [t, m] : trace)
      if (t == text) return m;
    return 0xdeadbeefu;
  };
  CHECK(mask_of("mov.u32 %r2, 100") == 0x11111111u);
  CHECK(mask_of("mov.u32 %r2, 200") == 0x44444444u);
  CHECK(mask_of("add.u32 %r2, %r2, 1") == 0x55555555u);
  CHECK(mask_of("mov.u32 %r2, 300") == 0xaaaaaaaau);
  CHECK(mask_of("activemask.b32 %r7") == 0xffffffffu);
  // The guard applies per instruction: lane t leaves the loop after t iterations, so the
  // last iteration's add runs on lane 31 alone.
  uint32_t last_add = 0;
  for (const auto& [t, m] : trace)
    if (t == "add.u32 %r5, %r5, 1") last_add = m;
  CHECK(last_add == 0x80000000u);
  CHECK(live == 0);
}

TEST_CASE("simt functional: the reconvergence stack holds its top entries inline and grows past them") {
  SimtStack stack;
  stack.reset({7, kNoReconvergence, 1});
  std::vector<SimtStackEntry> plain{{7, kNoReconvergence, 1}};
  for (uint32_t i = 0; i < 3 * SimtStack::kInline; ++i) {  // through the move to the heap
    stack.push_back({i, 100 + i, 1u << i});
    plain.push_back({i, 100 + i, 1u << i});
    REQUIRE(stack.size() == plain.size());
    CHECK(stack.back().pc == i);
    uint32_t k = 0;
    for (const SimtStackEntry& e : stack) CHECK(e.reconverge == plain[k++].reconverge);
  }
  stack.back().mask = 0xff;  // back() names the stored entry
  while (stack.size() > 1) {
    CHECK(stack.back().reconverge == plain.back().reconverge);
    stack.pop_back();
    plain.pop_back();
  }
  CHECK(stack.back().pc == 7);
  stack.pop_back();
  CHECK(stack.empty());
  stack.reset({3, kNoReconvergence, 2});  // back inline
  CHECK((stack.size() == 1 && stack.back().pc == 3 && stack.back().mask == 2));
}

namespace {

// Five nested if-blocks on the lane's low bits: block `level` is entered by lanes whose
// bits 0..level are all set, and adds kBlockAdd[level]; where the block nested in it
// closes, it adds kAfterInner[level]. The warp's stack holds one entry per open block (six
// deep for lane 31), past what it keeps inline.
constexpr int kNestedLevels = 5;
constexpr uint32_t kBlockAdd[kNestedLevels] = {1, 10, 100, 1000, 10000};
constexpr uint32_t kAfterInner[kNestedLevels] = {20, 200, 2000, 20000, 0};

std::string nested_divergence_ptx() {
  std::string ptx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry nested(.param .u64 out) {
  .reg .pred %p<6>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 0;
)";
  for (int level = 0; level < kNestedLevels; ++level) {
    const std::string n = std::to_string(level + 1);
    ptx += "  and.b32 %r3, %r1, " + std::to_string(1 << level) + ";\n  setp.eq.u32 %p" + n + ", %r3, 0;\n  @%p" + n +
           " bra END" + n + ";\n  add.u32 %r2, %r2, " + std::to_string(kBlockAdd[level]) + ";\n";
  }
  for (int level = kNestedLevels - 1; level >= 0; --level) {  // END<level+1> closes block `level`
    ptx += "END" + std::to_string(level + 1) + ":\n";
    if (level > 0) ptx += "  add.u32 %r2, %r2, " + std::to_string(kAfterInner[level - 1]) + ";\n";
  }
  return ptx + R"(  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";
}

}  // namespace

TEST_CASE("simt functional: nested divergence deeper than the inline stack reconverges level by level") {
  const PtxKernel kernel = kernel_from_text(nested_divergence_ptx());
  GlobalMemory memory;
  const uint64_t out = memory.allocate(32 * 4, "out");
  uint32_t deepest = 0, innermost_mask = 0;
  run_one_warp(
      kernel, memory, out,
      [&](const FunctionalModel& model) { deepest = std::max(deepest, model.cta(0).warps[0].stack.size()); },
      [&](const ExecutedInstruction& e) {
        if (e.inst->text == "add.u32 %r2, %r2, 10000") innermost_mask = e.active_mask;
      });
  CHECK(deepest == 6);
  CHECK(innermost_mask == 0x80000000u);  // the one lane with its five low bits set
  const std::vector<uint32_t> v = memory.read<uint32_t>(out, 32);
  for (uint32_t t = 0; t < 32; ++t) {
    CAPTURE(t);
    const int open = std::countr_one(t);  // blocks the lane enters
    uint32_t expected = 0;
    for (int level = 0; level < open; ++level) expected += kBlockAdd[level] + kAfterInner[level];
    CHECK(v[t] == expected);
  }
}

TEST_CASE("simt functional: shfl.sync and vote.sync exchange values across lanes") {
  const PtxKernel kernel = kernel_from_text(R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry warp_ops(.param .u64 out)
{
  .reg .pred %p<7>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  add.u32 %r2, %r1, 1;
  shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 8, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 4, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 2, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.up.b32 %r4|%p1, %r1, 1, 0, -1;
  shfl.sync.down.b32 %r5|%p2, %r1, 3, 31, -1;
  shfl.sync.idx.b32 %r6, %r1, 5, 31, -1;
  shfl.sync.idx.b32 %r10, %r1, 2, 0x181f, -1;
  setp.lt.u32 %p3, %r1, 10;
  vote.sync.ballot.b32 %r7, %p3, -1;
  vote.sync.all.pred %p4, %p3, -1;
  vote.sync.any.pred %p5, !%p3, -1;
  selp.u32 %r8, 1, 0, %p4;
  selp.u32 %r9, 1, 0, %p5;
  selp.u32 %r11, 1, 0, %p1;
  selp.u32 %r12, 1, 0, %p2;
  mul.wide.u32 %rd2, %r1, 40;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r2, %r4, %r5, %r6};
  st.global.v4.u32 [%rd3+16], {%r10, %r7, %r8, %r9};
  st.global.v2.u32 [%rd3+32], {%r11, %r12};
  ret;
}
)");
  GlobalMemory memory;
  const uint64_t out = memory.allocate(32 * 40, "out");
  launch(kernel, {1, 1, 1}, {32, 1, 1}, {KA::pointer(out)}, memory);
  const std::vector<uint32_t> v = memory.read<uint32_t>(out, 32 * 10);
  for (uint32_t l = 0; l < 32; ++l) {
    CAPTURE(l);
    const uint32_t* r = &v[10 * l];
    CHECK(r[0] == 528);                                  // butterfly sum of 1..32
    CHECK(r[1] == (l == 0 ? 0 : l - 1));                 // up 1: lane 0 keeps its own value
    CHECK(r[2] == (l + 3 <= 31 ? l + 3 : l));            // down 3, clamped at 31
    CHECK(r[3] == 5);                                    // idx 5
    CHECK(r[4] == (l & ~7u) + 2);                        // idx 2 within segments of 8 (c = 0x181f)
    CHECK(r[5] == 0x3ffu);                               // ballot of lane < 10
    CHECK(r[6] == 0);                                    // not all
    CHECK(r[7] == 1);                                    // some lane has !p
    CHECK(r[8] == (l >= 1 ? 1u : 0u));                   // up: in range from lane 1
    CHECK(r[9] == (l + 3 <= 31 ? 1u : 0u));
  }
}

namespace {
const char* kTwoBarriers = R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry two_barriers()
{
  .reg .pred %p1;
  .reg .b32 %r1;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra FIRST;
  bar.sync 1;
  bra.uni END;
FIRST:
  bar.sync 0;
END:
  ret;
}
.visible .entry too_many_threads()
{
  bar.sync 0, 64;
  ret;
}
.visible .entry early_exit(.param .u64 out)
{
  .reg .pred %p1;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 ret;
  bar.sync 0;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry spin()
{
LOOP:
  bra.uni LOOP;
}
)";
}  // namespace

TEST_CASE("simt functional: a barrier no warp can complete is reported as a deadlock") {
  const PtxModule module = parse_ptx(kTwoBarriers, "barriers.ptx");
  GlobalMemory memory;
  {
    const PtxKernel kernel = decode_kernel(module, "two_barriers");
    LaunchConfig config;
    config.block = {64, 1, 1};
    FunctionalModel model(kernel, config, {}, memory);
    try {
      run_functional(model);
      FAIL("expected a deadlock");
    } catch (const InputError& e) {
      const std::string m = e.what();
      CHECK(m.find("deadlock") != std::string::npos);
      CHECK(m.find("warp 0 waits at barrier 0 ('bar.sync 0'") != std::string::npos);
      CHECK(m.find("warp 1 waits at barrier 1 ('bar.sync 1'") != std::string::npos);
    }
  }
  {
    const PtxKernel kernel = decode_kernel(module, "too_many_threads");  // 64 threads expected, 32 exist
    LaunchConfig config;
    config.block = {32, 1, 1};
    FunctionalModel model(kernel, config, {}, memory);
    CHECK_THROWS_WITH_AS(run_functional(model), doctest::Contains("deadlock"), InputError);
  }
}

TEST_CASE("simt functional: warps that exited do not hold a barrier back; barriers report waiting warps") {
  const PtxKernel kernel = decode_kernel(parse_ptx(kTwoBarriers, "barriers.ptx"), "early_exit");
  GlobalMemory memory;
  const uint64_t out = memory.allocate(32 * 4, "out");
  LaunchConfig config;
  config.block = {96, 1, 1};
  FunctionalModel model(kernel, config, bind_kernel_arguments(kernel, {KA::pointer(out)}), memory);
  model.reserve_slots(1);
  model.start_cta(0, 0);
  ExecutedInstruction e;
  while (!model.warp_at_barrier(0, 0)) model.execute(0, 0, e);  // warp 0 arrives first
  CHECK(e.inst->is_barrier);
  while (!model.warp_done(0, 1)) model.execute(0, 1, e);        // warp 1 exits: still waiting
  CHECK(model.warp_at_barrier(0, 0));
  while (!model.warp_done(0, 2)) model.execute(0, 2, e);        // the last live warp exits: released
  CHECK_FALSE(model.warp_at_barrier(0, 0));
  while (!model.warp_done(0, 0)) model.execute(0, 0, e);
  model.retire_cta(0);
  const std::vector<uint32_t> v = memory.read<uint32_t>(out, 32);
  for (uint32_t t = 0; t < 32; ++t) CHECK(v[t] == t);
}

TEST_CASE("simt functional: a runaway kernel stops at the instruction limit with an error saying so") {
  const PtxKernel kernel = decode_kernel(parse_ptx(kTwoBarriers, "barriers.ptx"), "spin");
  GlobalMemory memory;
  LaunchConfig config;
  FunctionalModel model(kernel, config, {}, memory);
  CHECK_THROWS_WITH_AS(run_functional(model, 10000), doctest::Contains("more than 10,000 warp instructions"), InputError);
}

namespace {
int line_of(const std::string& path, const std::string& text) {
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return -1;
}
}  // namespace

TEST_CASE("simt functional: an out-of-bounds global access names the thread, the address and the instruction") {
  const PtxKernel kernel = load_ptx_kernel(kernel_path("relu_add"), "");
  GlobalMemory memory;
  const uint64_t da = memory.allocate(100 * 4, "a"), db = memory.allocate(100 * 4, "b"), dy = memory.allocate(300 * 4, "y");
  try {
    launch(kernel, {2, 1, 1}, {256, 1, 1}, {KA::pointer(da), KA::pointer(db), KA::pointer(dy), KA::integer(300)}, memory);
    FAIL("expected an out-of-bounds error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CAPTURE(m);
    // relu_add loads b[i] first; thread 100 of CTA 0 is the first past b's 100 elements.
    const int line = line_of(kernel_path("relu_add"), "ld.global.f32 \t%f1");
    CHECK(e.field() == "line " + std::to_string(line));
    CHECK(m.find("thread (ctaid 0,0,0; tid 100,0,0)") != std::string::npos);
    char address[32];
    std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(db + 400));
    CHECK(m.find(address) != std::string::npos);
    CHECK(m.find("0 bytes past the end of 'b'") != std::string::npos);
    CHECK(m.find("'ld.global.f32 %f1, [%rd8]'") != std::string::npos);
  }
}

TEST_CASE("simt functional: an out-of-range shared access names the thread and the shared address") {
  const PtxKernel kernel = kernel_from_text(R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry bad_shared()
{
  .reg .b32 %r<6>;
  .shared .align 4 .b8 buffer[64];
  mov.u32 %r1, %tid.x;
  mov.u32 %r4, %tid.y;
  mov.u32 %r5, %ntid.x;
  mad.lo.u32 %r1, %r4, %r5, %r1;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buffer;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  ret;
}
)");
  GlobalMemory memory;
  LaunchConfig config;
  config.grid = {1, 2, 1};
  config.block = {4, 8, 1};
  FunctionalModel model(kernel, config, {}, memory);
  CHECK_THROWS_WITH_AS(run_functional(model),
                       doctest::Contains("thread (ctaid 0,0,0; tid 0,4,0) of kernel 'bad_shared': 4 bytes at shared address 0x40 "
                                         "(the CTA has 64 bytes of shared memory) in 'st.shared.u32 [%r3], %r1'"),
                       InputError);
}

TEST_CASE("simt functional: CTAs interleaved across slots in random order give the same results") {
  // Run tiled_gemm once with run_functional, then again with CTAs in three slots and a random
  // choice of (slot, warp) for every instruction, as a timing model might issue them.
  const int M = 40, N = 40, K = 33;
  const PtxKernel kernel = load_ptx_kernel(kernel_path("tiled_gemm"), "");
  const std::vector<float> a = random_floats(M * K, 71), b = random_floats(K * N, 72);
  std::vector<float> results[2];
  for (int run = 0; run < 2; ++run) {
    GlobalMemory memory;
    const uint64_t da = memory.upload(a, "A"), db = memory.upload(b, "B"), dc = memory.allocate(M * N * 4, "C");
    LaunchConfig config;
    config.grid = {3, 3, 1};
    config.block = {16, 16, 1};
    FunctionalModel model(kernel, config,
                          bind_kernel_arguments(kernel, {KA::pointer(da), KA::pointer(db), KA::pointer(dc), KA::integer(M),
                                                         KA::integer(N), KA::integer(K)}),
                          memory);
    if (run == 0) {
      run_functional(model);
    } else {
      std::mt19937 rng(5);
      const int slots = 3;
      model.reserve_slots(slots);
      std::vector<int64_t> resident(slots, -1);
      int64_t next_cta = 0, retired = 0;
      ExecutedInstruction e;
      while (retired < model.cta_count()) {
        for (int s = 0; s < slots; ++s) {
          if (resident[s] >= 0) {
            bool done = true;
            for (int w = 0; w < model.warps_per_cta(); ++w) done &= model.warp_done(s, w);
            if (done) {
              model.retire_cta(s);
              resident[s] = -1;
              ++retired;
            }
          }
          if (resident[s] < 0 && next_cta < model.cta_count()) model.start_cta(s, resident[s] = next_cta++);
        }
        std::vector<std::pair<int, int>> ready;
        for (int s = 0; s < slots; ++s)
          if (resident[s] >= 0)
            for (int w = 0; w < model.warps_per_cta(); ++w)
              if (!model.warp_done(s, w) && !model.warp_at_barrier(s, w)) ready.emplace_back(s, w);
        if (ready.empty()) continue;
        const auto [s, w] = ready[std::uniform_int_distribution<size_t>(0, ready.size() - 1)(rng)];
        model.execute(s, w, e);
      }
    }
    results[run] = memory.read<float>(dc, M * N);
  }
  CHECK(results[0] == results[1]);
}

TEST_CASE("simt functional: shared loads and stores report the bytes their active lanes span") {
  // Lane t stores at 8 * (t % 5) + (t & 4) and loads at 4 * (t * 7 % 32); the first half of
  // the warp is guarded off for the load, so its span covers the active lanes only.
  const PtxKernel kernel = kernel_from_text(R"(
.version 7.5
.target sm_75
.address_size 64
.visible .entry spans(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .shared .align 4 .b8 buf[256];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 5;
  shl.b32 %r3, %r2, 3;
  and.b32 %r4, %r1, 4;
  add.u32 %r5, %r3, %r4;
  mov.u32 %r6, buf;
  add.u32 %r7, %r6, %r5;
  st.shared.u32 [%r7], %r1;
  mul.lo.u32 %r8, %r1, 7;
  rem.u32 %r9, %r8, 32;
  shl.b32 %r10, %r9, 2;
  add.u32 %r11, %r6, %r10;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 ld.shared.u32 %r9, [%r11];
  ret;
}
)");
  GlobalMemory memory;
  const uint64_t out = memory.allocate(4, "out");
  LaunchConfig config;
  config.block = {32, 1, 1};
  FunctionalModel model(kernel, config, bind_kernel_arguments(kernel, {KA::pointer(out)}), memory);
  model.reserve_slots(1);
  model.start_cta(0, 0);
  ExecutedInstruction e;
  int shared = 0;
  while (!model.warp_done(0, 0)) {
    model.execute(0, 0, e);
    if (e.space != MemorySpace::shared) {
      CHECK(e.span_end == 0);  // only shared (and generic) accesses report one
      continue;
    }
    ++shared;
    std::array<MemorySegment, 32> scratch;
    const MemorySegment* segments = nullptr;
    const int n = memory_segments(e, scratch, segments);
    REQUIRE(n == (e.inst->is_store ? 32 : 16));
    CHECK(e.lane_bytes == (e.inst->is_store ? 4 : 0));  // a full warp's store: the lane form
    uint64_t lo = ~uint64_t{0}, end = 0;
    for (int l = 0; l < n; ++l) {
      lo = std::min(lo, segments[l].address);
      end = std::max(end, segments[l].address + segments[l].bytes);
    }
    CHECK(e.span_begin == lo);
    CHECK(e.span_end == end);
    // store: words 0 .. 36 bytes; load: 7t mod 32 over t = 16..31 runs from word 1 to word 30
    CHECK(end - lo == (e.inst->is_store ? 4 * 8 + 4 + 4 : (30 - 1) * 4 + 4));
  }
  CHECK(shared == 2);
}

TEST_CASE("simt functional: memory instructions report one segment per active lane; wmma one per row") {
  const PtxKernel kernel = load_ptx_kernel(kernel_path("wmma_gemm"), "");
  GlobalMemory memory;
  const int M = 16, N = 16, K = 16;
  const uint64_t da = memory.allocate(M * K * 2, "A"), db = memory.allocate(N * K * 2, "B"), dc = memory.allocate(M * N * 4, "C");
  LaunchConfig config;
  config.block = {32, 1, 1};
  FunctionalModel model(kernel, config,
                        bind_kernel_arguments(kernel, {KA::pointer(da), KA::pointer(db), KA::pointer(dc), KA::integer(M),
                                                       KA::integer(N), KA::integer(K)}),
                        memory);
  model.reserve_slots(1);
  model.start_cta(0, 0);
  ExecutedInstruction e;
  int params = 0, wmma_loads = 0, mmas = 0, stores = 0;
  while (!model.warp_done(0, 0)) {
    model.execute(0, 0, e);
    const StaticInstruction& s = *e.inst;
    if (s.text.rfind("ld.param", 0) == 0) {
      ++params;
      CHECK(e.n_segments == 32);
      CHECK(e.space == MemorySpace::param);
    } else if (s.text.rfind("wmma.load", 0) == 0) {
      ++wmma_loads;
      REQUIRE(e.n_segments == 16);
      CHECK(s.unit == Unit::ldst);
      CHECK(s.n_dst == 8);
      const uint64_t base = s.text.find(".a.") != std::string::npos ? da : db;
      for (int r = 0; r < 16; ++r) {  // row r of A / column r of B: K halves apart
        CHECK(e.segments[r].address == base + uint64_t(r) * K * 2);
        CHECK(e.segments[r].bytes == 32);
        CHECK(e.segments[r].lane == r);
      }
    } else if (s.text.rfind("wmma.mma", 0) == 0) {
      ++mmas;
      CHECK(s.unit == Unit::tensor);
      CHECK(s.n_src == 24);
      CHECK(s.n_dst == 8);
      CHECK(s.tensor == TensorPrecision::f16_f32);
      CHECK(s.flops_per_warp == 2 * 16 * 16 * 16);
      CHECK(s.mma_m == 16);
    } else if (s.text.rfind("wmma.store", 0) == 0) {
      ++stores;
      CHECK(s.is_store);
      REQUIRE(e.n_segments == 16);
      CHECK(e.segments[15].address == dc + 15 * N * 4);
      CHECK(e.segments[15].bytes == 64);
    }
  }
  CHECK(params == 7);
  CHECK(wmma_loads == 2);
  CHECK(mmas == 1);
  CHECK(stores == 1);
}

TEST_CASE("simt functional: CTA resources come from the launch and the register estimate (or its override)") {
  const PtxKernel kernel = load_ptx_kernel(kernel_path("tiled_gemm"), "");
  GlobalMemory memory;
  LaunchConfig config;
  config.grid = {2, 3, 1};
  config.block = {16, 16, 1};
  config.dynamic_shared_bytes = 100;
  std::vector<KA> args{KA::pointer(0), KA::pointer(0), KA::pointer(0), KA::integer(1), KA::integer(1), KA::integer(1)};
  const FunctionalModel model(kernel, config, bind_kernel_arguments(kernel, args), memory);
  const CtaResources r = model.cta_resources();
  CHECK(model.cta_count() == 6);
  CHECK(r.threads == 256);
  CHECK(r.warps == 8);
  CHECK(r.shared_bytes == 2048 + 100);
  CHECK(r.registers_per_thread == kernel.estimated_registers);
  CHECK(kernel.estimated_registers == kernel.live_register_words + 8);
  CHECK(kernel.live_register_words >= 10);  // at least the fp32 accumulator, a few indices and pointers
  config.registers_per_thread = 64;
  CHECK(FunctionalModel(kernel, config, bind_kernel_arguments(kernel, args), memory).cta_resources().registers_per_thread == 64);
  config.block = {33, 33, 1};
  CHECK_THROWS_WITH_AS(FunctionalModel(kernel, config, bind_kernel_arguments(kernel, args), memory),
                       doctest::Contains("expected 1 to 1024 threads"), InputError);
}

TEST_CASE("simt functional: a guard predicate's lanes as a mask, wide and narrow") {
  // Bit 0 of each lane decides; the other bits may hold anything. Against the lane loop.
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 2000; ++trial) {
    std::array<uint64_t, 32> wide;
    std::array<uint32_t, 32> narrow;
    uint32_t want = 0;
    for (int lane = 0; lane < 32; ++lane) {
      wide[static_cast<size_t>(lane)] = trial % 2 ? rng() : rng() & 1;
      narrow[static_cast<size_t>(lane)] = static_cast<uint32_t>(wide[static_cast<size_t>(lane)]);
      want |= static_cast<uint32_t>(wide[static_cast<size_t>(lane)] & 1) << lane;
    }
    CHECK(predicate_mask(wide.data(), false) == want);
    CHECK(predicate_mask(wide.data(), true) == ~want);
    CHECK(predicate_mask(narrow.data(), false) == want);
    CHECK(predicate_mask(narrow.data(), true) == ~want);
  }
}
