#include "workloads/im2col.h"

#include <string>

#include "sim/error.h"

namespace loom {

namespace {

void check_size(const std::vector<int64_t>& v, int64_t want, const char* what) {
  LOOM_CHECK(static_cast<int64_t>(v.size()) == want, "im2col",
             std::string(what) + " has " + std::to_string(v.size()) + " elements, expected " +
                 std::to_string(want));
}

}  // namespace

std::vector<IntMatrix> gemm_a_matrices(const Layer& l, const std::vector<int64_t>& ifmap) {
  LOOM_CHECK(l.kind == LayerKind::gemm, "im2col", "gemm_a_matrices needs a gemm layer");
  const GemmView g = l.gemm_view();
  check_size(ifmap, g.groups * g.m * g.k, "gemm ifmap");
  std::vector<IntMatrix> out(static_cast<size_t>(g.groups), IntMatrix(g.m, g.k));
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t m = 0; m < g.m; ++m)
      for (int64_t k = 0; k < g.k; ++k)
        out[static_cast<size_t>(grp)](m, k) = ifmap[static_cast<size_t>((grp * g.m + m) * g.k + k)];
  return out;
}

std::vector<IntMatrix> gemm_b_matrices(const Layer& l, const std::vector<int64_t>& weights) {
  LOOM_CHECK(l.kind == LayerKind::gemm, "im2col", "gemm_b_matrices needs a gemm layer");
  const GemmView g = l.gemm_view();
  check_size(weights, g.groups * g.k * g.n, "gemm weights");
  std::vector<IntMatrix> out(static_cast<size_t>(g.groups), IntMatrix(g.k, g.n));
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t k = 0; k < g.k; ++k)
      for (int64_t n = 0; n < g.n; ++n)
        out[static_cast<size_t>(grp)](k, n) = weights[static_cast<size_t>((grp * g.k + k) * g.n + n)];
  return out;
}

std::vector<IntMatrix> im2col(const Layer& l, const std::vector<int64_t>& ifmap) {
  if (l.kind == LayerKind::gemm) return gemm_a_matrices(l, ifmap);
  const Conv2d& c = l.conv;
  check_size(ifmap, l.ifmap_elements(), "conv ifmap");
  const GemmView g = l.gemm_view();
  const int64_t oh_n = l.out_h(), ow_n = l.out_w();
  const int64_t cg = c.in_channels / c.groups;
  std::vector<IntMatrix> out(static_cast<size_t>(g.groups), IntMatrix::Zero(g.m, g.k));
  for (int64_t grp = 0; grp < c.groups; ++grp) {
    IntMatrix& a = out[static_cast<size_t>(grp)];
    for (int64_t img = 0; img < l.batch; ++img)
      for (int64_t oh = 0; oh < oh_n; ++oh)
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          const int64_t m = (img * oh_n + oh) * ow_n + ow;
          for (int64_t ch = 0; ch < cg; ++ch) {
            const int64_t in_c = grp * cg + ch;
            for (int64_t r = 0; r < c.kernel_h; ++r) {
              const int64_t ih = oh * c.stride_h - c.pad_h + r * c.dilation_h;
              for (int64_t s = 0; s < c.kernel_w; ++s) {
                const int64_t iw = ow * c.stride_w - c.pad_w + s * c.dilation_w;
                const int64_t k = (ch * c.kernel_h + r) * c.kernel_w + s;
                if (ih < 0 || ih >= c.in_h || iw < 0 || iw >= c.in_w) continue;  // padding
                a(m, k) = ifmap[static_cast<size_t>(
                    ((img * c.in_channels + in_c) * c.in_h + ih) * c.in_w + iw)];
              }
            }
          }
        }
  }
  return out;
}

std::vector<IntMatrix> filter_matrices(const Layer& l, const std::vector<int64_t>& weights) {
  if (l.kind == LayerKind::gemm) return gemm_b_matrices(l, weights);
  const Conv2d& c = l.conv;
  check_size(weights, l.filter_elements(), "conv weights");
  const GemmView g = l.gemm_view();
  const int64_t cg = c.in_channels / c.groups;
  const int64_t window = c.kernel_h * c.kernel_w;
  std::vector<IntMatrix> out(static_cast<size_t>(g.groups), IntMatrix(g.k, g.n));
  for (int64_t grp = 0; grp < c.groups; ++grp)
    for (int64_t n = 0; n < g.n; ++n) {
      const int64_t oc = grp * g.n + n;
      for (int64_t k = 0; k < g.k; ++k)  // k = (ch * kh + r) * kw + s, same as KCRS inner
        out[static_cast<size_t>(grp)](k, n) = weights[static_cast<size_t>(oc * cg * window + k)];
    }
  return out;
}

