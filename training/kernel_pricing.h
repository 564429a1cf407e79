// Prices the kernels of a training step on one device: MAC kernels through the device's own
// model (mapper/network_evaluation.h at the chosen fidelity), element-wise kernels on its
// roofline (the slower of DRAM bytes over DRAM bandwidth and flops over the device's vector
// roof). Results are cached by kernel shape, so the estimator's baseline and "what each
// switch costs" re-runs price each distinct GEMM once.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arch/simt/kernels/layer_kernels.h"
#include "mapper/network_evaluation.h"
#include "workloads/training_step.h"

namespace loom {

struct KernelPrice {
  double seconds = 0;
  double flops = 0;
  double dram_bytes = 0;
  double energy_pj = 0;  // GEMM kernels: the device model's energy; element-wise: DRAM energy not priced (0)
};

class KernelPricer {
 public:
  // `precision` decides the GPU's math (tensor cores or FP32 lanes); InputError when the
  // GPU has no tensor mode for it (BF16 on a V100).
  KernelPricer(std::shared_ptr<const Architecture> arch, PrecisionPolicy precision, Fidelity fidelity);

  // Prices every kernel of `step` (same order). GEMM kernels not yet cached are evaluated
  // together in one call of the device model.
  std::vector<KernelPrice> price(const TrainingStep& step);

  const Architecture& arch() const { return *arch_; }
  double dram_bytes_per_second() const { return dram_bytes_per_second_; }
  double vector_flops_per_second() const { return vector_flops_per_second_; }

 private:
  std::shared_ptr<const Architecture> arch_;
  Fidelity fidelity_;
  simt::GpuPrecision gpu_math_;
  EvaluationOptions evaluation_;
  double dram_bytes_per_second_ = 0, vector_flops_per_second_ = 0;
  std::map<std::string, KernelPrice> gemm_cache_;  // by shape key

  void price_gemms(const std::vector<const Layer*>& layers);
};

// Shape key of a MAC kernel: equal keys price equally on one device.
std::string gemm_shape_key(const Layer& layer);

}  // namespace loom
