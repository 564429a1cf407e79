#include "arch/systolic/pe_array_model.h"

#include <algorithm>
#include <string>
#include <utility>

#include "sim/error.h"

namespace loom {

namespace {

constexpr int64_t kNone = -1;  // tag of an empty register (no operand / no partial sum)

// One register plane of the array: a value and a tag per PE, row-major (i * cols + j).
// `tag` is the temporal index (t or k) of the operand held, kNone when empty; `real`
// says whether the value came from a real matrix element or from zero padding.
struct Plane {
  std::vector<int64_t> value, tag;
  std::vector<unsigned char> real;
  void resize(size_t n) {
    value.assign(n, 0);
    tag.assign(n, kNone);
    real.assign(n, 0);
  }
  void clear() {
    std::fill(value.begin(), value.end(), 0);
    std::fill(tag.begin(), tag.end(), kNone);
    std::fill(real.begin(), real.end(), 0);
  }
};

// Double-buffered register planes, reused across folds so the cycle loop never allocates.
struct Registers {
  Plane stat_cur, stat_nxt;  // ws/is: stationary operand
  Plane x_cur, x_nxt;        // ws/is: streamed operand (moves right); os: A (moves right)
  Plane p_cur, p_nxt;        // ws/is: partial sums (move down); os: B (moves down)
  Plane acc_cur, acc_nxt;    // os: accumulators (stationary; shifted down in the drain)
  void resize(size_t n) {
    for (Plane* p : {&stat_cur, &stat_nxt, &x_cur, &x_nxt, &p_cur, &p_nxt, &acc_cur, &acc_nxt})
      p->resize(n);
  }
  void clear() {
    for (Plane* p : {&stat_cur, &stat_nxt, &x_cur, &x_nxt, &p_cur, &p_nxt, &acc_cur, &acc_nxt})
      p->clear();
  }
};

struct Operands {
  const IntMatrix* a = nullptr;  // M x K
  const IntMatrix* b = nullptr;  // K x N
  IntMatrix* c = nullptr;        // M x N
};

// ws / is: preload the stationary tile from the top, then stream and ripple partial sums.
int64_t run_fold_stationary(const ArrayGeometry& geo, const Fold& f, const Operands& op,
                            Registers& r, PeLevelResult& res) {
  const int64_t R = geo.rows, C = geo.cols, T = f.temporal;
  const bool ws = geo.dataflow == Dataflow::ws;
  const bool compat = geo.scalesim_compat;
  const IntMatrix& A = *op.a;
  const IntMatrix& B = *op.b;
  IntMatrix& out = *op.c;

  // Stationary element (i, j) of the tile: ws B[k][n], is A^T[k][m] = A[m][k].
  auto stat_elem = [&](int64_t i, int64_t j) -> int64_t {
    const int64_t k = f.row_begin + i, x = f.col_begin + j;
    return ws ? B(k, x) : A(x, k);
  };
  // Streamed vector t, element for array row i: ws A[t][k], is B^T[t][k] = B[k][t].
  auto stream_elem = [&](int64_t t, int64_t i) -> int64_t {
    const int64_t k = f.row_begin + i;
    return ws ? A(t, k) : B(k, t);
  };
  int64_t& stat_reads = ws ? res.sram.filter_reads : res.sram.ifmap_reads;
  int64_t& stream_reads = ws ? res.sram.ifmap_reads : res.sram.filter_reads;

  r.clear();
  int64_t cycles = 0;

  // --- Preload: one tile row enters the top edge per cycle, everything shifts down. The
  // bottom-most used row is fed first, so after the last feed row i holds tile row i.
  // Under SCALE-Sim's convention the tile is zero-padded to the whole array.
  const int64_t feed_rows = compat ? R : f.rows;
  for (int64_t fed = 0; fed < feed_rows; ++fed) {
    const int64_t tile_row = feed_rows - 1 - fed;
    for (int64_t i = R - 1; i >= 1; --i) {
      for (int64_t j = 0; j < C; ++j) {
        const int64_t d = i * C + j, s = (i - 1) * C + j;
        r.stat_nxt.value[d] = r.stat_cur.value[s];
        r.stat_nxt.real[d] = r.stat_cur.real[s];
        r.stat_nxt.tag[d] = r.stat_cur.tag[s];
      }
    }
    for (int64_t j = 0; j < C; ++j) {
      const bool real = tile_row < f.rows && j < f.cols;
      const bool present = real || compat;  // padding zeros occupy the register
      r.stat_nxt.value[j] = real ? stat_elem(tile_row, j) : 0;
      r.stat_nxt.real[j] = real;
      r.stat_nxt.tag[j] = present ? tile_row : kNone;
      if (real) ++stat_reads;
    }
    std::swap(r.stat_cur, r.stat_nxt);
    ++cycles;
  }
  for (int64_t i = 0; i < R; ++i)  // the tile must have landed where the schedule says
    for (int64_t j = 0; j < C; ++j) {
      const int64_t d = i * C + j;
      const bool want = i < f.rows && j < f.cols;
      LOOM_CHECK(r.stat_cur.real[d] == want, "pe_array_model", "stationary tile misplaced");
      LOOM_CHECK(!want || r.stat_cur.tag[d] == i, "pe_array_model", "stationary row misplaced");
    }

  // --- Stream. The fold ends after the cycle in which the last output column used for
  // timing (f.cols, or every column under compat) has emitted its sum for t = T-1.
  const int64_t timed_cols = compat ? C : f.cols;
  const int64_t expected_exits = T * timed_cols;
  const bool read_back = !f.first_k && !compat;
  int64_t exits = 0;
  const int64_t guard = T + R + C + 4;  // a broken schedule must not hang the simulator
  for (int64_t s = 0; exits < expected_exits; ++s) {
    LOOM_CHECK(s < guard, "pe_array_model", "stream phase did not finish");
    // Streamed operands: enter at the left edge, move one PE right per cycle.
    for (int64_t i = 0; i < R; ++i) {
      const int64_t row = i * C;
      for (int64_t j = C - 1; j >= 1; --j) {
        r.x_nxt.value[row + j] = r.x_cur.value[row + j - 1];
        r.x_nxt.tag[row + j] = r.x_cur.tag[row + j - 1];
      }
      const int64_t t = s - i;
      if (i < f.rows && t >= 0 && t < T) {
        r.x_nxt.value[row] = stream_elem(t, i);
        r.x_nxt.tag[row] = t;
        ++stream_reads;
      } else {
        r.x_nxt.value[row] = 0;
        r.x_nxt.tag[row] = kNone;
      }
    }
    // Partial sums: enter the top as 0, move one PE down per cycle, each PE adds
    // stationary * streamed when it holds both.
    for (int64_t i = 0; i < R; ++i) {
      for (int64_t j = 0; j < C; ++j) {
        const int64_t d = i * C + j;
        int64_t sum, tag;
        unsigned char touched;
        if (i == 0) {
          sum = 0;
          tag = r.x_nxt.tag[d];  // a new partial sum starts with the streamed vector
          touched = 0;
        } else {
          const int64_t u = d - C;
          sum = r.p_cur.value[u];
          tag = r.p_cur.tag[u];
          touched = r.p_cur.real[u];
        }
        const int64_t xt = r.x_nxt.tag[d];
        if (xt != kNone && r.stat_cur.real[d]) {
          LOOM_CHECK(xt == tag, "pe_array_model", "streamed operand met the wrong partial sum");
          sum += r.stat_cur.value[d] * r.x_nxt.value[d];
          touched = 1;
          ++res.macs;
        }
        r.p_nxt.value[d] = sum;
        r.p_nxt.tag[d] = tag;
        r.p_nxt.real[d] = touched;
      }
    }
    // Bottom edge: sums leave the array this cycle.
    const int64_t bottom = (R - 1) * C;
    for (int64_t j = 0; j < C; ++j) {
      const int64_t d = bottom + j;
      const int64_t t = r.p_nxt.tag[d];
      if (t == kNone) continue;
      if (j < timed_cols) ++exits;
      if (!r.p_nxt.real[d]) continue;  // unused column: no output, no write
      LOOM_CHECK(j < f.cols, "pe_array_model", "output from an unused column");
      const int64_t x = f.col_begin + j;
      int64_t& dst = ws ? out(t, x) : out(x, t);
      if (read_back) ++res.sram.ofmap_reads;  // previous partial sum
      dst = (f.first_k ? 0 : dst) + r.p_nxt.value[d];
      ++res.sram.ofmap_writes;
    }
    std::swap(r.x_cur, r.x_nxt);
    std::swap(r.p_cur, r.p_nxt);
    ++cycles;
  }
  return cycles;
}

// os: A from the left, B from the top, outputs accumulate in place, then drain.
int64_t run_fold_output_stationary(const ArrayGeometry& geo, const Fold& f, const Operands& op,
                                   Registers& r, PeLevelResult& res) {
  const int64_t R = geo.rows, C = geo.cols, T = f.temporal;
  const bool compat = geo.scalesim_compat;
  const IntMatrix& A = *op.a;
  const IntMatrix& B = *op.b;
  IntMatrix& out = *op.c;
  // Under compat the tile is padded with zeros to the full array, so padding operands
  // enter the padded rows and columns too (they count for timing but not as MACs/reads).
  const int64_t fed_rows = compat ? R : f.rows;
  const int64_t fed_cols = compat ? C : f.cols;

  r.clear();
  Plane& a_cur = r.x_cur; Plane& a_nxt = r.x_nxt;
  Plane& b_cur = r.p_cur; Plane& b_nxt = r.p_nxt;
  int64_t cycles = 0;
  int64_t pairs = 0;  // operand pairs (real or padding) that met in a PE
  const int64_t expected_pairs = fed_rows * fed_cols * T;
  const int64_t guard = T + R + C + 4;
  for (int64_t c = 0; pairs < expected_pairs; ++c) {
    LOOM_CHECK(c < guard, "pe_array_model", "os compute phase did not finish");
    for (int64_t i = 0; i < R; ++i) {  // A: left edge, moves right
      const int64_t row = i * C;
      for (int64_t j = C - 1; j >= 1; --j) {
        a_nxt.value[row + j] = a_cur.value[row + j - 1];
        a_nxt.tag[row + j] = a_cur.tag[row + j - 1];
        a_nxt.real[row + j] = a_cur.real[row + j - 1];
      }
      const int64_t k = c - i;
      const bool present = i < fed_rows && k >= 0 && k < T;
      const bool real = present && i < f.rows;
      a_nxt.value[row] = real ? A(f.row_begin + i, k) : 0;
      a_nxt.tag[row] = present ? k : kNone;
      a_nxt.real[row] = real;
      if (real) ++res.sram.ifmap_reads;
    }
    for (int64_t i = R - 1; i >= 1; --i)  // B: top edge, moves down
      for (int64_t j = 0; j < C; ++j) {
        const int64_t d = i * C + j;
        b_nxt.value[d] = b_cur.value[d - C];
        b_nxt.tag[d] = b_cur.tag[d - C];
        b_nxt.real[d] = b_cur.real[d - C];
      }
    for (int64_t j = 0; j < C; ++j) {
      const int64_t k = c - j;
      const bool present = j < fed_cols && k >= 0 && k < T;
      const bool real = present && j < f.cols;
      b_nxt.value[j] = real ? B(k, f.col_begin + j) : 0;
      b_nxt.tag[j] = present ? k : kNone;
      b_nxt.real[j] = real;
      if (real) ++res.sram.filter_reads;
    }
    for (int64_t d = 0; d < R * C; ++d) {  // every PE multiplies what it holds
      const int64_t ka = a_nxt.tag[d], kb = b_nxt.tag[d];
      if (ka == kNone || kb == kNone) continue;
      LOOM_CHECK(ka == kb, "pe_array_model", "os operands out of step");
      ++pairs;
      if (a_nxt.real[d] && b_nxt.real[d]) {
        r.acc_cur.value[d] += a_nxt.value[d] * b_nxt.value[d];
        r.acc_cur.real[d] = 1;
        ++res.macs;
      }
    }
    std::swap(a_cur, a_nxt);
    std::swap(b_cur, b_nxt);
    ++cycles;
  }

  auto write = [&](int64_t i, int64_t j, int64_t v) {
    LOOM_CHECK(i < f.rows && j < f.cols, "pe_array_model", "output from an unused PE");
    out(f.row_begin + i, f.col_begin + j) = v;
    ++res.sram.ofmap_writes;
  };
  if (compat) {  // SCALE-Sim: outputs read out in parallel, no drain cycles
    for (int64_t i = 0; i < R; ++i)
      for (int64_t j = 0; j < C; ++j)
        if (r.acc_cur.real[i * C + j]) write(i, j, r.acc_cur.value[i * C + j]);
    return cycles;
  }
  // Native drain: each cycle the bottom row leaves the array and every row shifts down.
  int64_t held = 0;
  for (int64_t d = 0; d < R * C; ++d) held += r.acc_cur.real[d];
  for (int64_t dc = 0; held > 0; ++dc) {
    LOOM_CHECK(dc <= R, "pe_array_model", "os drain did not finish");
    const int64_t bottom = (R - 1) * C;
    for (int64_t j = 0; j < C; ++j) {
      if (!r.acc_cur.real[bottom + j]) continue;
      // The value leaving row R-1 after dc shifts started in array row R-1-dc.
      write(R - 1 - dc, j, r.acc_cur.value[bottom + j]);
      --held;
    }
    for (int64_t i = R - 1; i >= 1; --i)
      for (int64_t j = 0; j < C; ++j) {
        r.acc_nxt.value[i * C + j] = r.acc_cur.value[(i - 1) * C + j];
        r.acc_nxt.real[i * C + j] = r.acc_cur.real[(i - 1) * C + j];
      }
    for (int64_t j = 0; j < C; ++j) {
      r.acc_nxt.value[j] = 0;
      r.acc_nxt.real[j] = 0;
    }
    std::swap(r.acc_cur, r.acc_nxt);
    ++cycles;
  }
  return cycles;
}

}  // namespace

PeLevelResult run_pe_level(const ArrayGeometry& geometry, const std::vector<IntMatrix>& a,
                           const std::vector<IntMatrix>& b) {
  LOOM_CHECK(geometry.rows > 0 && geometry.cols > 0, "pe_array_model",
             "array must have rows and cols");
  LOOM_CHECK(a.size() == b.size(), "pe_array_model", "a and b must have the same group count");
  PeLevelResult res;
  if (a.empty()) return res;
  const int64_t M = a[0].rows(), K = a[0].cols(), N = b[0].cols();
  LOOM_CHECK(M > 0 && N > 0 && K > 0, "pe_array_model", "GEMM dimensions must be positive");
  for (size_t g = 0; g < a.size(); ++g) {
    LOOM_CHECK(a[g].rows() == M && a[g].cols() == K && b[g].rows() == K && b[g].cols() == N,
               "pe_array_model", "group " + std::to_string(g) + " has mismatched shapes");
  }
  const int64_t groups = static_cast<int64_t>(a.size());
  res.outputs.assign(a.size(), IntMatrix::Zero(M, N));

  Registers regs;
  regs.resize(static_cast<size_t>(geometry.rows * geometry.cols));
  for (const Fold& f : plan_folds(GemmView{M, N, K, groups}, geometry)) {
    const size_t g = static_cast<size_t>(f.group);
    const Operands op{&a[g], &b[g], &res.outputs[g]};
    res.cycles += geometry.dataflow == Dataflow::os
                      ? run_fold_output_stationary(geometry, f, op, regs, res)
                      : run_fold_stationary(geometry, f, op, regs, res);
  }
  return res;
}

}  // namespace loom
