// The analytic SIMT model (contract in gpu_analytic.h; formulas and measured errors in
// docs/simt-model.md, "Analytic model").
//
// Layout: (1) a few helpers that coalesce sampled lane addresses the way the timing model's
// coalescer does; (2) one profile per shipped kernel, written from its PTX's loop structure:
// instruction counts by class, memory accesses and the work of one CTA per k-step; (3) the
// memory-hierarchy rules (L1 sharing between co-resident CTAs, L2 reuse, DRAM bytes); (4) the
// timing rule (occupancy, waves, per-step bottleneck against the latency chain, bandwidth
// floors); (5) the network driver.
#include "arch/simt/gpu_analytic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <unordered_set>

#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/timing/config_checks.h"
#include "arch/simt/timing/occupancy.h"
#include "arch/simt/timing/tensor_core.h"
#include "sim/error.h"

namespace loom::simt {

namespace {

// ---------------------------------------------------------------------------------------
// Modelling constants (each a choice, calibrated against the cycle model; see the docs).

// The L2 keeps an operand that is re-read across CTA rows when the reuse footprint is below
// kL2KeepBelow of its capacity, and none of it above kL2LoseAbove (linear in between: set
// conflicts and the streaming operands make LRU lose lines before the footprint is full).
constexpr double kL2KeepBelow = 0.75;
constexpr double kL2LoseAbove = 1.25;
// Dependent integer instructions between the top of a k-step and its first load's address
// (wmma_gemm: add, cvt, add, shl, add; tiled/conv: the guards; conv adds the im2col index).
constexpr double kWmmaAddressChain = 5;
constexpr double kTiledHeadChain = 3;
constexpr double kConvHeadChain = 10;
// Sampling of lane addresses (tiled_gemm, conv_implicit_gemm): CTAs along each grid
// dimension and k-steps per CTA.
constexpr int kSampleRows = 3, kSampleCols = 2, kSampleSteps = 4;

constexpr size_t cls(EnergyClass c) { return static_cast<size_t>(c); }
using Counts = std::array<double, size_t(EnergyClass::count)>;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ---------------------------------------------------------------------------------------
// (1) Coalescing sampled accesses

struct Segment {
  uint64_t address = 0;
  int64_t bytes = 0;  // 0: the lane is inactive
};

// The sectors (sorted, distinct) and lines one warp-level access touches.
struct Touched {
  std::array<uint64_t, 256> sectors{};
  int sector_count = 0;
  int lines = 0;
};

void coalesce_segments(const Segment* segs, int n, int line_bytes, int sector_bytes, Touched& t) {
  t.sector_count = 0;
  for (int i = 0; i < n; ++i) {
    if (segs[i].bytes <= 0) continue;
    const uint64_t first = segs[i].address / static_cast<uint64_t>(sector_bytes);
    const uint64_t last = (segs[i].address + static_cast<uint64_t>(segs[i].bytes) - 1) / static_cast<uint64_t>(sector_bytes);
    for (uint64_t s = first; s <= last && t.sector_count < static_cast<int>(t.sectors.size()); ++s)
      t.sectors[static_cast<size_t>(t.sector_count++)] = s;
  }
  std::sort(t.sectors.begin(), t.sectors.begin() + t.sector_count);
  t.sector_count = static_cast<int>(std::unique(t.sectors.begin(), t.sectors.begin() + t.sector_count) - t.sectors.begin());
  const uint64_t per_line = static_cast<uint64_t>(line_bytes / sector_bytes);
  t.lines = 0;
  uint64_t last_line = ~uint64_t{0};
  for (int i = 0; i < t.sector_count; ++i) {
    const uint64_t line = t.sectors[static_cast<size_t>(i)] / per_line;
    if (line != last_line) ++t.lines;
    last_line = line;
  }
}

// Up to `k` indices of 0..n-1 with weights summing to n: the last index (a partial tile or
// k-step) with weight 1, the others spread evenly over 0..n-2 sharing the weight n-1.
std::vector<std::pair<int64_t, double>> spread(int64_t n, int k) {
  std::vector<std::pair<int64_t, double>> out;
  if (n <= 0) return out;
  if (n <= k) {
    for (int64_t i = 0; i < n; ++i) out.emplace_back(i, 1.0);
    return out;
  }
  const int inner = k - 1;
  for (int i = 0; i < inner; ++i)
    out.emplace_back((n - 1) * i / inner, static_cast<double>(n - 1) / inner);
  out.emplace_back(n - 1, 1.0);
  return out;
}

// One operand's loads per CTA-step, averaged over sampled CTAs and k-steps.
struct OperandSample {
  double warp_loads = 0;   // warp-level load instructions with at least one active lane
  double lane_loads = 0;   // active lanes
  double lines = 0;        // L1 lines (MIO cycles)
  double sectors = 0;      // L1 sector accesses
  double reused = 0;       // sectors this CTA touched earlier in the step or in the step before
};

// lane(bx, by, warp, step, lane, segment): fills the lane's segment (bytes 0: inactive).
template <class LaneFn>
OperandSample sample_operand(int64_t gx, int64_t gy, int64_t steps, int warps, const GpuConfig& c, LaneFn lane) {
  OperandSample total;
  double weight = 0;
  std::array<Segment, 32> segs{};
  Touched touched;
  std::unordered_set<uint64_t> previous, current;
  auto step_access = [&](int64_t bx, int64_t by, int64_t step, OperandSample* into) {
    current.clear();
    for (int w = 0; w < warps; ++w) {
      for (int l = 0; l < 32; ++l) {
        segs[static_cast<size_t>(l)] = Segment{};
        lane(bx, by, w, step, l, segs[static_cast<size_t>(l)]);
      }
      int active = 0;
      for (const Segment& s : segs) active += s.bytes > 0;
      if (active == 0) continue;
      coalesce_segments(segs.data(), 32, c.l1.line_bytes, c.l1.sector_bytes, touched);
      if (into) {
        into->warp_loads += 1;
        into->lane_loads += active;
        into->lines += touched.lines;
        into->sectors += touched.sector_count;
      }
      for (int i = 0; i < touched.sector_count; ++i) {
        const uint64_t s = touched.sectors[static_cast<size_t>(i)];
        const bool seen = previous.count(s) || current.count(s);
        if (into && seen) into->reused += 1;
        current.insert(s);
      }
    }
    previous.swap(current);
  };
  for (const auto& [by, wy] : spread(gy, kSampleRows))
    for (const auto& [bx, wx] : spread(gx, kSampleCols))
      for (const auto& [step, ws] : spread(steps, kSampleSteps)) {
        previous.clear();
        if (step > 0) step_access(bx, by, step - 1, nullptr);  // what L1 holds from the step before
        OperandSample one;
        step_access(bx, by, step, &one);
        const double wgt = wy * wx * ws;
        total.warp_loads += one.warp_loads * wgt;
        total.lane_loads += one.lane_loads * wgt;
        total.lines += one.lines * wgt;
        total.sectors += one.sectors * wgt;
        total.reused += one.reused * wgt;
        weight += wgt;
      }
  if (weight > 0) {
    total.warp_loads /= weight;
    total.lane_loads /= weight;
    total.lines /= weight;
    total.sectors /= weight;
    total.reused /= weight;
  }
  return total;
}

// ---------------------------------------------------------------------------------------
// (2) Kernel profiles

// What one launch does, in totals over the launch and per CTA-step for the timing rule.
struct Profile {
  Counts warps{}, threads{};  // instructions by energy class
  double flops = 0;
  double mmas = 0;            // warp-level MMAs (16x16x16)
  MmaTiming mma;              // one MMA's schedule on a sub-core's tensor cores
  int64_t grid_x = 1, grid_y = 1;
  int warps_per_cta = 1;

