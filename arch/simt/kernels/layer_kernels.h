// How a network layer runs on the GPU model: through one of the shipped kernels, as a
// framework would pick a library kernel. FP16 (tensor cores): every layer becomes the
// tensor-core GEMM of its im2col view, each dimension padded up to the 16-element WMMA
// tile, as implicit-GEMM convolution libraries do. FP32: a plain convolution runs the
// implicit-GEMM convolution kernel; anything else (GEMMs, grouped, dilated or asymmetric
// convolutions) runs the tiled SIMT GEMM of its im2col view. Grouped layers stack their
// groups along M (exact MACs; the groups' weights are modelled as one shared matrix, a
// small under-count of weight traffic, documented in docs/simt-model.md).
#pragma once

#include <string>

#include "arch/simt/kernels/kernel_catalog.h"
#include "workloads/layer.h"

namespace loom::simt {

enum class GpuPrecision { fp32, fp16 };
const char* precision_name(GpuPrecision p);

struct LayerLaunch {
  LaunchRecipe recipe;
  double useful_flops = 0;  // 2 x the layer's MACs (padding excluded)
};

LayerLaunch launch_for_layer(const Layer& layer, GpuPrecision precision);

}  // namespace loom::simt
