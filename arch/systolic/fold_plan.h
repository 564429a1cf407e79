// How a GEMM view of a layer is cut into folds on an R x C array, per dataflow, and the
// closed-form cost of one fold. Both fidelities walk the same fold list; the PE-level
// model derives cycles and SRAM accesses by stepping every PE, the fast model from
// fold_cost(); tests prove the two equal. Conventions: docs/systolic-conventions.md.
//
// Dataflow roles (GEMM C[M][N] = A[M][K] * B[K][N], A = ifmap, B = filter):
//   ws: array rows <- K, cols <- N, time <- M. B tile stationary, A streams from the left.
//   is: array rows <- K, cols <- M, time <- N. A tile stationary, B streams from the left.
//   os: array rows <- M, cols <- N, time <- K. C tile stationary, A from the left, B from the top.
// Fold order: group, then the non-K spatial dimension(s), then K innermost, so the partial
// sums of one output tile are finished in consecutive folds.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/systolic/systolic_config.h"
#include "workloads/layer.h"

namespace loom {

struct ArrayGeometry {
  int64_t rows = 0, cols = 0;
  Dataflow dataflow = Dataflow::ws;
  bool scalesim_compat = false;  // pad every fold to the full array (SCALE-Sim timing)
};

struct Fold {
  int64_t group = 0;
  int64_t row_begin = 0, rows = 0;  // range along the dimension mapped to array rows
  int64_t col_begin = 0, cols = 0;  // range along the dimension mapped to array columns
  int64_t temporal = 0;             // length of the streamed dimension
  bool first_k = true, last_k = true;  // position of this fold in its K accumulation
  int64_t row_fold = 0, col_fold = 0;  // fold indices along rows and cols
};

struct SramAccesses {
  int64_t ifmap_reads = 0, filter_reads = 0, ofmap_reads = 0, ofmap_writes = 0;
  SramAccesses& operator+=(const SramAccesses& o);
  bool operator==(const SramAccesses& o) const = default;
};

struct FoldCost {
  int64_t cycles = 0;  // ideal (no-stall) cycles of this fold
  int64_t macs = 0;    // useful multiply-accumulates
  SramAccesses sram;
};

// Dimensions of the GEMM mapped to array rows, array cols and time for this dataflow.
struct SpatialMap {
  int64_t row_dim = 0, col_dim = 0, time_dim = 0;
};
SpatialMap spatial_map(const GemmView& g, Dataflow d);

// All folds in execution order. The count is row_folds * col_folds * groups.
std::vector<Fold> plan_folds(const GemmView& g, const ArrayGeometry& a);
int64_t fold_count(const GemmView& g, const ArrayGeometry& a);

// Closed-form ideal cost of one fold (the fast model's formula).
FoldCost fold_cost(const Fold& f, const ArrayGeometry& a);

}  // namespace loom
