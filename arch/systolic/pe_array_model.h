// The PE-level ("detailed") systolic array model: every operand moves through every PE of
// the R x C array one PE per cycle, with real values, for ws, is and os. Cycle counts and
// SRAM access counts are derived purely from stepping the register grid (they are counted
// where operands cross the array edges and where the stepping loop stops), never from
// fold_cost(); tests prove the two agree. Folds come from plan_folds() and run back to
// back with no overlap.
//
// Conventions (cycle 0 = first cycle of a fold):
//   ws / is: the stationary tile is shifted in from the top edge, one row per cycle
//     (f.rows cycles; geometry.rows under scalesim_compat, zero-padded). Then streamed
//     vector t enters array row i at stream cycle t + i from the left and moves right one
//     PE per cycle; partial sums enter each column top as 0 and move down one PE per cycle.
//     The sum for (t, column j) leaves the bottom edge at stream cycle t + rows - 1 + j
//     and is written to the ofmap buffer (reading the previous partial sum first when the
//     fold is not the first K fold, native convention only).
//   os: A rows enter from the left (row i gets k at cycle k + i), B columns from the top
//     (column j gets k at cycle k + j); PE(i,j) accumulates. Native: then the accumulators
//     are shifted out of the bottom edge, one row per cycle (geometry.rows cycles).
//     scalesim_compat: the tile is padded to the full array and outputs leave in parallel.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "arch/systolic/fold_plan.h"

namespace loom {

using IntMatrix = Eigen::Matrix<int64_t, Eigen::Dynamic, Eigen::Dynamic>;

struct PeLevelResult {
  int64_t cycles = 0;  // total over all folds (folds run back to back, no overlap)
  int64_t macs = 0;    // MACs actually performed with both operands valid (real, not padding)
  SramAccesses sram;   // counted at the array edges
  std::vector<IntMatrix> outputs;  // per group, M x N
};

// a[g] is the M x K ifmap operand matrix of group g (im2col rows), b[g] the K x N filter.
// All groups must share M, N and K.
PeLevelResult run_pe_level(const ArrayGeometry& geometry, const std::vector<IntMatrix>& a,
                           const std::vector<IntMatrix>& b);

}  // namespace loom
