// The analytic SIMT model (contract in gpu_analytic.h; formulas and measured errors in
// docs/simt-model.md, "Analytic model").
//
// Layout: (1) helpers that coalesce sampled lane addresses the way the timing model's
// coalescer does; (2) one profile per shipped kernel, written from its PTX's loop structure:
// instruction counts by class, memory accesses and the work of one CTA per k-step; (3) the
// memory-hierarchy rules (L1 sharing between co-resident CTAs, L2 reuse of the weight-like
// operand, DRAM bytes); (4) the timing rule (occupancy, waves, per k-step a mean-value
// analysis of the SM's CTA groups against their latency, bandwidth floors); (5) the drivers.
#include "arch/simt/gpu_analytic.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <functional>

#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/ptx/address_windows.h"
#include "arch/simt/timing/config_checks.h"
#include "arch/simt/timing/occupancy.h"
#include "arch/simt/timing/tensor_core.h"
#include "sim/error.h"

namespace loom::simt {

namespace {

// ---------------------------------------------------------------------------------------
// Modelling constants (each a choice, calibrated against the cycle model; see the docs).

// The L2 keeps the column operand (re-read by every group of concurrent grid rows) when it
// takes less than kL2KeepBelow of the capacity, and none of it above kL2LoseAbove (linear in
// between): the streaming row operand and output share the L2 with it, and LRU with set
// conflicts loses lines before the capacity is full. (The operand alone, not the whole reuse
// footprint, so that more SMs never mean more re-reads.)
constexpr double kL2KeepBelow = 0.5;
constexpr double kL2LoseAbove = 1.0;
// Dependent integer instructions (and branch refetches, in the same units) on a k-step's
// critical path besides its loads: wmma_gemm's address chain (add, cvt, add, shl, add);
// tiled_gemm's two load guards and the loop's tail; conv_implicit_gemm adds the im2col index
// arithmetic. Calibrated on single-CTA launches (docs).
constexpr double kWmmaAddressChain = 5;
constexpr double kTiledHeadChain = 12;
constexpr double kConvHeadChain = 22;
// Sampling of lane addresses (tiled_gemm, conv_implicit_gemm): CTAs along each grid
// dimension and k-steps per CTA (the last of each is the partial tile, if any), and k-steps
// for the L1 set check.
constexpr int kSampleRows = 3, kSampleCols = 2, kSampleSteps = 3, kSetCheckSteps = 4;

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

// x / d for a divisor fixed per launch: a shift when d is a power of two (it always is in the
// shipped configs), else a division.
struct FastDivide {
  uint64_t d = 1;
  int shift = -1;
  explicit FastDivide(uint64_t divisor) : d(divisor) {
    if (divisor > 0 && (divisor & (divisor - 1)) == 0) shift = std::countr_zero(divisor);
  }
  uint64_t operator()(uint64_t x) const { return shift >= 0 ? x >> shift : x / d; }
};

void coalesce_segments(const Segment* segs, int n, const FastDivide& sector, const FastDivide& per_line, Touched& t) {
  t.sector_count = 0;
  for (int i = 0; i < n; ++i) {
    if (segs[i].bytes <= 0) continue;
    const uint64_t first = sector(segs[i].address);
    const uint64_t last = sector(segs[i].address + static_cast<uint64_t>(segs[i].bytes) - 1);
    for (uint64_t s = first; s <= last && t.sector_count < static_cast<int>(t.sectors.size()); ++s)
      t.sectors[static_cast<size_t>(t.sector_count++)] = s;
  }
  // Lanes touch ascending addresses in one or two runs (a tile kernel's warp covers two rows):
  // merge two sorted runs, sort anything else.
  uint64_t* const v = t.sectors.data();
  const int n_sectors = t.sector_count;
  int breaks = 0, split = 0;
  for (int i = 1; i < n_sectors && breaks < 2; ++i)
    if (v[i] < v[i - 1]) split = i, ++breaks;
  if (breaks == 1)
    std::inplace_merge(v, v + split, v + n_sectors);
  else if (breaks > 1)
    std::sort(v, v + n_sectors);
  t.sector_count = static_cast<int>(std::unique(t.sectors.begin(), t.sectors.begin() + t.sector_count) - t.sectors.begin());
  t.lines = 0;
  uint64_t last_line = ~uint64_t{0};
  for (int i = 0; i < t.sector_count; ++i) {
    const uint64_t line = per_line(t.sectors[static_cast<size_t>(i)]);
    if (line != last_line) ++t.lines;
    last_line = line;
  }
}

void coalesce_segments(const Segment* segs, int n, const GpuConfig& c, Touched& t) {
  coalesce_segments(segs, n, FastDivide(static_cast<uint64_t>(c.l1.sector_bytes)),
                    FastDivide(static_cast<uint64_t>(c.l1.line_bytes / c.l1.sector_bytes)), t);
}

// A set of sector or line ids for the samplers: open addressing over a power-of-two table,
// cleared in O(1) by bumping a generation stamp.
class IdSet {
 public:
  explicit IdSet(size_t capacity_log2 = 11) : keys_(size_t{1} << capacity_log2), stamps_(keys_.size(), 0) {}
  void clear() {
    ++generation_;
    size_ = 0;
  }
  // Inserts `id`; returns whether it was there already. Past 3/4 full, counts as present
  // (the samplers stay far below that).
  bool insert(uint64_t id) {
    const size_t mask = keys_.size() - 1;
    for (size_t i = (id * 0x9E3779B97F4A7C15ull) >> 40 & mask;; i = (i + 1) & mask) {
      if (stamps_[i] != generation_) {
        if (4 * ++size_ > 3 * keys_.size()) return true;
        stamps_[i] = generation_;
        keys_[i] = id;
        return false;
      }
      if (keys_[i] == id) return true;
    }
  }
  bool contains(uint64_t id) const {
    const size_t mask = keys_.size() - 1;
    for (size_t i = (id * 0x9E3779B97F4A7C15ull) >> 40 & mask;; i = (i + 1) & mask) {
      if (stamps_[i] != generation_) return false;
      if (keys_[i] == id) return true;
    }
  }

