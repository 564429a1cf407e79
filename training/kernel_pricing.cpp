#include "training/kernel_pricing.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "arch/roofline.h"
#include "arch/simt/kernels/layer_kernels.h"
#include "sim/error.h"

namespace loom {

std::string gemm_shape_key(const Layer& l) {
  std::string key = std::string(l.kind_name()) + ":" + std::to_string(l.batch);
  auto add = [&key](int64_t v) { key += ":" + std::to_string(v); };
  if (l.kind == LayerKind::gemm) {
    for (int64_t v : {l.gemm.m, l.gemm.n, l.gemm.k, l.gemm.groups}) add(v);
  } else {
    const Conv2d& c = l.conv;
    for (int64_t v : {c.in_h, c.in_w, c.in_channels, c.out_channels, c.kernel_h, c.kernel_w, c.stride_h, c.stride_w,
                      c.pad_h, c.pad_w, c.dilation_h, c.dilation_w, c.groups}) {
      add(v);
    }
  }
  return key;
}

namespace {

simt::GpuPrecision gpu_math(PrecisionPolicy p) {
  return uses_tensor_math(p) ? simt::GpuPrecision::fp16 : simt::GpuPrecision::fp32;
}

// One launch of the shipped kernels covers at most the config's grid; a framework splits a
// larger GEMM into several launches. Returns the slice to run and how many times it runs
// (fractional: the last slice may be partial; its time is taken as proportional).
struct LaunchSlice {
  Layer layer;
  double repeats = 1;
};

bool fits_grid(const Layer& layer, const simt::GpuConfig& g, simt::GpuPrecision precision) {
  const simt::Dim3 grid = simt::launch_for_layer(layer, precision).recipe.grid;
  return grid.x <= uint64_t(g.max_grid_x) && grid.y <= uint64_t(g.max_grid_yz) && grid.z <= uint64_t(g.max_grid_yz);
}

LaunchSlice gpu_slice(const Layer& layer, const simt::GpuConfig& g, simt::GpuPrecision precision) {
  LaunchSlice s{layer, 1};
  for (int64_t parts = 2; !fits_grid(s.layer, g, precision); parts *= 2) {
    int64_t& extent = layer.batch > 1 ? s.layer.batch : s.layer.gemm.m;
    const int64_t whole = layer.batch > 1 ? layer.batch : layer.gemm.m;
    if (parts > whole || (layer.batch == 1 && layer.kind != LayerKind::gemm)) {
      throw InputError("", "layer " + layer.name, "a launch the GPU's grid limits can hold, even split " +
                                                      std::to_string(parts / 2) + " ways");
    }
    extent = (whole + parts - 1) / parts;
    s.repeats = double(whole) / double(extent);
  }
  return s;
}

}  // namespace

KernelPricer::KernelPricer(std::shared_ptr<const Architecture> arch, PrecisionPolicy precision, Fidelity fidelity)
    : arch_(std::move(arch)), fidelity_(fidelity), gpu_math_(gpu_math(precision)) {
  evaluation_.gpu_precision = simt::precision_name(gpu_math(precision));
  if (arch_->is_gpu() && precision == PrecisionPolicy::mixed_bf16 && arch_->gpu().tensor.rate_bf16 <= 0) {
    throw InputError(arch_->source_file(), "tensor_core.rates.bf16",
                     "a GPU with BF16 tensor-core math for --precision mixed_bf16 (" + arch_->name() +
                         " has none; use mixed_fp16)");
  }
  const Roofs roofs = roofs_of(*arch_);
  const BandwidthRoof* dram = roofs.level("dram");
  if (!dram && !roofs.bandwidth.empty()) dram = &roofs.bandwidth.back();
  dram_bytes_per_second_ = dram ? dram->bytes_per_second : std::numeric_limits<double>::infinity();
  vector_flops_per_second_ = roofs.compute.empty() ? std::numeric_limits<double>::infinity()
                                                   : roofs.compute.back().flops_per_second;
}

namespace {

// A GEMM whose M x N tiles cannot fill the GPU but whose reduction is long (weight
// gradients: K = batch x output pixels) runs split-K in cuBLAS and cuDNN: `parts` GEMMs over
// slices of K, then a reduction of their FP32 partial sums. The candidate is the same layer
// with the slices stacked as groups (the shipped kernels stack groups along M). The
// stacked model shares one B slice among the groups, so the B traffic it misses, and the
// reduction's traffic, are added as DRAM bytes.
struct SplitCandidate {
  Layer layer;
  double repeats = 1;   // grid slices (gpu_slice)
  double extra_bytes = 0;
};

constexpr int64_t kMaxSplitK = 256;
constexpr int64_t kMinSplitDepth = 256;  // K per slice below which splitting stops paying

std::vector<SplitCandidate> split_k_candidates(const Layer& layer, bool gpu, int storage) {
  std::vector<SplitCandidate> out;
  out.push_back({layer, 1, 0});
  if (!gpu || layer.kind != LayerKind::gemm || layer.batch != 1) return out;
  const Gemm& g = layer.gemm;
  for (int64_t parts = 2; parts <= kMaxSplitK && g.k / parts >= kMinSplitDepth; parts *= 2) {
    SplitCandidate c{layer, 1, 0};
    c.layer.gemm.k = (g.k + parts - 1) / parts;
    c.layer.gemm.groups = g.groups * parts;
    const double outputs = double(g.m) * double(g.n) * double(g.groups);
    const double missed_b = double(parts - 1) * double(c.layer.gemm.k) * double(g.n) * double(g.groups) * storage;
    c.extra_bytes = missed_b + outputs * (4.0 * double(parts) + storage);
    out.push_back(c);
  }
  return out;
}

}  // namespace

void KernelPricer::price_gemms(const std::vector<const Layer*>& layers) {
  Network batch;
  batch.name = "training kernels";
  struct Pending {
    std::string key;
    size_t first = 0, count = 0;  // candidates in `batch`
  };
  std::vector<Pending> pending;
  std::vector<SplitCandidate> candidates;
  for (const Layer* layer : layers) {
    const std::string key = gemm_shape_key(*layer);
    if (gemm_cache_.count(key) ||
        std::any_of(pending.begin(), pending.end(), [&](const Pending& p) { return p.key == key; })) {
      continue;
    }
    Pending p{key, candidates.size(), 0};
    for (SplitCandidate c : split_k_candidates(*layer, arch_->is_gpu(), gpu_math_ == simt::GpuPrecision::fp16 ? 2 : 4)) {
      if (arch_->is_gpu()) {
        const LaunchSlice slice = gpu_slice(c.layer, arch_->gpu(), gpu_math_);
        c.layer = slice.layer;
        c.repeats = slice.repeats;
      }
      c.layer.name = key + "#" + std::to_string(p.count);
      c.layer.post_ops.clear();
      batch.layers.push_back(c.layer);
      candidates.push_back(c);
      ++p.count;
    }
    pending.push_back(p);
  }
  if (batch.layers.empty()) return;
  const NetworkEvaluation e = evaluate_network(*arch_, batch, fidelity_, evaluation_);
  LOOM_CHECK(e.layers.size() == candidates.size(), "training", "one evaluation per kernel");
  for (const Pending& p : pending) {
    KernelPrice best;
    for (size_t i = p.first; i < p.first + p.count; ++i) {
      const LayerEvaluation& l = e.layers[i];
      const SplitCandidate& c = candidates[i];
      // flops are the kernel's own (StepKernel::flops), filled in by price().
      KernelPrice price{l.seconds * c.repeats + c.extra_bytes / dram_bytes_per_second_, 0,
                        l.bytes_at("dram") * c.repeats + c.extra_bytes, l.energy_total_pj() * c.repeats};
      if (i == p.first || price.seconds < best.seconds) best = price;
    }
    gemm_cache_[p.key] = best;
  }
}

std::vector<KernelPrice> KernelPricer::price(const TrainingStep& step) {
  std::vector<const Layer*> gemms;
  for (const StepKernel& k : step.kernels) {
    if (k.is_gemm) gemms.push_back(&k.gemm);
  }
  price_gemms(gemms);
  std::vector<KernelPrice> prices;
  prices.reserve(step.kernels.size());
  for (const StepKernel& k : step.kernels) {
    KernelPrice p;
    if (k.is_gemm) {
      p = gemm_cache_.at(gemm_shape_key(k.gemm));
    } else {
      p.dram_bytes = double(k.read_bytes + k.write_bytes);
      p.seconds = std::max(p.dram_bytes / dram_bytes_per_second_, k.flops / vector_flops_per_second_);
    }
    p.flops = k.flops;  // GEMMs: 2 x MACs of the unsplit shape
    prices.push_back(p);
  }
  return prices;
}

}  // namespace loom
