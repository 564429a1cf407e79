#include "validate/published_figures.h"

namespace loom::validate {

const std::vector<FigureDef>& published_figure_catalog() {
  static const std::vector<FigureDef> catalog{
      {"peak_tensor_fp16_tflops", "TFLOP/s", "dense FP16-in tensor-core peak (FP32 accumulate)"},
      {"peak_int8_tops", "TOPS", "dense INT8 tensor-core peak"},
      {"peak_fp32_tflops", "TFLOP/s", "FP32 FMA peak of the CUDA cores"},
      {"dram_peak_gb_s", "GB/s", "theoretical DRAM/HBM bandwidth"},
      {"resnet50_training_images_per_s", "images/s", "ResNet-50 training throughput, mixed precision"},
  };
  return catalog;
}

const FigureDef* find_published_figure(const std::string& name) {
  for (const FigureDef& d : published_figure_catalog())
    if (d.name == name) return &d;
  return nullptr;
}

std::optional<double> loom_figure(const std::string& name, const simt::GpuConfig& config, std::string& why_not) {
  using simt::TensorPrecision;
  if (name == "peak_tensor_fp16_tflops") return config.peak_tensor_flops(TensorPrecision::f16_f32) / 1e12;
  if (name == "peak_int8_tops") {
    const double ops = config.peak_tensor_flops(TensorPrecision::s8_s32);
    if (ops > 0) return ops / 1e12;
    why_not = "the config's tensor cores have no INT8 mode";
    return std::nullopt;
  }
  if (name == "peak_fp32_tflops") return config.peak_fp32_flops() / 1e12;
  if (name == "dram_peak_gb_s") return config.dram_bytes_per_second / 1e9;
  if (name == "resnet50_training_images_per_s") {
    why_not = "loom does not derive training steps (forward, dgrad, wgrad, update) yet";
    return std::nullopt;
  }
  why_not = "unknown figure";
  return std::nullopt;
}

}  // namespace loom::validate
