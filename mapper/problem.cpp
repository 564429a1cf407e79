#include "mapper/problem.h"

namespace loom {

namespace {
constexpr const char* kConvNames[kNumDims] = {"N", "K", "C", "P", "Q", "R", "S"};
// GEMM C[M][N] = A[M][K] x B[K][N] on the conv nest: M -> P, N -> K, K -> C.
constexpr const char* kGemmNames[kNumDims] = {"B", "N", "K", "M", "Q", "R", "S"};
}  // namespace

const char* operand_name(int operand) {
  switch (operand) {
    case kWeights: return "weights";
    case kInputs: return "inputs";
    case kOutputs: return "outputs";
  }
  return "?";
}

int parse_operand(const std::string& name) {
  for (int o = 0; o < kNumOperands; ++o)
    if (name == operand_name(o)) return o;
  return -1;
}

int64_t Problem::macs_per_group() const {
  int64_t m = 1;
  for (int64_t b : bound) m *= b;
  return m;
}

int64_t Problem::macs() const { return macs_per_group() * groups; }

int64_t Problem::tile_elements(int operand, const DimArray& e) const {
  switch (operand) {
    case kWeights: return e[kDimK] * e[kDimC] * e[kDimR] * e[kDimS];
    case kOutputs: return e[kDimN] * e[kDimK] * e[kDimP] * e[kDimQ];
    case kInputs: {
      const int64_t h = (e[kDimP] - 1) * stride_h + (e[kDimR] - 1) * dilation_h + 1;
      const int64_t w = (e[kDimQ] - 1) * stride_w + (e[kDimS] - 1) * dilation_w + 1;
      return e[kDimN] * e[kDimC] * h * w;
    }
  }
  return 0;
}

const char* Problem::dim_name(int dim) const {
  return is_gemm ? kGemmNames[dim] : kConvNames[dim];
}

int Problem::parse_dim(const std::string& name) const {
  for (int d = 0; d < kNumDims; ++d)
    if (name == dim_name(d)) return d;
  return -1;
}

Problem problem_of(const Layer& layer, bool im2col) {
  Problem p;
  p.layer_name = layer.name;
  if (layer.kind == LayerKind::gemm || im2col) {
    const GemmView g = layer.gemm_view();
    p.is_gemm = true;
    p.bound[kDimP] = g.m;
    p.bound[kDimK] = g.n;
    p.bound[kDimC] = g.k;
    p.groups = g.groups;
    return p;
  }
  const Conv2d& c = layer.conv;
  p.bound[kDimN] = layer.batch;
  p.bound[kDimK] = c.out_channels / c.groups;
  p.bound[kDimC] = c.in_channels / c.groups;
  p.bound[kDimP] = layer.out_h();
  p.bound[kDimQ] = layer.out_w();
  p.bound[kDimR] = c.kernel_h;
  p.bound[kDimS] = c.kernel_w;
  p.groups = c.groups;
  p.stride_h = c.stride_h;
  p.stride_w = c.stride_w;
  p.dilation_h = c.dilation_h;
  p.dilation_w = c.dilation_w;
  return p;
}

}  // namespace loom