 private:
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> stamps_;
  uint32_t generation_ = 1;
  size_t size_ = 0;
};

// Up to `k` indices of 0..n-1 with weights summing to n: the last index (a partial tile or
// k-step) with weight 1, the others spread evenly over 0..n-2 sharing the weight n-1.
std::vector<std::pair<int64_t, double>> spread(int64_t n, int k) {
  std::vector<std::pair<int64_t, double>> out;
  if (n <= 0) return out;
  if (n <= k) {
    for (int64_t i = 0; i < n; ++i) out.emplace_back(i, 1.0);
    return out;
  }
  if (k <= 1) return {{0, static_cast<double>(n)}};  // a dimension the access does not depend on
  const int inner = k - 1;
  for (int i = 0; i < inner; ++i)
    out.emplace_back((n - 1) * i / inner, static_cast<double>(n - 1) / inner);
  out.emplace_back(n - 1, 1.0);
  return out;
}

// Where GlobalMemory puts the recipe's buffers: from kGlobalBase, each followed by a
// 4 KiB unmapped gap, 256-byte aligned (global_memory.h). Set and slice indices depend on it.
std::vector<uint64_t> buffer_bases(const LaunchRecipe& r) {
  std::vector<uint64_t> bases;
  uint64_t next = kGlobalBase;
  for (const BufferSpec& b : r.buffers) {
    bases.push_back(next);
    const uint64_t bytes = std::max<uint64_t>(static_cast<uint64_t>(b.bytes()), 1);
    next += (bytes + 4096 + 255) / 256 * 256;
  }
  return bases;
}

// One operand's loads per CTA-step, averaged over sampled CTAs and k-steps.
struct OperandSample {
  double warp_loads = 0;   // warp-level load instructions with at least one active lane
  double lines = 0;        // L1 lines (MIO cycles)
  double sectors = 0;      // L1 sector accesses
  double reused = 0;       // sectors this CTA touched earlier in the step or in the step before
};

// warp(bx, by, warp, step, segments): fills the warp's 32 lane segments (bytes 0: inactive).
// `rows`, `cols`: how many grid rows and columns to sample (1 for a dimension the operand does
// not depend on).
template <class WarpFn>
OperandSample sample_operand(int64_t gx, int64_t gy, int64_t steps, int warps, const GpuConfig& c, WarpFn warp,
                             int rows = kSampleRows, int cols = kSampleCols) {
  OperandSample total;
  double weight = 0;
  std::array<Segment, 32> segs{};
  Touched touched;
  const FastDivide sector(static_cast<uint64_t>(c.l1.sector_bytes)),
      per_line(static_cast<uint64_t>(c.l1.line_bytes / c.l1.sector_bytes));
  IdSet previous, current;
  auto step_access = [&](int64_t bx, int64_t by, int64_t step, OperandSample* into) {
    current.clear();
    for (int w = 0; w < warps; ++w) {
      segs.fill(Segment{});
      warp(bx, by, w, step, segs.data());
      int active = 0;
      for (const Segment& s : segs) active += s.bytes > 0;
      if (active == 0) continue;
      coalesce_segments(segs.data(), 32, sector, per_line, touched);
      if (into) {
        into->warp_loads += 1;
        into->lines += touched.lines;
        into->sectors += touched.sector_count;
      }
      for (int i = 0; i < touched.sector_count; ++i) {
        const uint64_t s = touched.sectors[static_cast<size_t>(i)];
        const bool seen = current.insert(s) || previous.contains(s);
        if (into && seen) into->reused += 1;
      }
    }
    std::swap(previous, current);
  };
  for (const auto& [by, wy] : spread(gy, rows))
    for (const auto& [bx, wx] : spread(gx, cols))
      for (int64_t last = -2; const auto& [step, ws] : spread(steps, kSampleSteps)) {
        // What L1 holds from the step before (already at hand when that step was sampled).
        if (step != last + 1) {
          previous.clear();
          if (step > 0) step_access(bx, by, step - 1, nullptr);
        }
        last = step;
        OperandSample one;
        step_access(bx, by, step, &one);
        const double wgt = wy * wx * ws;
        total.warp_loads += one.warp_loads * wgt;
        total.lines += one.lines * wgt;
        total.sectors += one.sectors * wgt;
        total.reused += one.reused * wgt;
        weight += wgt;
      }
  if (weight > 0) {
    total.warp_loads /= weight;
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

  // Per CTA and k-step, summed over the CTA's warps.
  double steps = 0;            // k-steps per CTA
  double active_warps = 0;     // warps per CTA that run the k-loop (average)
  double step_instructions = 0, step_int = 0, step_fp = 0, step_ldst = 0, step_mma = 0;
  double step_mio = 0;         // global lines + shared wavefronts
  double step_l1_sectors = 0;  // global load sectors at L1 (the NoC carries the misses)
  double step_global_lines_per_warp = 0;
  double head_chain = 0;       // dependent cycles of a step's critical path besides its loads
  int serial_loads = 1;        // memory latencies a step waits in sequence (tiled/conv: A, then B)
  double shared_phase = 0;     // tiled/conv: the shared-memory inner product of one step
  double fixed_instructions = 0;  // per warp, outside the k-loop
  // The L1 lines one CTA's loads touch in one k-step (co-residency check in L1).
  std::function<void(int64_t bx, int64_t by, int64_t step, std::vector<uint64_t>& row, std::vector<uint64_t>& col)>
      cta_lines;
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
  const double ctas = static_cast<double>(p.grid_x * p.grid_y);
  const double launched = ctas * 4, active = static_cast<double>((m / 16) * (n / 16));
  const int64_t ks = k / 16, main = ks / 4, rem = ks % 4;
  using E = EnergyClass;
  // Entry block (every warp), then either ret or the tile's work. A predicated branch counts
  // the lanes that take it (the guard is applied to the active mask); ret and bar.sync all.
  add(p, E::load_other, launched, 6);
  add(p, E::int_op, launched, 13);
  add(p, E::control, launched - active, 1);  // the exit branch of the warps beyond N (taken)
  add(p, E::control, active, 1, 0);          // ... not taken
  add(p, E::control, launched, 1);           // ret
  add(p, E::int_op, active, 9 + 11 + 1);     // accumulator zeroing, loop set-up, remainder test
  add(p, E::control, active, 1, 0);          // K < 1: never
  add(p, E::control, active, 1, main == 0 ? 32 : 0);
  add(p, E::control, active, 1, rem == 0 ? 32 : 0);
  if (main > 0) add(p, E::int_op, active, 10);
  add(p, E::int_op, active, 34.0 * main);
  add(p, E::load_global, active, 8.0 * main);
  add(p, E::tensor_mma, active, 4.0 * main);
  if (main > 0) {
    add(p, E::control, active, static_cast<double>(main - 1));  // the loop's branch back
    add(p, E::control, active, 1, 0);
  }
  if (rem > 0) {
    add(p, E::int_op, active, 7 + 4.0 * rem);
    add(p, E::load_global, active, 2.0 * rem);
    add(p, E::tensor_mma, active, 1.0 * rem);
    add(p, E::control, active, static_cast<double>(rem - 1));
    add(p, E::control, active, 1, 0);
  }
  add(p, E::load_other, active, 1);
  add(p, E::int_op, active, 7);
  add(p, E::store_global, active, 1);
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
    coalesce_segments(rows.data(), 16, c, t);
    lines_ab += t.lines;
    sectors_ab += t.sector_count;
  }
  const double samples = static_cast<double>(std::min<int64_t>(ks, 4));
  const double lines = lines_ab / samples, sectors = sectors_ab / samples;  // one fragment load
  for (int i = 0; i < 16; ++i) rows[size_t(i)] = Segment{static_cast<uint64_t>(i * n * 4), 64};
  coalesce_segments(rows.data(), 16, c, t);
  p.store_lines = active * t.lines;
  p.store_sectors = active * t.sector_count;
  p.load_requests = 2 * p.mmas;
  p.store_requests = active;
  p.l1_row_sectors = p.mmas * sectors;
  p.l1_col_sectors = p.mmas * sectors;
  p.l1_sectors = p.l1_row_sectors + p.l1_col_sectors;
  const std::vector<uint64_t> base = buffer_bases(r);
  const uint64_t line_bytes = static_cast<uint64_t>(c.l1.line_bytes);
  p.cta_lines = [=](int64_t bx, int64_t by, int64_t step, std::vector<uint64_t>& row_lines,
                    std::vector<uint64_t>& col_lines) {
    for (int64_t i = 0; i < 16; ++i)
      row_lines.push_back((base[0] + static_cast<uint64_t>(((by * 16 + i) * k + step * 16) * 2)) / line_bytes);
    for (int64_t col = bx * 64; col < std::min(n, bx * 64 + 64); ++col)
      col_lines.push_back((base[1] + static_cast<uint64_t>((col * k + step * 16) * 2)) / line_bytes);
  };
  // The CTA's warps share their A fragment: the first warp's access misses, the rest hit.
  const double active_per_cta = active / ctas;
  p.l1_row_reused = p.l1_row_sectors * (active_per_cta - 1) / active_per_cta;
  p.row_bytes = static_cast<double>(m) * k * 2;
  p.col_bytes = static_cast<double>(k) * n * 2;
  p.out_bytes = static_cast<double>(m) * n * 4;

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
// product (tiled 58, conv 57 instructions after the B block), for every warp and step. The
// two guard branches count the lanes that skip their load (`a_lanes`, `b_lanes`: lanes that
// load), the loop branch all lanes but on the last step.
void add_tile_loop(Profile& p, const TileShape& s, double loop_adds, double a_lanes, double b_lanes) {
  using E = EnergyClass;
  const double warps = static_cast<double>(s.gx * s.gy * 8);
  const double steps = static_cast<double>(s.ks);
  const double lanes = warps * steps * 32;
  add(p, E::int_op, warps * steps, 4);  // setp, setp, or, mov
  add(p, E::store_shared, warps * steps, 2);
  add(p, E::int_op, warps * steps, 4 + loop_adds + 1);  // B guard; the loop's adds and setp
  p.warps[cls(E::control)] += warps * steps * 4;        // 2 guard branches, 2 bar.sync
  p.threads[cls(E::control)] += (lanes - a_lanes) + (lanes - b_lanes) + 2 * lanes;
  add(p, E::control, warps * (steps - 1), 1);           // the loop's branch back
  add(p, E::control, warps, 1, 0);
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
  p.serial_loads = 2;
  // Per j of the 16-deep product each warp loads two words and issues one FMA that waits
  // for them: latency-bound at shared_latency + 2 per j unless the CTA's 16 wavefronts per j
  // (8 warps x 2) take longer on the MIO.
  p.shared_phase = 16.0 * std::max<double>(c.shared_latency + 2, 16) + 2.0 * c.shared_latency;
}

// A warp function from a lane rule lane(bx, by, warp, step, lane, segment).
template <class LaneFn>
auto per_lane(LaneFn lane) {
  return [lane](int64_t bx, int64_t by, int w, int64_t step, Segment* segs) {
    for (int l = 0; l < 32; ++l) lane(bx, by, w, step, l, segs[l]);
  };
}

// The lines a tile CTA's A and B loads touch in one k-step, from the kernels' warp rules.
template <class AWarp, class BWarp>
std::function<void(int64_t, int64_t, int64_t, std::vector<uint64_t>&, std::vector<uint64_t>&)> tile_cta_lines(
    AWarp a, BWarp b, int line_bytes) {
  return [a, b, line_bytes](int64_t bx, int64_t by, int64_t step, std::vector<uint64_t>& row, std::vector<uint64_t>& col) {
    const FastDivide line(static_cast<uint64_t>(line_bytes));
    std::array<Segment, 32> sa{}, sb{};
    for (int w = 0; w < 8; ++w) {
      sa.fill(Segment{});
      sb.fill(Segment{});
      a(bx, by, w, step, sa.data());
      b(bx, by, w, step, sb.data());
      for (int l = 0; l < 32; ++l) {
        const uint64_t la = line(sa[size_t(l)].address), lb = line(sb[size_t(l)].address);
        if (sa[size_t(l)].bytes > 0 && (row.empty() || row.back() != la)) row.push_back(la);
        if (sb[size_t(l)].bytes > 0 && (col.empty() || col.back() != lb)) col.push_back(lb);
      }
    }
  };
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
  add(p, E::control, warps, 1, 0);    // K < 1: never
  const double a_lanes = static_cast<double>(s.gx) * m * k, b_lanes = static_cast<double>(s.gy) * n * k;
  add_tile_loop(p, s, 5, a_lanes, b_lanes);
  // Guarded loads: a warp issues the A load when one of its two rows is in M, the B load
  // when one of its two k-rows is in K; lanes: every element once per CTA column/row.
  const double a_warps = static_cast<double>(s.gx) * steps * static_cast<double>(ceil_div(m, 2));
  const double b_warps = static_cast<double>(s.gx * s.gy) * static_cast<double>(ceil_div(k, 2));
  p.warps[cls(E::load_global)] += a_warps + b_warps;
  p.threads[cls(E::load_global)] += a_lanes + b_lanes;
  p.warps[cls(E::int_op)] += 2 * b_warps;
  p.threads[cls(E::int_op)] += 2 * b_lanes;
  // Epilogue: guard (its branch taken by lanes outside M x N), the store block, ret.
  add(p, E::int_op, warps, 3);
  p.warps[cls(E::control)] += 2 * warps;
  p.threads[cls(E::control)] += warps * 32 - static_cast<double>(m) * n + warps * 32;
  const double store_warps = static_cast<double>(s.gx) * static_cast<double>(ceil_div(m, 2));
  p.warps[cls(E::int_op)] += 4 * store_warps;
  p.threads[cls(E::int_op)] += 4.0 * m * n;
  p.warps[cls(E::store_global)] += store_warps;
  p.threads[cls(E::store_global)] += static_cast<double>(m) * n;

  const std::vector<uint64_t> base = buffer_bases(r);
  const auto a_lane = [=](int64_t, int64_t by, int w, int64_t step, int l, Segment& seg) {
    const int64_t row = by * 16 + 2 * w + l / 16, col = step * 16 + l % 16;
    if (row < m && col < k) seg = Segment{base[0] + static_cast<uint64_t>((row * k + col) * 4), 4};
  };
  const auto b_lane = [=](int64_t bx, int64_t, int w, int64_t step, int l, Segment& seg) {
    const int64_t row = step * 16 + 2 * w + l / 16, col = bx * 16 + l % 16;
    if (row < k && col < n) seg = Segment{base[1] + static_cast<uint64_t>((row * n + col) * 4), 4};
  };
  const OperandSample a = sample_operand(s.gx, s.gy, s.ks, 8, c, per_lane(a_lane), kSampleRows, 1);
  const OperandSample b = sample_operand(s.gx, s.gy, s.ks, 8, c, per_lane(b_lane), 1, kSampleCols);
  const auto out_lane = [&](int64_t bx, int64_t by, int w, int64_t, int l, Segment& seg) {
    const int64_t row = by * 16 + 2 * w + l / 16, col = bx * 16 + l % 16;
    if (row < m && col < n) seg = Segment{base[2] + static_cast<uint64_t>((row * n + col) * 4), 4};
  };
  const OperandSample out = sample_operand(s.gx, s.gy, 1, 8, c, per_lane(out_lane));
  p.cta_lines = tile_cta_lines(per_lane(a_lane), per_lane(b_lane), c.l1.line_bytes);
  p.store_requests = store_warps;
  p.store_sectors = out.sectors * ctas;
  p.store_lines = out.lines * ctas;
  p.row_bytes = static_cast<double>(m) * k * 4;
  p.col_bytes = static_cast<double>(k) * n * 4;
  p.out_bytes = static_cast<double>(m) * n * 4;
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
  add(p, E::control, warps, 1, 0);  // C*R*S < 1: never
  // The im2col gather: lanes with a pixel in range run the index block (14), those whose
  // input element is inside the padded border also the load block (7).
  const std::vector<uint64_t> base = buffer_bases(r);
  // The gather x[n][c][y][x] of a warp: lanes 0-15 and 16-31 are two output pixels, lane
  // l % 16 the reduction index k0 + l % 16 = (c, r, s); the decompositions are done once per
  // pixel and once per reduction index.
  const auto a_warp = [=](int64_t, int64_t by, int wp, int64_t step, Segment* segs) {
    int64_t tap_c[16], tap_r[16], tap_s[16];
    for (int l = 0; l < 16; ++l) {
      const int64_t kk = step * 16 + l;
      tap_c[l] = kk < crs ? kk / (rr * ss) : -1;
      const int64_t rs = kk % (rr * ss);
      tap_r[l] = rs / ss;
      tap_s[l] = rs % ss;
    }
    for (int half = 0; half < 2; ++half) {
      const int64_t pixel = by * 16 + 2 * wp + half;
      if (pixel >= rows) continue;
      const int64_t n = pixel / (pp * qq), pq = pixel % (pp * qq);
      const int64_t y0 = pq / qq * stride - pad, x0 = pq % qq * stride - pad;
      for (int l = 0; l < 16; ++l) {
        const int64_t y = y0 + tap_r[l], x = x0 + tap_s[l];
        if (tap_c[l] < 0 || y < 0 || y >= h || x < 0 || x >= w) continue;
        segs[half * 16 + l] = Segment{base[0] + static_cast<uint64_t>((((n * ch + tap_c[l]) * h + y) * w + x) * 4), 4};
      }
    }
  };
  const OperandSample a = sample_operand(s.gx, s.gy, s.ks, 8, c, a_warp, kSampleRows, 1);
  const double index_warps = static_cast<double>(s.gx) * steps * static_cast<double>(ceil_div(rows, 2));
  const double index_lanes = static_cast<double>(s.gx) * static_cast<double>(rows) * static_cast<double>(crs);
  p.warps[cls(E::int_op)] += 13 * index_warps;
  p.threads[cls(E::int_op)] += 13 * index_lanes;
  p.warps[cls(E::control)] += index_warps;  // its branch: taken by lanes in the padding
  // Lanes inside the image, exactly: sum over (r, s) of the output rows and columns whose
  // tap lands inside, per image and channel, once per CTA column.
  auto taps = [&](int64_t out, int64_t in, int64_t window) {
    double sum = 0;
    for (int64_t t = 0; t < window; ++t)
      for (int64_t o = 0; o < out; ++o) sum += (o * stride - pad + t >= 0 && o * stride - pad + t < in) ? 1 : 0;
    return sum;
  };
  const double load_lanes =
      static_cast<double>(s.gx) * static_cast<double>(nb * ch) * taps(pp, h, rr) * taps(qq, w, ss);
  const double load_warps = a.warp_loads * ctas * steps;
  p.warps[cls(E::int_op)] += 6 * load_warps;
  p.threads[cls(E::int_op)] += 6 * load_lanes;
  p.warps[cls(E::load_global)] += load_warps;
  p.threads[cls(E::load_global)] += load_lanes;
  // Weights w[k_out][crs]: lanes along k_out (stride crs), the warp's two rows along crs.
  const auto b_lane = [=](int64_t bx, int64_t, int wp, int64_t step, int l, Segment& seg) {
    const int64_t kk = step * 16 + 2 * wp + l / 16, ko = bx * 16 + l % 16;
    if (kk < crs && ko < kout) seg = Segment{base[1] + static_cast<uint64_t>((ko * crs + kk) * 4), 4};
  };
  const OperandSample b = sample_operand(s.gx, s.gy, s.ks, 8, c, per_lane(b_lane), 1, kSampleCols);
  p.cta_lines = tile_cta_lines(a_warp, per_lane(b_lane), c.l1.line_bytes);
  const double b_warps = static_cast<double>(s.gx * s.gy) * static_cast<double>(ceil_div(crs, 2));
  p.warps[cls(E::load_global)] += b_warps;
  const double b_lanes = static_cast<double>(s.gy) * static_cast<double>(kout) * static_cast<double>(crs);
  p.threads[cls(E::load_global)] += b_lanes;
  p.threads[cls(E::control)] += index_lanes - load_lanes;
  add_tile_loop(p, s, 4, index_lanes, b_lanes);
  // Epilogue: the output y[n][k][p][q]: lanes along k_out (stride P*Q), rows along pixels.
  add(p, E::int_op, warps, 3);
  p.warps[cls(E::control)] += 2 * warps;
  p.threads[cls(E::control)] += warps * 32 - static_cast<double>(rows) * static_cast<double>(kout) + warps * 32;
  const double store_warps = static_cast<double>(s.gx) * static_cast<double>(ceil_div(rows, 2));
  p.warps[cls(E::int_op)] += 6 * store_warps;
  p.threads[cls(E::int_op)] += 6.0 * static_cast<double>(rows) * static_cast<double>(kout);
  p.warps[cls(E::store_global)] += store_warps;
  p.threads[cls(E::store_global)] += static_cast<double>(rows) * static_cast<double>(kout);
  const auto out_lane = [&](int64_t bx, int64_t by, int wp, int64_t, int l, Segment& seg) {
    const int64_t pixel = by * 16 + 2 * wp + l / 16, ko = bx * 16 + l % 16;
    if (pixel >= rows || ko >= kout) return;
    const int64_t n = pixel / (pp * qq), pq = pixel % (pp * qq);
    seg = Segment{base[2] + static_cast<uint64_t>(((n * kout + ko) * pp * qq + pq) * 4), 4};
  };
  const OperandSample out = sample_operand(s.gx, s.gy, 1, 8, c, per_lane(out_lane));
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

// The column operand (B, the weights) is read by every grid row of CTAs. The rows running
// at once share each fill; later groups of rows find it in L2 if the L2 holds it, and
// re-read it from DRAM otherwise.
struct ColumnReuse {
  double passes = 1;         // groups of concurrent grid rows sweeping the operand
  double lost = 0;           // fraction of it the L2 loses between passes
  double from_dram = 1;      // fraction of k-steps whose fill of it comes from DRAM
};

ColumnReuse column_reuse(const Profile& p, const GpuConfig& c, int resident) {
  ColumnReuse u;
  const double slots = std::min<double>(static_cast<double>(p.grid_x * p.grid_y), static_cast<double>(c.sms) * resident);
  const double rows_concurrent = std::max(1.0, std::floor(slots / static_cast<double>(p.grid_x)));
  const double l2 = static_cast<double>(c.l2_bytes);
  u.lost = l2 <= 0 ? 1.0 : std::clamp((p.col_bytes / l2 - kL2KeepBelow) / (kL2LoseAbove - kL2KeepBelow), 0.0, 1.0);
  u.passes = std::ceil(static_cast<double>(p.grid_y) / rows_concurrent);
  u.from_dram = (1 + (u.passes - 1) * u.lost) / u.passes;
  return u;
}

// CTAs are dealt round-robin to SMs (CTA i to SM i mod sms) up to the occupancy, so an SM
// holds CTAs sms apart. Those in the same grid row share the row operand's lines in L1,
// those in the same grid column the column operand's: the later CTAs' accesses hit (or merge
// into the first one's miss). That needs the lines to stay in L1 until the other CTAs ask:
// when one L1 set receives more distinct lines in a k-step than it has ways, LRU evicts them
// first (the strided rows of a GEMM tile often fall into few sets), and nothing is shared.
// (Sharing changes L1 hits, hence L2 traffic; the timing rule treats co-resident CTAs as
// independent, which measured as well as grouping CTAs that share lines and keeps the
// estimate from jumping when the SM count changes which CTAs meet.)
struct CoResidency {
  double share_row = 0, share_col = 0;  // fractions of fresh accesses a co-resident CTA fetched
};

// Fractions of the row and the column operand's lines that stay in L1 through a k-step on a
// full SM (SM 0's co-resident CTAs, sampled k-steps): a line survives when its set receives
// no more distinct lines in the step than it has ways.
std::pair<double, double> l1_keeps(const Profile& p, const GpuConfig& c, int resident) {
  const int64_t lines_total = c.l1.bytes > 0 ? c.l1.bytes / c.l1.line_bytes : 0;
  const int64_t ways = std::min<int64_t>(c.l1.associativity, lines_total);
  if (ways <= 0) return {0.0, 0.0};
  const uint64_t sets = static_cast<uint64_t>(lines_total / ways);
  const int64_t ctas = p.grid_x * p.grid_y;
  std::vector<uint64_t> row, col, row_lines, col_lines;
  std::vector<int64_t> per_set(static_cast<size_t>(sets));
  IdSet seen(static_cast<size_t>(std::bit_width(static_cast<uint64_t>(resident) * 8 * 64 * 2 * 4 / 3)));
  double row_kept = 0, row_all = 0, col_kept = 0, col_all = 0;
  for (const auto& [step, weight] : spread(static_cast<int64_t>(p.steps), kSetCheckSteps)) {
    row.clear();
    col.clear();
    int taken = 0;
    for (int64_t id = 0; id < ctas && taken < resident; id += c.sms, ++taken)
      p.cta_lines(id % p.grid_x, id / p.grid_x, step, row, col);
    // Distinct lines of each operand, and how many distinct lines each set receives.
    seen.clear();
    std::fill(per_set.begin(), per_set.end(), 0);
    row_lines.clear();
    col_lines.clear();
    for (auto [from, into] : {std::pair{&row, &row_lines}, std::pair{&col, &col_lines}})
      for (uint64_t line : *from)
        if (!seen.insert(line)) {
          into->push_back(line);
          ++per_set[static_cast<size_t>(line % sets)];
        }
    for (uint64_t line : row_lines) row_kept += weight * (per_set[static_cast<size_t>(line % sets)] <= ways);
    for (uint64_t line : col_lines) col_kept += weight * (per_set[static_cast<size_t>(line % sets)] <= ways);
    row_all += weight * static_cast<double>(row_lines.size());
    col_all += weight * static_cast<double>(col_lines.size());
  }
  return {row_all > 0 ? row_kept / row_all : 0.0, col_all > 0 ? col_kept / col_all : 0.0};
}

CoResidency co_residency(const Profile& p, const GpuConfig& c, int resident) {
  const int64_t gx = p.grid_x, ctas = p.grid_x * p.grid_y;
  CoResidency out;
  if (resident <= 1) return out;
  double weight = 0;
  std::vector<int64_t> xs, ys;
  for (int64_t sm = 0; sm < std::min<int64_t>(c.sms, ctas); ++sm) {
    xs.clear();
    ys.clear();
    for (int64_t id = sm; id < ctas && static_cast<int64_t>(xs.size()) < resident; id += c.sms) {
      xs.push_back(id % gx);
      ys.push_back(id / gx);
    }
    const double n = static_cast<double>(xs.size());
    std::sort(xs.begin(), xs.end());
    std::sort(ys.begin(), ys.end());
    out.share_row += n - static_cast<double>(std::unique(ys.begin(), ys.end()) - ys.begin());
    out.share_col += n - static_cast<double>(std::unique(xs.begin(), xs.end()) - xs.begin());
    weight += n;
  }
  if (out.share_row == 0 && out.share_col == 0) return out;  // nothing to keep
  const auto [keep_row, keep_col] = l1_keeps(p, c, resident);
  out.share_row *= keep_row / weight;
  out.share_col *= keep_col / weight;
  return out;
}

struct Traffic {
  double l1_hits = 0, l2_load_sectors = 0, dram_read = 0, dram_write = 0;
};

Traffic memory_traffic(const Profile& p, const GpuConfig& c, const ColumnReuse& reuse, const CoResidency& share) {
  Traffic t;
  // Accesses not reused within the CTA may hit what a co-resident CTA fetched.
  const double row_fresh = p.l1_row_sectors - p.l1_row_reused, col_fresh = p.l1_col_sectors - p.l1_col_reused;
  if (c.l1.bytes > 0)  // no L1: nothing is kept, nothing is shared
    t.l1_hits = p.l1_row_reused + p.l1_col_reused + row_fresh * share.share_row + col_fresh * share.share_col;
  t.l1_hits = std::min(t.l1_hits, p.l1_sectors);
  t.l2_load_sectors = p.l1_sectors - t.l1_hits;

  // DRAM: the row operand once (CTAs of one grid row run together), the column operand once
  // per pass it is not kept, the output once (written back dirty).
  const double sector = c.l2_sector_bytes;
  auto sectors = [&](double bytes) { return std::ceil(bytes / sector) * sector; };
  t.dram_read = sectors(p.row_bytes) + sectors(p.col_bytes) * (1 + (reuse.passes - 1) * reuse.lost);
  // Never more than the L2 was asked for.
  t.dram_read = std::min(t.dram_read, t.l2_load_sectors * sector);
  t.dram_write = sectors(p.out_bytes);
  return t;
}

// ---------------------------------------------------------------------------------------
// (4) Timing

double unit_occupancy(const GpuConfig& c, const FunctionalUnitConfig& u) {
  return static_cast<double>(ceil_div(c.warp_size, u.lanes) * u.initiation_interval);
}

// The SM's busiest resource per k-step with `r` CTAs resident: issue, the INT, FP32 and LD/ST
// pipes and the tensor cores of the busiest sub-core, the MIO queue, the NoC port.
double step_demand(const Profile& p, const GpuConfig& c, double r, double l1_miss_fraction) {
  const double warps = std::max(1.0, r * p.active_warps);
  const double sub = r * std::ceil(warps / c.subcores_per_sm) / warps;  // the busiest sub-core's share
  const double noc = r * p.step_l1_sectors * l1_miss_fraction * c.l1.sector_bytes / c.noc_bytes_per_cycle_per_sm;
  return std::max({sub * p.step_instructions, sub * p.step_int * unit_occupancy(c, c.int_alu),
                   sub * p.step_fp * unit_occupancy(c, c.fp32), sub * p.step_ldst * unit_occupancy(c, c.ldst),
                   sub * p.step_mma * static_cast<double>(p.mma.occupancy), r * p.step_mio, noc});
}

// Mean-value analysis of the closed network a wave forms: `n` CTAs in flight on the GPU, `r`
// of them on the busiest SM. Each k-step a CTA visits its SM's busiest resource (`sm` cycles,
// a queue of that SM's r CTAs), the L2 and the DRAM (`l2`, `dram` cycles: bytes over the
// GPU-wide bandwidth, queues shared by all n CTAs) and a delay of `think` cycles (latency).
// Schweitzer's approximation (a customer arriving at a queue sees the queue of n-1 others)
// solved by fixed-point iteration. Returns a CTA's cycle time: sm + l2 + dram + think for one
// CTA alone, tending to the busiest queue's bound (r * sm, n * l2, n * dram) under load.
double mva_cycle(double r, double n, double sm, double l2, double dram, double think) {
  r = std::max(1.0, r);
  n = std::max(r, n);
  double r_sm = sm, r_l2 = l2, r_dram = dram, cycle = sm + l2 + dram + think;
  for (int i = 0; i < 500; ++i) {
    // Queue lengths by Little's law (customers times their share of the cycle spent at the
    // queue), as an arriving customer sees them: the others' share.
    const double next_sm = sm * (1 + (r - 1) * r_sm / cycle);
    const double next_l2 = l2 * (1 + (n - 1) * r_l2 / cycle);
    const double next_dram = dram * (1 + (n - 1) * r_dram / cycle);
    const double next = think + next_sm + next_l2 + next_dram;
    const bool settled = std::abs(next - cycle) <= 1e-9 * cycle;
    r_sm = 0.5 * (r_sm + next_sm);
    r_l2 = 0.5 * (r_l2 + next_l2);
    r_dram = 0.5 * (r_dram + next_dram);
    cycle = 0.5 * (cycle + next);
    if (settled) break;
  }
  // The bounds the fixed point approaches from below: a queue serves one customer at a time.
  return std::max({cycle, r * sm, n * l2, n * dram});
}

// Cycles of one wave with `r` CTAs on the busiest SM and `n` in flight on the GPU: k-steps of
// the MVA cycle, the prologue and the drain. `latency`: the first load's fill (the row
// operand, from DRAM); `second_latency`: the tile kernels' second (the column operand: from
// DRAM on its first pass, else from L2). `l2_step`, `dram_step`: a CTA-step's bytes over the
// L2 and DRAM bandwidths.
double wave_cycles(const Profile& p, const GpuConfig& c, double r, double n, double latency, double second_latency,
                   double l1_miss_fraction, double l2_step, double dram_step) {
  // The customers are CTAs (a barrier keeps a CTA's warps together; wmma_gemm's warps have
  // none, but under load the SMs' requests reach the L2 in bursts and a CTA's warps complete
  // together).
  const double demand = step_demand(p, c, r, l1_miss_fraction) / r;
  // Latency of one CTA's step beyond its SM work: the dependent instructions and the memory
  // latencies in sequence, plus what of its own serial work (its lines in order, the
  // shared-memory product) the SM demand does not cover.
  const double waits = p.serial_loads == 1 ? latency : latency + second_latency;
  const double own = p.step_global_lines_per_warp * p.active_warps + p.shared_phase;
  const double think = p.head_chain + waits + std::max(0.0, own - step_demand(p, c, 1, l1_miss_fraction));
  const double step = mva_cycle(r, n, demand, l2_step, dram_step, think);
  const double head = p.fixed_instructions + 4.0 * c.int_alu.latency;
  const double drain = r * p.store_lines / std::max(1.0, static_cast<double>(p.grid_x * p.grid_y)) +
                       c.l2_hit_latency / 2.0 + c.noc_latency + static_cast<double>(p.mma.latency);
  return p.steps * step + head + drain;
}

}  // namespace

GpuStats estimate_launch(const LaunchRecipe& recipe, const GpuConfig& device) {
  const PtxKernel& kernel = shipped_kernel(recipe.kernel);
  CtaResources cta;
  cta.threads = static_cast<int>(recipe.block.x * recipe.block.y * recipe.block.z);
  cta.warps = (cta.threads + device.warp_size - 1) / device.warp_size;
  cta.registers_per_thread = kernel.estimated_registers;
  cta.shared_bytes = kernel.static_shared_bytes;
  check_launch(device, cta, {recipe.grid.x, recipe.grid.y, recipe.grid.z});
  check_timing_config(device);
  const Occupancy occupancy = compute_occupancy(device, cta);
  // The L1 is what this launch's carve-out leaves of the unified array, as in the cycle model.
  const GpuConfig config = config_for_launch(device, occupancy);
  Profile p = profile_for(recipe, config);

  const int64_t ctas = p.grid_x * p.grid_y;
  const int64_t per_sm = ceil_div(ctas, config.sms);
  const int resident = static_cast<int>(std::min<int64_t>(occupancy.ctas_per_sm, per_sm));
  const ColumnReuse reuse = column_reuse(p, config, resident);
  const CoResidency share = co_residency(p, config, resident);
  const Traffic t = memory_traffic(p, config, reuse, share);

  GpuStats s;
  s.ctas = ctas;
  s.resident_ctas_per_sm = resident;
  s.occupancy_limiter = occupancy.limiter;
  s.shared_carveout_bytes = occupancy.shared_carveout;
  s.l1_bytes = occupancy.l1_bytes;
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
  p.step_l1_sectors = p.l1_sectors / std::max(1.0, static_cast<double>(ctas) * p.steps);
  const int64_t waves = ceil_div(per_sm, occupancy.ctas_per_sm);
  const int64_t last = per_sm - (waves - 1) * occupancy.ctas_per_sm;
  const double l2_bytes_per_cycle = config.l2_slices * config.l2_bytes_per_cycle_per_slice;
  const double l2_latency = config.l2_hit_latency + 2.0 * config.noc_latency;
  const double second = l2_latency + reuse.from_dram * config.dram_latency;
  // Dirty sectors still in L2 at the end are counted but not timed (as in the cycle model):
  // the L2 ends holding its share of the output, the rest was written back during the run.
  const double traffic = t.dram_read + t.dram_write;
  const double timed_writes =
      traffic > 0 ? t.dram_write * std::max(0.0, 1 - static_cast<double>(config.l2_bytes) / traffic) : 0.0;
  // Per CTA-step bytes through the L2 and DRAM, in cycles at the GPU-wide bandwidths.
  const double cta_steps = std::max(1.0, static_cast<double>(ctas) * p.steps);
  const double l2_step = (t.l2_load_sectors + p.store_sectors) * sector / cta_steps / l2_bytes_per_cycle;
  const double dram_step = (t.dram_read + timed_writes) / cta_steps / config.dram_bytes_per_cycle();
  auto wave = [&](int64_t r, int64_t concurrent) {
    return wave_cycles(p, config, static_cast<double>(r), static_cast<double>(concurrent), memory_latency, second, l1_miss,
                       l2_step, dram_step);
  };
  const int64_t slots = int64_t{config.sms} * occupancy.ctas_per_sm;
  const double sm_cycles = static_cast<double>(waves - 1) * wave(occupancy.ctas_per_sm, std::min(ctas, slots)) +
                           wave(last, std::min(ctas - (waves - 1) * slots, slots));
  // The floors count every DRAM byte, the final write-back included: a kernel is not done
  // before its output could have reached DRAM (the cycle model leaves that write-back
  // untimed, so on write-heavy launches it finishes sooner; docs).
  const double dram_cycles = traffic / config.dram_bytes_per_cycle();
  const double l2_cycles = (t.l2_load_sectors + p.store_sectors) * sector / l2_bytes_per_cycle;
  // The executed flops at the peak of the units that run them (tensor cores or FP32 lanes).
  const double peak = p.mmas > 0 ? config.peak_tensor_flops(TensorPrecision::f16_f32) : config.peak_fp32_flops();
  const double peak_per_cycle = peak / config.clock_hz;
  const double compute_cycles = p.flops / peak_per_cycle;
  s.cycles = static_cast<int64_t>(std::ceil(std::max({sm_cycles, dram_cycles, l2_cycles, compute_cycles})));
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
