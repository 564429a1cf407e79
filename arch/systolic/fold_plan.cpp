#include "arch/systolic/fold_plan.h"

#include "sim/error.h"

namespace loom {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

SramAccesses& SramAccesses::operator+=(const SramAccesses& o) {
  ifmap_reads += o.ifmap_reads;
  filter_reads += o.filter_reads;
  ofmap_reads += o.ofmap_reads;
  ofmap_writes += o.ofmap_writes;
  return *this;
}

SpatialMap spatial_map(const GemmView& g, Dataflow d) {
  switch (d) {
    case Dataflow::ws: return {g.k, g.n, g.m};
    case Dataflow::is: return {g.k, g.m, g.n};
    case Dataflow::os: return {g.m, g.n, g.k};
  }
  return {};
}

int64_t fold_count(const GemmView& g, const ArrayGeometry& a) {
  const SpatialMap s = spatial_map(g, a.dataflow);
  return g.groups * ceil_div(s.row_dim, a.rows) * ceil_div(s.col_dim, a.cols);
}

std::vector<Fold> plan_folds(const GemmView& g, const ArrayGeometry& a) {
  LOOM_CHECK(a.rows > 0 && a.cols > 0, "fold_plan", "array must have rows and cols");
  const SpatialMap s = spatial_map(g, a.dataflow);
  const int64_t row_folds = ceil_div(s.row_dim, a.rows);
  const int64_t col_folds = ceil_div(s.col_dim, a.cols);
  const bool k_on_rows = a.dataflow != Dataflow::os;
  std::vector<Fold> folds;
  folds.reserve(static_cast<size_t>(g.groups * row_folds * col_folds));
  auto add = [&](int64_t group, int64_t rf, int64_t cf) {
    Fold f;
    f.group = group;
    f.row_fold = rf;
    f.col_fold = cf;
    f.row_begin = rf * a.rows;
    f.rows = std::min(a.rows, s.row_dim - f.row_begin);
    f.col_begin = cf * a.cols;
    f.cols = std::min(a.cols, s.col_dim - f.col_begin);
    f.temporal = s.time_dim;
    f.first_k = !k_on_rows || rf == 0;
    f.last_k = !k_on_rows || rf == row_folds - 1;
    folds.push_back(f);
  };
  for (int64_t group = 0; group < g.groups; ++group) {
    if (k_on_rows) {  // K (rows) innermost: partial sums finish in consecutive folds
      for (int64_t cf = 0; cf < col_folds; ++cf)
        for (int64_t rf = 0; rf < row_folds; ++rf) add(group, rf, cf);
    } else {
      for (int64_t rf = 0; rf < row_folds; ++rf)
        for (int64_t cf = 0; cf < col_folds; ++cf) add(group, rf, cf);
    }
  }
  return folds;
}

FoldCost fold_cost(const Fold& f, const ArrayGeometry& a) {
  FoldCost c;
  c.macs = f.rows * f.cols * f.temporal;
  // Timing uses the used tile, or the whole array under SCALE-Sim's convention.
  const int64_t rows_t = a.scalesim_compat ? a.rows : f.rows;
  const int64_t cols_t = a.scalesim_compat ? a.cols : f.cols;
  const int64_t T = f.temporal;
  if (a.dataflow == Dataflow::os) {
    // Skewed feed from left and top; last MAC at PE(rows-1, cols-1) in cycle
    // T + rows + cols - 3. Native: then `a.rows` cycles to shift the outputs out of the
    // bottom edge. SCALE-Sim does not charge the drain.
    c.cycles = T + rows_t + cols_t - 2 + (a.scalesim_compat ? 0 : a.rows);
    c.sram.ifmap_reads = T * f.rows;
    c.sram.filter_reads = T * f.cols;
    c.sram.ofmap_writes = f.rows * f.cols;
    return c;
  }
  // ws / is: preload the stationary tile (one row per cycle from the top), then stream
  // T vectors with a one-cycle skew per row; partial sums ripple down through all
  // `a.rows` rows and leave the bottom edge; the last leaves column cols-1.
  c.cycles = rows_t + T + a.rows + cols_t - 2;
  const int64_t stationary = f.rows * f.cols;
  const int64_t streamed = T * f.rows;
  c.sram.ifmap_reads = a.dataflow == Dataflow::ws ? streamed : stationary;
  c.sram.filter_reads = a.dataflow == Dataflow::ws ? stationary : streamed;
  c.sram.ofmap_writes = T * f.cols;
  // Accumulating into the ofmap buffer reads the previous partial sum back, except on
  // the first K fold. SCALE-Sim counts no such reads.
  c.sram.ofmap_reads = (f.first_k || a.scalesim_compat) ? 0 : T * f.cols;
  return c;
}

}  // namespace loom
