#include "arch/roofline.h"

#include <algorithm>
#include <limits>

namespace loom {

double Roofs::peak_flops_per_second() const {
  double peak = 0;
  for (const ComputeRoof& r : compute) peak = std::max(peak, r.flops_per_second);
  return peak;
}

const BandwidthRoof* Roofs::level(const std::string& name) const {
  for (const BandwidthRoof& r : bandwidth) {
    if (r.level == name) return &r;
  }
  return nullptr;
}

namespace {

// A buffer with no port limit is taken as wide as the array edge it feeds (docs/reports.md).
double systolic_sram_words_per_cycle(int64_t given, int64_t edge) {
  return static_cast<double>(given > 0 ? given : edge);
}

Roofs systolic_roofs(const SystolicConfig& c) {
  Roofs r;
  r.compute.push_back({name_of(c.data_type), 2.0 * static_cast<double>(c.rows * c.cols) * c.clock_hz});
  const double sram_bits_per_cycle =
      systolic_sram_words_per_cycle(c.sram.ifmap_words_per_cycle, c.rows) * c.ifmap_bits +
      systolic_sram_words_per_cycle(c.sram.filter_words_per_cycle, c.cols) * c.filter_bits +
      systolic_sram_words_per_cycle(c.sram.ofmap_words_per_cycle, c.cols) * c.ofmap_bits;
  r.bandwidth.push_back({"sram", sram_bits_per_cycle / 8.0 * c.clock_hz});
  if (!c.dram.unlimited) r.bandwidth.push_back({"dram", c.dram.bytes_per_cycle * c.clock_hz});
  return r;
}

Roofs hierarchy_roofs(const HierarchyConfig& h) {
  Roofs r;
  r.compute.push_back({name_of(h.data_type), 2.0 * static_cast<double>(h.total_pes()) * h.clock_hz});
  // Innermost first: walk the levels from the PEs outwards, counting each level's instances.
  std::vector<double> instances(h.levels.size(), 1.0);
  for (size_t i = 1; i < h.levels.size(); ++i) {
    instances[i] = instances[i - 1] * static_cast<double>(h.levels[i - 1].fanout.size());
  }
  for (size_t i = h.levels.size(); i-- > 0;) {
    const StorageLevel& l = h.levels[i];
    const double per_cycle = l.read_bytes_per_cycle + l.write_bytes_per_cycle;
    if (per_cycle <= 0) continue;  // unlimited: no roof
    r.bandwidth.push_back({i == 0 ? "dram" : l.name, per_cycle * instances[i] * h.clock_hz});
  }
  return r;
}

Roofs gpu_roofs(const simt::GpuConfig& g) {
  using simt::TensorPrecision;
  Roofs r;
  const struct {
    const char* name;
    TensorPrecision precision;
  } tensor[] = {{"b1 tensor", TensorPrecision::b1_s32}, {"int4 tensor", TensorPrecision::s4_s32},
                {"int8 tensor", TensorPrecision::s8_s32}, {"fp16 tensor", TensorPrecision::f16_f32},
                {"bf16 tensor", TensorPrecision::bf16_f32}, {"tf32 tensor", TensorPrecision::tf32_f32}};
  for (const auto& t : tensor) {
    const double peak = g.peak_tensor_flops(t.precision);
    if (peak > 0) r.compute.push_back({t.name, peak});
  }
  r.compute.push_back({"fp32", g.peak_fp32_flops()});
  std::stable_sort(r.compute.begin(), r.compute.end(),
                   [](const ComputeRoof& a, const ComputeRoof& b) { return a.flops_per_second > b.flops_per_second; });
  const double sms = g.sms;
  r.bandwidth.push_back({"l1_shared", sms * g.shared_banks * g.shared_bank_bytes * g.clock_hz});
  r.bandwidth.push_back({"l2", g.l2_slices * g.l2_bytes_per_cycle_per_slice * g.clock_hz});
  r.bandwidth.push_back({"dram", g.dram_bytes_per_second});
  return r;
}

}  // namespace

Roofs roofs_of(const Architecture& arch) {
  if (arch.is_gpu()) return gpu_roofs(arch.gpu());
  if (arch.is_hierarchy()) return hierarchy_roofs(arch.hierarchy());
  return systolic_roofs(arch.systolic());
}

RooflinePlacement roofline_placement(double flops, double dram_bytes, double seconds, const Roofs& roofs) {
  RooflinePlacement p;
  p.flops = flops;
  p.dram_bytes = dram_bytes;
  p.seconds = seconds;
  p.intensity_flops_per_byte = dram_bytes > 0 ? flops / dram_bytes : std::numeric_limits<double>::infinity();
  p.achieved_flops_per_second = seconds > 0 ? flops / seconds : 0.0;
  const double peak = roofs.peak_flops_per_second();
  const BandwidthRoof* dram = roofs.level("dram");
  const double memory_roof = dram != nullptr && dram_bytes > 0 ? p.intensity_flops_per_byte * dram->bytes_per_second
                                                               : std::numeric_limits<double>::infinity();
  p.attainable_flops_per_second = std::min(peak, memory_roof);
  p.bound = memory_roof < peak ? "memory" : "compute";
  return p;
}

Json roofs_to_json(const Roofs& roofs) {
  Json compute = Json::array(), bandwidth = Json::array();
  for (const ComputeRoof& r : roofs.compute) compute.push_back({{"name", r.name}, {"flops_per_second", r.flops_per_second}});
  for (const BandwidthRoof& r : roofs.bandwidth) {
    bandwidth.push_back({{"level", r.level}, {"bytes_per_second", r.bytes_per_second}});
  }
  return {{"compute_roofs", compute}, {"bandwidth_roofs", bandwidth}};
}

}  // namespace loom
