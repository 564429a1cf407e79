// The mapper's view of one layer: a 7-deep loop nest over the convolution dimensions
// N (batch), K (output channels), C (input channels), P, Q (output rows, columns),
// R, S (filter rows, columns), and the three operands it touches. A GEMM
// C[M][N] = A[M][K] x B[K][N] is the same nest with M on P, N on K, K on C (and the
// other dimensions 1); it is printed with its own names. Groups (depthwise, attention
// heads) are independent repetitions of one group's nest.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "workloads/layer.h"

namespace loom {

enum Dim : int { kDimN, kDimK, kDimC, kDimP, kDimQ, kDimR, kDimS };
inline constexpr int kNumDims = 7;
enum Operand : int { kWeights, kInputs, kOutputs };
inline constexpr int kNumOperands = 3;

using DimArray = std::array<int64_t, kNumDims>;
using DimMask = uint8_t;  // bit d set: dimension d
inline constexpr DimMask dim_bit(int d) { return static_cast<DimMask>(1u << d); }
inline constexpr DimMask kAllDims = 0x7f;

// Dimensions each operand is indexed by (inputs via the sliding window P+R, Q+S).
inline constexpr std::array<DimMask, kNumOperands> kRelevantDims = {
    dim_bit(kDimK) | dim_bit(kDimC) | dim_bit(kDimR) | dim_bit(kDimS),                  // weights
    dim_bit(kDimN) | dim_bit(kDimC) | dim_bit(kDimP) | dim_bit(kDimQ) | dim_bit(kDimR) |
        dim_bit(kDimS),                                                                 // inputs
    dim_bit(kDimN) | dim_bit(kDimK) | dim_bit(kDimP) | dim_bit(kDimQ)};                 // outputs
inline constexpr bool relevant(int operand, int dim) {
  return (kRelevantDims[operand] >> dim) & 1;
}

const char* operand_name(int operand);  // "weights", "inputs", "outputs"
// Parses an operand name; returns -1 when unknown.
int parse_operand(const std::string& name);

struct Problem {
  std::string layer_name;
  bool is_gemm = false;
  DimArray bound{1, 1, 1, 1, 1, 1, 1};
  int64_t groups = 1;  // independent repetitions of the nest
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;

  int64_t macs() const;                 // all groups
  int64_t macs_per_group() const;
  // Distinct elements of `operand` touched by a tile whose loop extents are `extent`
  // (inputs: the sliding-window footprint (p-1)*stride + (r-1)*dilation + 1 per axis).
  int64_t tile_elements(int operand, const DimArray& extent) const;
  int64_t operand_elements(int operand) const { return tile_elements(operand, bound); }
  // Loop name for printing: conv "N K C P Q R S"; GEMM "M" for P, "N" for K, "K" for C.
  const char* dim_name(int dim) const;
  // Parses a loop name of this problem's kind; returns -1 when unknown.
  int parse_dim(const std::string& name) const;
};

// The nest of one layer. With `im2col` a convolution is lowered to its GEMM view first
// (what a systolic array that streams im2col rows sees).
Problem problem_of(const Layer& layer, bool im2col);

}  // namespace loom