  // Memory totals.
  double load_requests = 0, store_requests = 0;
  double l1_sectors = 0;            // load sector accesses at L1
  double l1_row_reused = 0, l1_col_reused = 0;  // of which the same CTA touched before (L1 hits)
  double l1_row_sectors = 0;        // accesses of the row operand (shared by CTAs with equal grid y)
  double l1_col_sectors = 0;        // accesses of the column operand (equal grid x)
  double store_sectors = 0, store_lines = 0;
  double shared_requests = 0, shared_wavefronts = 0;
  // DRAM inputs: distinct bytes of the row operand (A, the input image), of the column
  // operand (B, the weights), and the output bytes.
  double row_bytes = 0, col_bytes = 0, out_bytes = 0;
  double row_block_bytes = 0;  // the row operand one grid row of CTAs reads

  // Per CTA and k-step, summed over the CTA's warps.
  double steps = 0;            // k-steps per CTA
  double active_warps = 0;     // warps per CTA that run the k-loop (average)
  double step_instructions = 0, step_int = 0, step_fp = 0, step_ldst = 0, step_mma = 0;
  double step_mio = 0;         // global lines + shared wavefronts
  double step_l1_sectors = 0;  // global load sectors (for the NoC, after L1 hits)
  double step_global_lines_per_warp = 0;
  double head_chain = 0;       // dependent cycles from the step's top to its loads' issue
  double shared_phase = 0;     // tiled/conv: the shared-memory inner product of one step
  double fixed_instructions = 0;  // per warp, outside the k-loop
};

void add(Profile& p, EnergyClass c, double warps, double per_warp, double lanes = 32) {
  p.warps[cls(c)] += warps * per_warp;
  p.threads[cls(c)] += warps * per_warp * lanes;
}

const int64_t& size_of(const LaunchRecipe& r, const char* key) { return r.sizes.at(key); }

// wmma_gemm (validate/kernels/wmma_gemm.cu): 4 warps per CTA side by side in N, one 16x16 C
// tile per warp; the k-loop is unrolled by 4 (47 instructions per 4 steps) with a remainder
// loop (8 per step). Counts follow the committed PTX block by block.
Profile profile_wmma(const LaunchRecipe& r, const GpuConfig& c) {
  Profile p;
  const int64_t m = size_of(r, "M"), n = size_of(r, "N"), k = size_of(r, "K");
  p.grid_x = r.grid.x;
  p.grid_y = r.grid.y;
  p.warps_per_cta = 4;
  const double ctas = static_cast<double>(p.grid_x * p.grid_y);
  const double launched = ctas * 4, active = static_cast<double>((m / 16) * (n / 16));
  const int64_t ks = k / 16, main = ks / 4, rem = ks % 4;
  using E = EnergyClass;
  // Entry block (every warp), then either ret or the tile's work.
  add(p, E::load_other, launched, 6);
  add(p, E::int_op, launched, 13);
  add(p, E::control, launched, 1);
  add(p, E::control, launched - active, 1);  // ret of the warps beyond N
  add(p, E::int_op, active, 9 + 11 + 1);     // accumulator zeroing, loop set-up, remainder test
  add(p, E::control, active, 3);
  if (main > 0) add(p, E::int_op, active, 10);
  add(p, E::int_op, active, 34.0 * main);
  add(p, E::load_global, active, 8.0 * main);
  add(p, E::tensor_mma, active, 4.0 * main);
  add(p, E::control, active, 1.0 * main);
  if (rem > 0) {
    add(p, E::int_op, active, 7 + 4.0 * rem);
    add(p, E::load_global, active, 2.0 * rem);
    add(p, E::tensor_mma, active, 1.0 * rem);
    add(p, E::control, active, 1.0 * rem);
  }
  add(p, E::load_other, active, 1);
  add(p, E::int_op, active, 7);
  add(p, E::store_global, active, 1);
  add(p, E::control, active, 1);  // ret

  p.mma = decompose_mma(c.tensor, 16, 16, 16, TensorPrecision::f16_f32, c.source_file);
  p.mmas = active * static_cast<double>(ks);
  p.flops = p.mmas * 2.0 * 16 * 16 * 16;

  // A fragment: 16 rows of 32 bytes, row stride K*2 (B, column-major, the same with its
  // columns); the C store: 16 rows of 64 bytes, stride N*4. Buffers are 256-byte aligned.
  std::array<Segment, 16> rows{};
  Touched t;
  double lines_ab = 0, sectors_ab = 0;
  for (int64_t step = 0; step < std::min<int64_t>(ks, 4); ++step) {
    for (int i = 0; i < 16; ++i) rows[size_t(i)] = Segment{static_cast<uint64_t>((i * k + step * 16) * 2), 32};
    coalesce_segments(rows.data(), 16, c.l1.line_bytes, c.l1.sector_bytes, t);
    lines_ab += t.lines;
    sectors_ab += t.sector_count;
  }
  const double samples = static_cast<double>(std::min<int64_t>(ks, 4));
  const double lines = lines_ab / samples, sectors = sectors_ab / samples;  // one fragment load
  for (int i = 0; i < 16; ++i) rows[size_t(i)] = Segment{static_cast<uint64_t>(i * n * 4), 64};
  coalesce_segments(rows.data(), 16, c.l1.line_bytes, c.l1.sector_bytes, t);
  p.store_lines = active * t.lines;
  p.store_sectors = active * t.sector_count;
  p.load_requests = 2 * p.mmas;
  p.store_requests = active;
  p.l1_row_sectors = p.mmas * sectors;
  p.l1_col_sectors = p.mmas * sectors;
  p.l1_sectors = p.l1_row_sectors + p.l1_col_sectors;
  // The CTA's warps share their A fragment: the first warp's access misses, the rest hit.
  const double active_per_cta = active / ctas;
  p.l1_row_reused = p.l1_row_sectors * (active_per_cta - 1) / active_per_cta;
  p.row_bytes = static_cast<double>(m) * k * 2;
  p.col_bytes = static_cast<double>(k) * n * 2;
  p.out_bytes = static_cast<double>(m) * n * 4;
  p.row_block_bytes = 16.0 * k * 2;

  p.steps = static_cast<double>(ks);
  p.active_warps = active_per_cta;
  const double loop_instructions = (47.0 * main + 8.0 * rem + (rem > 0 ? 7 : 0)) / static_cast<double>(ks);
  const double loop_int = (34.0 * main + 4.0 * rem + (rem > 0 ? 7 : 0)) / static_cast<double>(ks);
  p.step_instructions = active_per_cta * loop_instructions;
  p.step_int = active_per_cta * loop_int;
  p.step_ldst = active_per_cta * 2;
  p.step_mma = active_per_cta;
  p.step_mio = active_per_cta * 2 * lines;
  p.step_global_lines_per_warp = 2 * lines;
  p.head_chain = kWmmaAddressChain * c.int_alu.latency;
  p.fixed_instructions = 20 + 21 + 4 + 10;
  return p;
}

// The loop both FP32 kernels share (tiled_gemm.cu, conv_implicit_gemm.cu): a 16x16 CTA of 8
// warps; per k-step each thread stages one A and one B element in shared memory, then 16
// FMAs read 32 shared words. Warp (ty = 2w, 2w+1): lanes 0-15 row 2w, 16-31 row 2w+1.
struct TileShape {
  int64_t gx = 1, gy = 1, ks = 1;
  int64_t rows = 0, cols = 0, depth = 0;  // the GEMM view: M (pixels), N (channels), K
};

// Counts of the shared k-loop body: head (5), the B load guard block, the shared-memory
// product (tiled 58, conv 57 instructions after the B block), for every warp and step.
void add_tile_loop(Profile& p, const TileShape& s, double loop_adds) {
  using E = EnergyClass;
  const double warps = static_cast<double>(s.gx * s.gy * 8);
  const double steps = static_cast<double>(s.ks);
  add(p, E::int_op, warps * steps, 4);  // setp, setp, or, mov
  add(p, E::control, warps * steps, 1);
  add(p, E::store_shared, warps * steps, 2);
  add(p, E::int_op, warps * steps, 4 + loop_adds + 1);  // B guard; the loop's adds and setp
  add(p, E::control, warps * steps, 2 + 1 + 1);        // B guard bra, 2 bar.sync, loop bra
  add(p, E::load_shared, warps * steps, 32);
  add(p, E::fp32_op, warps * steps, 16);
  p.flops += warps * steps * 16 * 32 * 2;
  p.shared_requests = warps * steps * 34;
  p.shared_wavefronts = warps * steps * 34;  // rows of 16 words, broadcasts: conflict-free
}

void finish_tile_profile(Profile& p, const TileShape& s, const GpuConfig& c, const OperandSample& a,
                         const OperandSample& b, double head_chain) {
  p.grid_x = s.gx;
  p.grid_y = s.gy;
  p.warps_per_cta = 8;
  const double ctas = static_cast<double>(s.gx * s.gy), steps = static_cast<double>(s.ks);
  p.load_requests = (a.warp_loads + b.warp_loads) * ctas * steps;
  p.l1_row_sectors = a.sectors * ctas * steps;
  p.l1_col_sectors = b.sectors * ctas * steps;
  p.l1_sectors = p.l1_row_sectors + p.l1_col_sectors;
  p.l1_row_reused = a.reused * ctas * steps;
  p.l1_col_reused = b.reused * ctas * steps;
  p.steps = steps;
  p.active_warps = 8;
  p.step_mio = a.lines + b.lines + 8 * 34;
  p.step_global_lines_per_warp = (a.lines + b.lines) / 8;
  p.step_ldst = a.warp_loads + b.warp_loads + 8 * 34;
  p.step_fp = 8 * 16;
  p.head_chain = head_chain * c.int_alu.latency;
  // Per j of the 16-deep product each warp loads two words and issues one FMA that waits
  // for them: latency-bound at shared_latency + 2 per j unless the CTA's 16 wavefronts per j
  // (8 warps x 2) take longer on the MIO.
  p.shared_phase = 16.0 * std::max<double>(c.shared_latency + 2, 16) + 2.0 * c.shared_latency;
}

// tiled_gemm(M, N, K), FP32 row-major: grid (ceil(N/16), ceil(M/16)).
Profile profile_tiled(const LaunchRecipe& r, const GpuConfig& c) {
  Profile p;
  TileShape s;
  s.rows = size_of(r, "M");
  s.cols = size_of(r, "N");
  s.depth = size_of(r, "K");
  s.gx = r.grid.x;
  s.gy = r.grid.y;
  s.ks = ceil_div(s.depth, 16);
  const int64_t m = s.rows, n = s.cols, k = s.depth;
  using E = EnergyClass;
  const double ctas = static_cast<double>(s.gx * s.gy), warps = ctas * 8, steps = static_cast<double>(s.ks);
  add(p, E::load_other, warps, 6);
  add(p, E::int_op, warps, 10 + 20);  // entry and loop set-up
  add(p, E::control, warps, 1);
  add_tile_loop(p, s, 5);
  // Guarded loads: a warp issues the A load when one of its two rows is in M, the B load
  // when one of its two k-rows is in K; lanes: every element once per CTA column/row.
  const double a_warps = static_cast<double>(s.gx) * steps * static_cast<double>(ceil_div(m, 2));
  const double b_warps = static_cast<double>(s.gx * s.gy) * static_cast<double>(ceil_div(k, 2));
  p.warps[cls(E::load_global)] += a_warps + b_warps;
  p.threads[cls(E::load_global)] += static_cast<double>(s.gx) * m * k + static_cast<double>(s.gy) * n * k;
  p.warps[cls(E::int_op)] += 2 * b_warps;
  p.threads[cls(E::int_op)] += 2.0 * static_cast<double>(s.gy) * n * k;
  // Epilogue: guard (all lanes), the store block (lanes in M x N), ret.
  add(p, E::int_op, warps, 3);
  add(p, E::control, warps, 2);
  const double store_warps = static_cast<double>(s.gx) * static_cast<double>(ceil_div(m, 2));
  p.warps[cls(E::int_op)] += 4 * store_warps;
  p.threads[cls(E::int_op)] += 4.0 * m * n;
  p.warps[cls(E::store_global)] += store_warps;
  p.threads[cls(E::store_global)] += static_cast<double>(m) * n;

  const OperandSample a = sample_operand(s.gx, s.gy, s.ks, 8, c, [&](int64_t, int64_t by, int w, int64_t step, int l, Segment& seg) {
    const int64_t row = by * 16 + 2 * w + l / 16, col = step * 16 + l % 16;
    if (row < m && col < k) seg = Segment{static_cast<uint64_t>((row * k + col) * 4), 4};
  });
  const OperandSample b = sample_operand(s.gx, s.gy, s.ks, 8, c, [&](int64_t bx, int64_t, int w, int64_t step, int l, Segment& seg) {
    const int64_t row = step * 16 + 2 * w + l / 16, col = bx * 16 + l % 16;
    if (row < k && col < n) seg = Segment{static_cast<uint64_t>((row * n + col) * 4), 4};
  });
  const OperandSample out = sample_operand(s.gx, s.gy, 1, 8, c, [&](int64_t bx, int64_t by, int w, int64_t, int l, Segment& seg) {
    const int64_t row = by * 16 + 2 * w + l / 16, col = bx * 16 + l % 16;
    if (row < m && col < n) seg = Segment{static_cast<uint64_t>((row * n + col) * 4), 4};
  });
  p.store_requests = store_warps;
  p.store_sectors = out.sectors * ctas;
  p.store_lines = out.lines * ctas;
  p.row_bytes = static_cast<double>(m) * k * 4;
  p.col_bytes = static_cast<double>(k) * n * 4;
  p.out_bytes = static_cast<double>(m) * n * 4;
  p.row_block_bytes = 16.0 * k * 4;
  finish_tile_profile(p, s, c, a, b, kTiledHeadChain);
  const double loop = 5 + 6 + 58;
  p.step_instructions = 8 * loop + a.warp_loads + 3 * b.warp_loads;  // guarded blocks as sampled
  p.step_int = 8 * (4 + 4 + 6) + 2 * b.warp_loads;
  p.fixed_instructions = 17 + 20 + 4 + 5 + 1;
  return p;
}

// conv_implicit_gemm(N, C, H, W, K, R, S, stride, pad), FP32 NCHW: rows = N*P*Q output
// pixels, columns = K channels, depth = C*R*S; grid (ceil(K/16), ceil(rows/16)).
Profile profile_conv(const LaunchRecipe& r, const GpuConfig& c) {
  Profile p;
  const int64_t nb = size_of(r, "N"), ch = size_of(r, "C"), h = size_of(r, "H"), w = size_of(r, "W"),
                kout = size_of(r, "K"), rr = size_of(r, "R"), ss = size_of(r, "S"), stride = size_of(r, "stride"),
                pad = size_of(r, "pad"), pp = size_of(r, "P"), qq = size_of(r, "Q");
  TileShape s;
  s.rows = nb * pp * qq;
  s.cols = kout;
  s.depth = ch * rr * ss;
  s.gx = r.grid.x;
  s.gy = r.grid.y;
  s.ks = ceil_div(s.depth, 16);
  const int64_t rows = s.rows, crs = s.depth;
  using E = EnergyClass;
  const double ctas = static_cast<double>(s.gx * s.gy), warps = ctas * 8, steps = static_cast<double>(s.ks);
  add(p, E::load_other, warps, 14);
  add(p, E::int_op, warps, 21 + 24);
  add(p, E::control, warps, 1);
  add_tile_loop(p, s, 4);
  // The im2col gather: lanes with a pixel in range run the index block (14), those whose
  // input element is inside the padded border also the load block (7).
  auto inside = [&](int64_t pixel, int64_t kk, int64_t* address) {
    const int64_t n = pixel / (pp * qq), pq = pixel % (pp * qq), p0 = pq / qq, q0 = pq % qq;
    const int64_t cc = kk / (rr * ss), rs = kk % (rr * ss), y = p0 * stride - pad + rs / ss, x = q0 * stride - pad + rs % ss;
    if (y < 0 || y >= h || x < 0 || x >= w) return false;
    *address = ((n * ch + cc) * h + y) * w + x;
    return true;
  };
  const OperandSample a = sample_operand(s.gx, s.gy, s.ks, 8, c, [&](int64_t, int64_t by, int wp, int64_t step, int l, Segment& seg) {
    const int64_t pixel = by * 16 + 2 * wp + l / 16, kk = step * 16 + l % 16;
    int64_t at = 0;
    if (pixel < rows && kk < crs && inside(pixel, kk, &at)) seg = Segment{static_cast<uint64_t>(at * 4), 4};
  });
  const double index_warps = static_cast<double>(s.gx) * steps * static_cast<double>(ceil_div(rows, 2));
  const double index_lanes = static_cast<double>(s.gx) * static_cast<double>(rows) * static_cast<double>(crs);
  p.warps[cls(E::int_op)] += 13 * index_warps;
  p.threads[cls(E::int_op)] += 13 * index_lanes;
  p.warps[cls(E::control)] += index_warps;
  p.threads[cls(E::control)] += index_lanes;
  const double load_warps = a.warp_loads * ctas * steps, load_lanes = a.lane_loads * ctas * steps;
  p.warps[cls(E::int_op)] += 6 * load_warps;
  p.threads[cls(E::int_op)] += 6 * load_lanes;
  p.warps[cls(E::load_global)] += load_warps;
  p.threads[cls(E::load_global)] += load_lanes;
  // Weights w[k_out][crs]: lanes along k_out (stride crs), the warp's two rows along crs.
  const OperandSample b = sample_operand(s.gx, s.gy, s.ks, 8, c, [&](int64_t bx, int64_t, int wp, int64_t step, int l, Segment& seg) {
    const int64_t kk = step * 16 + 2 * wp + l / 16, ko = bx * 16 + l % 16;
    if (kk < crs && ko < kout) seg = Segment{static_cast<uint64_t>((ko * crs + kk) * 4), 4};
  });
  const double b_warps = static_cast<double>(s.gx * s.gy) * static_cast<double>(ceil_div(crs, 2));
  p.warps[cls(E::load_global)] += b_warps;
  p.threads[cls(E::load_global)] += static_cast<double>(s.gy) * static_cast<double>(kout) * static_cast<double>(crs);
  // Epilogue: the output y[n][k][p][q]: lanes along k_out (stride P*Q), rows along pixels.
  add(p, E::int_op, warps, 3);
  add(p, E::control, warps, 2);
  const double store_warps = static_cast<double>(s.gx) * static_cast<double>(ceil_div(rows, 2));
  p.warps[cls(E::int_op)] += 6 * store_warps;
  p.threads[cls(E::int_op)] += 6.0 * static_cast<double>(rows) * static_cast<double>(kout);
  p.warps[cls(E::store_global)] += store_warps;
  p.threads[cls(E::store_global)] += static_cast<double>(rows) * static_cast<double>(kout);
  const OperandSample out = sample_operand(s.gx, s.gy, 1, 8, c, [&](int64_t bx, int64_t by, int wp, int64_t, int l, Segment& seg) {
    const int64_t pixel = by * 16 + 2 * wp + l / 16, ko = bx * 16 + l % 16;
    if (pixel >= rows || ko >= kout) return;
    const int64_t n = pixel / (pp * qq), pq = pixel % (pp * qq);
    seg = Segment{static_cast<uint64_t>(((n * kout + ko) * pp * qq + pq) * 4), 4};
  });
  p.store_requests = store_warps;
  p.store_sectors = out.sectors * ctas;
  p.store_lines = out.lines * ctas;
  // Input bytes the convolution touches: rows y = p*stride - pad + r inside the image.
  std::vector<char> row_used(static_cast<size_t>(h), 0);
  for (int64_t p0 = 0; p0 < pp; ++p0)
    for (int64_t q = 0; q < rr; ++q) {
      const int64_t y = p0 * stride - pad + q;
      if (y >= 0 && y < h) row_used[static_cast<size_t>(y)] = 1;
    }
  const double used_rows = static_cast<double>(std::count(row_used.begin(), row_used.end(), 1));
  p.row_bytes = static_cast<double>(nb * ch) * used_rows * static_cast<double>(w) * 4;
  p.col_bytes = static_cast<double>(kout) * static_cast<double>(crs) * 4;
  p.out_bytes = static_cast<double>(rows) * static_cast<double>(kout) * 4;
  p.row_block_bytes = p.row_bytes / static_cast<double>(s.gy);
  finish_tile_profile(p, s, c, a, b, kConvHeadChain);
  const double loop = 5 + 6 + 57;
  p.step_instructions = 8 * loop + 14 * 8 + 7 * a.warp_loads + b.warp_loads;
  p.step_int = 8 * (4 + 4 + 5 + 13) + 6 * a.warp_loads;
  p.fixed_instructions = 36 + 24 + 4 + 7 + 1;
  return p;
}

Profile profile_for(const LaunchRecipe& r, const GpuConfig& c) {
  if (r.kernel == "wmma_gemm") return profile_wmma(r, c);
  if (r.kernel == "tiled_gemm") return profile_tiled(r, c);
  if (r.kernel == "conv_implicit_gemm") return profile_conv(r, c);
  throw InputError("", "kernel",
                   "the analytic GPU model covers the kernels the layer rule launches (wmma_gemm, tiled_gemm, "
                   "conv_implicit_gemm); got '" + r.kernel + "'");
}

// ---------------------------------------------------------------------------------------
// (3) Memory hierarchy

// CTAs are dealt round-robin to SMs (CTA i to SM i mod sms) up to the occupancy, so an SM
// holds CTAs sms apart; those with the same grid row share the row operand's lines in L1,
// those with the same grid column the column operand's. Returns the fractions of each
// operand's otherwise-missing accesses that hit because a co-resident CTA fetched them.
struct Sharing {
  double row = 0, col = 0;
};

Sharing co_resident_sharing(int64_t gx, int64_t gy, int sms, int resident) {
  const int64_t ctas = gx * gy;
  Sharing s;
  double weight = 0;
  const int64_t sampled = std::min<int64_t>(sms, ctas);
  std::vector<int64_t> xs, ys;
  for (int64_t sm = 0; sm < sampled; ++sm) {
    xs.clear();
    ys.clear();
    for (int64_t id = sm; id < ctas && static_cast<int64_t>(xs.size()) < resident; id += sms) {
      xs.push_back(id % gx);
      ys.push_back(id / gx);
    }
    const double n = static_cast<double>(xs.size());
    std::sort(xs.begin(), xs.end());
    std::sort(ys.begin(), ys.end());
    const double dx = static_cast<double>(std::unique(xs.begin(), xs.end()) - xs.begin());
    const double dy = static_cast<double>(std::unique(ys.begin(), ys.end()) - ys.begin());
    s.row += n - dy;
    s.col += n - dx;
    weight += n;
  }
  if (weight > 0) {
    s.row /= weight;
    s.col /= weight;
  }
  return s;
}

struct Traffic {
  double l1_hits = 0, l2_load_sectors = 0, dram_read = 0, dram_write = 0;
};

Traffic memory_traffic(const Profile& p, const GpuConfig& c, int resident) {
  Traffic t;
  const Sharing share = co_resident_sharing(p.grid_x, p.grid_y, c.sms, resident);
  // Accesses not reused within the CTA may hit what a co-resident CTA fetched.
  const double row_fresh = p.l1_row_sectors - p.l1_row_reused, col_fresh = p.l1_col_sectors - p.l1_col_reused;
  if (c.l1.bytes > 0)  // no L1: nothing is kept, nothing is shared
    t.l1_hits = p.l1_row_reused + p.l1_col_reused + row_fresh * share.row + col_fresh * share.col;
  t.l1_hits = std::min(t.l1_hits, p.l1_sectors);
  t.l2_load_sectors = p.l1_sectors - t.l1_hits;

  // DRAM: the row operand once (CTAs of one grid row run together); the column operand once
  // if the L2 holds it while the concurrent grid rows sweep it, else once per group of
  // concurrent grid rows; the output once (written back dirty).
  const double slots = std::min<double>(static_cast<double>(p.grid_x * p.grid_y), static_cast<double>(c.sms) * resident);
  const double rows_concurrent = std::max(1.0, std::floor(slots / static_cast<double>(p.grid_x)));
  const double footprint = p.col_bytes + rows_concurrent * (p.row_block_bytes + p.out_bytes / static_cast<double>(p.grid_y));
  const double l2 = static_cast<double>(c.l2_bytes);
  const double lost = l2 <= 0 ? 1.0
                              : std::clamp((footprint / l2 - kL2KeepBelow) / (kL2LoseAbove - kL2KeepBelow), 0.0, 1.0);
  const double passes = std::ceil(static_cast<double>(p.grid_y) / rows_concurrent);
  const double sector = c.l2_sector_bytes;
  auto sectors = [&](double bytes) { return std::ceil(bytes / sector) * sector; };
  t.dram_read = sectors(p.row_bytes) + sectors(p.col_bytes) * (1 + (passes - 1) * lost);
  // Never more than the L2 was asked for.
  t.dram_read = std::min(t.dram_read, t.l2_load_sectors * sector);
  t.dram_write = sectors(p.out_bytes);
  return t;
}

// ---------------------------------------------------------------------------------------
// (4) Timing

struct Timing {
  double cycles = 0;
};

double unit_occupancy(const GpuConfig& c, const FunctionalUnitConfig& u) {
  return static_cast<double>(ceil_div(c.warp_size, u.lanes) * u.initiation_interval);
}

// Cycles of one wave of `r` CTAs on one SM: per k-step the busiest resource of the SM
// against one CTA's latency chain, plus the prologue and the drain.
double wave_cycles(const Profile& p, const GpuConfig& c, double r, double memory_latency, double l1_miss_fraction) {
  const double warps = std::max(1.0, r * p.active_warps);
  const double busiest_subcore = std::ceil(warps / c.subcores_per_sm) / warps;  // share of the SM's warps
  const double sub = r * busiest_subcore;
  const double noc = r * p.step_l1_sectors * l1_miss_fraction * c.l1.sector_bytes / c.noc_bytes_per_cycle_per_sm;
  const double throughput = std::max({sub * p.step_instructions, sub * p.step_int * unit_occupancy(c, c.int_alu),
                                      sub * p.step_fp * unit_occupancy(c, c.fp32),
                                      sub * p.step_ldst * unit_occupancy(c, c.ldst),
                                      sub * p.step_mma * static_cast<double>(p.mma.occupancy), r * p.step_mio, noc});
  double chain = p.head_chain + memory_latency;
  if (p.shared_phase > 0) {
    // tiled/conv: every warp's loads must land before the barrier, then the product.
    chain += p.step_global_lines_per_warp * 8 + p.shared_phase;
  } else {
    chain += p.step_global_lines_per_warp;
  }
  const double step = std::max(throughput, chain);
  const double head = p.fixed_instructions + 4.0 * c.int_alu.latency;
  const double drain = r * p.store_lines / std::max(1.0, static_cast<double>(p.grid_x * p.grid_y)) +
                       c.l2_hit_latency / 2.0 + c.noc_latency + static_cast<double>(p.mma.latency);
  return p.steps * step + head + drain;
}

}  // namespace

GpuStats estimate_launch(const LaunchRecipe& recipe, const GpuConfig& config) {
  const PtxKernel& kernel = shipped_kernel(recipe.kernel);
  CtaResources cta;
  cta.threads = static_cast<int>(recipe.block.x * recipe.block.y * recipe.block.z);
  cta.warps = (cta.threads + config.warp_size - 1) / config.warp_size;
  cta.registers_per_thread = kernel.estimated_registers;
  cta.shared_bytes = kernel.static_shared_bytes;
  check_launch(config, cta, {recipe.grid.x, recipe.grid.y, recipe.grid.z});
  check_timing_config(config);
  const Occupancy occupancy = compute_occupancy(config, cta);
  const Profile p = profile_for(recipe, config);

  const int64_t ctas = p.grid_x * p.grid_y;
  const int64_t per_sm = ceil_div(ctas, config.sms);
  const int resident = static_cast<int>(std::min<int64_t>(occupancy.ctas_per_sm, per_sm));
  const Traffic t = memory_traffic(p, config, resident);

  GpuStats s;
  s.ctas = ctas;
  s.resident_ctas_per_sm = resident;
  s.occupancy_limiter = occupancy.limiter;
  for (size_t i = 0; i < p.warps.size(); ++i) {
    s.warp_instructions_by_class[i] = std::llround(p.warps[i]);
    s.thread_instructions_by_class[i] = std::llround(p.threads[i]);
    s.warp_instructions += s.warp_instructions_by_class[i];
    s.thread_instructions += s.thread_instructions_by_class[i];
  }
  s.flops = std::llround(p.flops);
  s.global_load_requests = std::llround(p.load_requests);
  s.global_store_requests = std::llround(p.store_requests);
  s.l1_sector_accesses = std::llround(p.l1_sectors);
  s.l1_sector_hits = std::llround(t.l1_hits);
  const double sector = config.l2_sector_bytes;
  const double dram_sectors = t.dram_read / sector;
  s.l2_sector_accesses = std::llround(t.l2_load_sectors + p.store_sectors);
  s.l2_sector_hits = std::llround(std::max(0.0, t.l2_load_sectors - dram_sectors) + p.store_sectors);
  s.dram_read_bytes = std::llround(t.dram_read);
  s.dram_write_bytes = std::llround(t.dram_write);
  s.shared_requests = std::llround(p.shared_requests);
  s.shared_wavefronts = std::llround(p.shared_wavefronts);
  s.tensor_mma_instructions = std::llround(p.mmas);
  s.tensor_core_ops = std::llround(p.mmas * static_cast<double>(p.mma.ops));
  s.tensor_busy_cycles = std::llround(p.mmas * static_cast<double>(p.mma.busy_cycles));

  // Cycles: waves on the busiest SM, then the GPU-wide bandwidth floors.
  const double l1_miss = p.l1_sectors > 0 ? t.l2_load_sectors / p.l1_sectors : 1.0;
  const double memory_latency = config.l2_hit_latency + 2.0 * config.noc_latency + config.dram_latency;
  Profile per_cta = p;
  per_cta.step_l1_sectors = p.l1_sectors / std::max(1.0, static_cast<double>(ctas) * p.steps);
  const int64_t waves = ceil_div(per_sm, occupancy.ctas_per_sm);
  const int64_t last = per_sm - (waves - 1) * occupancy.ctas_per_sm;
  double sm_cycles = static_cast<double>(waves - 1) *
                         wave_cycles(per_cta, config, occupancy.ctas_per_sm, memory_latency, l1_miss) +
                     wave_cycles(per_cta, config, static_cast<double>(last), memory_latency, l1_miss);
  const double dram_cycles = (t.dram_read + t.dram_write) / config.dram_bytes_per_cycle() + memory_latency;
  const double l2_cycles = (t.l2_load_sectors + p.store_sectors) * sector /
                           (config.l2_slices * config.l2_bytes_per_cycle_per_slice);
  s.cycles = std::llround(std::max({sm_cycles, dram_cycles, l2_cycles}));
  return s;
}

std::vector<GpuLayerEstimate> estimate_network_on_gpu(const Network& network, const GpuConfig& config,
                                                      GpuPrecision precision) {
  const SimtEnergyTable table = load_simt_energy_table(config.energy_table);
  const TechnologyScaling scaling = TechnologyScaling::load(TechnologyScaling::default_path());
  std::map<std::pair<std::string, std::map<std::string, int64_t>>, size_t> first;  // launch -> estimate
  std::vector<GpuLayerEstimate> out;
  out.reserve(network.layers.size());
  for (const Layer& layer : network.layers) {
    GpuLayerEstimate e;
    e.layer = &layer;
    e.launch = launch_for_layer(layer, precision);
    const auto key = std::make_pair(e.launch.recipe.kernel, e.launch.recipe.sizes);
    if (const auto it = first.find(key); it != first.end()) {
      e.stats = out[it->second].stats;
      e.energy = out[it->second].energy;
    } else {
      e.stats = estimate_launch(e.launch.recipe, config);
      e.energy = price_gpu_energy(e.stats, config, table, scaling);
      first.emplace(key, out.size());
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace loom::simt
