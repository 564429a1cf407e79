#include "workloads/layer.h"

#include <sstream>
#include <string_view>

namespace loom {

namespace {
int64_t out_extent(int64_t in, int64_t pad, int64_t kernel, int64_t stride, int64_t dilation) {
  const int64_t span = dilation * (kernel - 1) + 1;
  return (in + 2 * pad - span) / stride + 1;
}
}  // namespace

int64_t Layer::out_h() const {
  return out_extent(conv.in_h, conv.pad_h, conv.kernel_h, conv.stride_h, conv.dilation_h);
}
int64_t Layer::out_w() const {
  return out_extent(conv.in_w, conv.pad_w, conv.kernel_w, conv.stride_w, conv.dilation_w);
}

GemmView Layer::gemm_view() const {
  if (kind == LayerKind::gemm) return {batch * gemm.m, gemm.n, gemm.k, gemm.groups};
  return {batch * out_h() * out_w(), conv.out_channels / conv.groups,
          conv.in_channels / conv.groups * conv.kernel_h * conv.kernel_w, conv.groups};
}

int64_t Layer::macs() const {
  const GemmView g = gemm_view();
  return g.m * g.n * g.k * g.groups;
}

int64_t Layer::ifmap_elements() const {
  if (kind == LayerKind::gemm) return batch * gemm.m * gemm.k * gemm.groups;
  return batch * conv.in_channels * conv.in_h * conv.in_w;
}

int64_t Layer::filter_elements() const {
  if (kind == LayerKind::gemm) return gemm.k * gemm.n * gemm.groups;
  return conv.out_channels * (conv.in_channels / conv.groups) * conv.kernel_h * conv.kernel_w;
}

int64_t Layer::ofmap_elements() const {
  if (kind == LayerKind::gemm) return batch * gemm.m * gemm.n * gemm.groups;
  return batch * conv.out_channels * out_h() * out_w();
}

namespace {
// The product of individually bounded sizes can still overflow: check it in 128 bits.
std::string macs_error(const Layer& l, std::string* field) {
  const GemmView g = l.gemm_view();
  const __int128 macs = static_cast<__int128>(g.m) * g.n * g.k * g.groups;
  if (macs > static_cast<__int128>(kMaxLayerMacs)) {
    *field = l.kind == LayerKind::conv2d ? "out_channels" : "m";
    return "the layer has more than 10^15 MACs; loom simulates layers up to that size";
  }
  return "";
}
}  // namespace

std::string shape_error(const Layer& l, std::string* field) {
  auto bad = [&](std::string_view f, std::string rule) {
    field->assign(f.data(), f.size());
    return rule;
  };
  // Bounds keep every derived count (MACs, bytes, cycles) far from 64-bit overflow.
  auto too_big = [](int64_t v) { return v > kMaxLayerDimension; };
  const std::string limit = "must be at most " + std::to_string(kMaxLayerDimension);
  if (l.batch <= 0) return bad("batch", "must be a positive whole number");
  if (too_big(l.batch)) return bad("batch", limit);
  if (l.kind == LayerKind::gemm) {
    const Gemm& g = l.gemm;
    if (g.m <= 0) return bad("m", "must be a positive whole number");
    if (g.n <= 0) return bad("n", "must be a positive whole number");
    if (g.k <= 0) return bad("k", "must be a positive whole number");
    if (g.groups <= 0) return bad("groups", "must be a positive whole number");
    for (auto [name, v] : {std::pair{"m", g.m}, {"n", g.n}, {"k", g.k}, {"groups", g.groups}}) {
      if (too_big(v)) return bad(name, limit);
    }
    return macs_error(l, field);
  }
  const Conv2d& c = l.conv;
  if (c.in_h <= 0 || c.in_w <= 0) return bad("input_hw", "must be positive");
  if (c.in_channels <= 0) return bad("in_channels", "must be a positive whole number");
  if (c.out_channels <= 0) return bad("out_channels", "must be a positive whole number");
  if (c.kernel_h <= 0 || c.kernel_w <= 0) return bad("kernel", "must be positive");
  if (c.stride_h <= 0 || c.stride_w <= 0) return bad("stride", "must be positive");
  if (c.dilation_h <= 0 || c.dilation_w <= 0) return bad("dilation", "must be positive");
  if (c.pad_h < 0 || c.pad_w < 0) return bad("padding", "must be >= 0");
  if (c.groups <= 0) return bad("groups", "must be a positive whole number");
  if (c.in_channels % c.groups != 0 || c.out_channels % c.groups != 0) {
    return bad("groups", "must divide in_channels (" + std::to_string(c.in_channels) +
                             ") and out_channels (" + std::to_string(c.out_channels) + ")");
  }
  for (auto [name, v] : {std::pair{"input_hw", std::max(c.in_h, c.in_w)}, {"in_channels", c.in_channels},
                         {"out_channels", c.out_channels}, {"kernel", std::max(c.kernel_h, c.kernel_w)},
                         {"stride", std::max(c.stride_h, c.stride_w)}, {"padding", std::max(c.pad_h, c.pad_w)},
                         {"dilation", std::max(c.dilation_h, c.dilation_w)}}) {
    if (too_big(v)) return bad(name, limit);
  }
  const int64_t span_h = c.dilation_h * (c.kernel_h - 1) + 1;
  const int64_t span_w = c.dilation_w * (c.kernel_w - 1) + 1;
  const int64_t padded_h = c.in_h + 2 * c.pad_h, padded_w = c.in_w + 2 * c.pad_w;
  if (span_h > padded_h || span_w > padded_w) {
    std::ostringstream rule;  // (a stream: GCC 12 warns falsely on chained string +)
    rule << "filter " << c.kernel_h << "x" << c.kernel_w << " (dilated extent " << span_h << "x" << span_w
         << ") is larger than the padded input " << padded_h << "x" << padded_w;
    return bad("kernel", rule.str());
  }
  return macs_error(l, field);
}

}  // namespace loom
