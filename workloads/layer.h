// The layer IR: what a layer computes, independent of any hardware. Shapes are typed in;
// everything else (output size, MACs, operand element counts, the GEMM view) is derived.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workloads/post_op.h"

namespace loom {

enum class LayerKind { conv2d, gemm };

// A 2-D convolution, NCHW semantics. Padding is applied on both sides (top and bottom,
// left and right). groups == in_channels == out_channels/multiplier is depthwise.
struct Conv2d {
  int64_t in_h = 0, in_w = 0;          // unpadded input height and width
  int64_t in_channels = 0, out_channels = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;        // per side
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t groups = 1;
};

// C[M][N] = A[M][K] * B[K][N], `groups` independent instances (batched GEMM, e.g.
// attention heads). A fully-connected layer is a GEMM with M = batch.
struct Gemm {
  int64_t m = 0, n = 0, k = 0;
  int64_t groups = 1;
};

// One matrix multiplication as the array sees it: `groups` independent
// [m x k] * [k x n] products. Convolutions are lowered by im2col: m = batch * out pixels,
// n = output channels per group, k = input channels per group * kernel window.
struct GemmView {
  int64_t m = 0, n = 0, k = 0, groups = 1;
};

struct Layer {
  std::string name;
  LayerKind kind = LayerKind::gemm;
  int64_t batch = 1;  // conv: images; gemm: multiplies m (sequences, samples)
  Conv2d conv;
  Gemm gemm;
  // Applied in order to the layer's output (network files' "post_ops"); training only.
  std::vector<PostOp> post_ops;

  int64_t out_h() const;  // conv only
  int64_t out_w() const;  // conv only
  GemmView gemm_view() const;
  int64_t macs() const;
  // Distinct elements of each operand tensor (not im2col copies).
  int64_t ifmap_elements() const;
  int64_t filter_elements() const;
  int64_t ofmap_elements() const;
  const char* kind_name() const { return kind == LayerKind::conv2d ? "conv2d" : "gemm"; }
};

// Largest size of any one dimension, and MACs of one layer, that loom accepts: they keep
// every derived count and cycle far below 64-bit overflow.
inline constexpr int64_t kMaxLayerDimension = int64_t{1} << 24;
inline constexpr int64_t kMaxLayerMacs = 1'000'000'000'000'000;

// Checks a layer's shape; returns "" when valid, else the rule that is broken, and sets
// *field to the offending field (e.g. "kernel": "filter 7x7 (dilated extent 7x7) is
// larger than the padded input 5x5").
std::string shape_error(const Layer& layer, std::string* field);

}  // namespace loom