std::vector<IntMatrix> reference_conv2d(const Layer& l, const std::vector<int64_t>& ifmap,
                                        const std::vector<int64_t>& weights) {
  const GemmView g = l.gemm_view();
  std::vector<IntMatrix> out(static_cast<size_t>(g.groups), IntMatrix::Zero(g.m, g.n));
  if (l.kind == LayerKind::gemm) {
    check_size(ifmap, g.groups * g.m * g.k, "gemm ifmap");
    check_size(weights, g.groups * g.k * g.n, "gemm weights");
    for (int64_t grp = 0; grp < g.groups; ++grp)
      for (int64_t m = 0; m < g.m; ++m)
        for (int64_t n = 0; n < g.n; ++n) {
          int64_t acc = 0;
          for (int64_t k = 0; k < g.k; ++k)
            acc += ifmap[static_cast<size_t>((grp * g.m + m) * g.k + k)] *
                   weights[static_cast<size_t>((grp * g.k + k) * g.n + n)];
          out[static_cast<size_t>(grp)](m, n) = acc;
        }
    return out;
  }
  const Conv2d& c = l.conv;
  check_size(ifmap, l.ifmap_elements(), "conv ifmap");
  check_size(weights, l.filter_elements(), "conv weights");
  const int64_t oh_n = l.out_h(), ow_n = l.out_w();
  const int64_t cg = c.in_channels / c.groups, kg = c.out_channels / c.groups;
  for (int64_t img = 0; img < l.batch; ++img)
    for (int64_t oc = 0; oc < c.out_channels; ++oc) {
      const int64_t grp = oc / kg;
      for (int64_t oh = 0; oh < oh_n; ++oh)
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          int64_t acc = 0;
          for (int64_t ch = 0; ch < cg; ++ch)
            for (int64_t r = 0; r < c.kernel_h; ++r)
              for (int64_t s = 0; s < c.kernel_w; ++s) {
                const int64_t ih = oh * c.stride_h - c.pad_h + r * c.dilation_h;
                const int64_t iw = ow * c.stride_w - c.pad_w + s * c.dilation_w;
                if (ih < 0 || ih >= c.in_h || iw < 0 || iw >= c.in_w) continue;
                const int64_t x = ifmap[static_cast<size_t>(
                    ((img * c.in_channels + grp * cg + ch) * c.in_h + ih) * c.in_w + iw)];
                const int64_t w = weights[static_cast<size_t>(
                    ((oc * cg + ch) * c.kernel_h + r) * c.kernel_w + s)];
                acc += x * w;
              }
          out[static_cast<size_t>(grp)]((img * oh_n + oh) * ow_n + ow, oc - grp * kg) = acc;
        }
    }
  return out;
}

std::vector<int64_t> ofmap_tensor(const Layer& l, const std::vector<IntMatrix>& outputs) {
  const GemmView g = l.gemm_view();
  LOOM_CHECK(static_cast<int64_t>(outputs.size()) == g.groups, "im2col", "wrong group count");
  std::vector<int64_t> t(static_cast<size_t>(g.groups * g.m * g.n));
  if (l.kind == LayerKind::gemm) {
    for (int64_t grp = 0; grp < g.groups; ++grp)
      for (int64_t m = 0; m < g.m; ++m)
        for (int64_t n = 0; n < g.n; ++n)
          t[static_cast<size_t>((grp * g.m + m) * g.n + n)] = outputs[static_cast<size_t>(grp)](m, n);
    return t;
  }
  const int64_t oh_n = l.out_h(), ow_n = l.out_w();
  const int64_t pixels = oh_n * ow_n;
  for (int64_t grp = 0; grp < g.groups; ++grp)
    for (int64_t m = 0; m < g.m; ++m) {
      const int64_t img = m / pixels, pix = m % pixels;
      for (int64_t n = 0; n < g.n; ++n) {
        const int64_t oc = grp * g.n + n;
        t[static_cast<size_t>((img * l.conv.out_channels + oc) * pixels + pix)] =
            outputs[static_cast<size_t>(grp)](m, n);
      }
    }
  return t;
}

}  // namespace loom
