// Lowering a layer's tensors to the per-group GEMM operands the array sees, and a direct
// reference implementation to check the array's outputs against.
//
// Layouts (all row-major, plain std::vector<int64_t>):
//   conv2d ifmap:   NCHW  [batch][in_channels][in_h][in_w]
//   conv2d weights: KCRS  [out_channels][in_channels/groups][kernel_h][kernel_w]
//   gemm ifmap:     [groups][batch*m][k]
//   gemm weights:   [groups][k][n]
// GEMM operands per group g (see GemmView):
//   A (M x K): row m = (image * out_h + oh) * out_w + ow; column k = (c * kernel_h + r) *
//              kernel_w + s with c the channel inside the group (channel-major, then r, s).
//              Padding reads as zero; dilation is honored.
//   B (K x N): B[k][n] = weight of output channel g * N + n at the same (c, r, s).
//   C (M x N): C[m][n] = output channel g * N + n at pixel m.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "workloads/layer.h"

namespace loom {

using IntMatrix = Eigen::Matrix<int64_t, Eigen::Dynamic, Eigen::Dynamic>;

// Per-group M x K ifmap operand matrices. For GEMM layers this just reshapes.
std::vector<IntMatrix> im2col(const Layer& layer, const std::vector<int64_t>& ifmap);
// Per-group K x N filter operand matrices. For GEMM layers this just reshapes.
std::vector<IntMatrix> filter_matrices(const Layer& layer, const std::vector<int64_t>& weights);
// Direct convolution (7 nested loops; for GEMM layers a direct triple loop), returned as
// per-group M x N matrices in the layout above.
std::vector<IntMatrix> reference_conv2d(const Layer& layer, const std::vector<int64_t>& ifmap,
                                        const std::vector<int64_t>& weights);

// GEMM-layer reshape helpers (the gemm branches of im2col / filter_matrices).
std::vector<IntMatrix> gemm_a_matrices(const Layer& layer, const std::vector<int64_t>& ifmap);
std::vector<IntMatrix> gemm_b_matrices(const Layer& layer, const std::vector<int64_t>& weights);

// Per-group M x N outputs back to the ofmap tensor: NCHW for conv2d, [groups][batch*m][n]
// for gemm.
std::vector<int64_t> ofmap_tensor(const Layer& layer, const std::vector<IntMatrix>& outputs);

}  // namespace loom
