#include "arch/simt/kernels/layer_kernels.h"

namespace loom::simt {

const char* precision_name(GpuPrecision p) { return p == GpuPrecision::fp16 ? "fp16" : "fp32"; }

namespace {

int64_t round_up(int64_t v, int64_t multiple) { return (v + multiple - 1) / multiple * multiple; }

bool is_plain_conv(const Layer& layer) {
  const Conv2d& c = layer.conv;
  return layer.kind == LayerKind::conv2d && c.groups == 1 && c.dilation_h == 1 && c.dilation_w == 1 &&
         c.stride_h == c.stride_w && c.pad_h == c.pad_w;
}

}  // namespace

LayerLaunch launch_for_layer(const Layer& layer, GpuPrecision precision) {
  LayerLaunch launch;
  launch.useful_flops = 2.0 * double(layer.macs());
  const GemmView g = layer.gemm_view();
  const int64_t m = g.m * g.groups;
  if (precision == GpuPrecision::fp16) {
    launch.recipe = make_launch_recipe("wmma_gemm", {{"M", round_up(m, 16)}, {"N", round_up(g.n, 16)}, {"K", round_up(g.k, 16)}},
                                       "layer " + layer.name);
  } else if (is_plain_conv(layer)) {
    const Conv2d& c = layer.conv;
    launch.recipe = make_launch_recipe("conv_implicit_gemm",
                                       {{"N", layer.batch}, {"C", c.in_channels}, {"H", c.in_h}, {"W", c.in_w},
                                        {"K", c.out_channels}, {"R", c.kernel_h}, {"S", c.kernel_w},
                                        {"stride", c.stride_h}, {"pad", c.pad_h}},
                                       "layer " + layer.name);
  } else {
    launch.recipe = make_launch_recipe("tiled_gemm", {{"M", m}, {"N", g.n}, {"K", g.k}}, "layer " + layer.name);
  }
  return launch;
}

}  // namespace loom::simt
