#include "arch/simt/timing/tensor_core.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "arch/simt/timing/timing_constants.h"
#include "sim/error.h"

namespace loom::simt {

const char* tensor_precision_name(TensorPrecision p) {
  switch (p) {
    case TensorPrecision::none: return "none";
    case TensorPrecision::f16_f16: return "f16 (f16 accumulate)";
    case TensorPrecision::f16_f32: return "f16 (f32 accumulate)";
    case TensorPrecision::bf16_f32: return "bf16";
    case TensorPrecision::tf32_f32: return "tf32";
    case TensorPrecision::s8_s32: return "s8";
    case TensorPrecision::s4_s32: return "s4";
    case TensorPrecision::b1_s32: return "b1";
  }
  return "?";
}

namespace {
const char* rate_field(TensorPrecision p) {
  switch (p) {
    case TensorPrecision::bf16_f32: return "tensor.rate_bf16";
    case TensorPrecision::tf32_f32: return "tensor.rate_tf32";
    case TensorPrecision::s8_s32: return "tensor.rate_s8";
    case TensorPrecision::s4_s32: return "tensor.rate_s4";
    case TensorPrecision::b1_s32: return "tensor.rate_b1";
    default: return "tensor.rate_f16";
  }
}
}  // namespace

MmaTiming decompose_mma(const TensorCoreConfig& t, int m, int n, int k, TensorPrecision precision,
                        const std::string& config_file) {
  // An MMA the decoder did not type runs at the FP16 rate.
  const double rate = tensor_rate(t, precision == TensorPrecision::none ? TensorPrecision::f16_f32 : precision);
  if (!(rate > 0))
    throw InputError(config_file, "tensor",
                     std::string("this GPU's tensor cores do not support ") + tensor_precision_name(precision) +
                         " MMAs (" + rate_field(precision) + " is 0)");
  LOOM_CHECK(m > 0 && n > 0 && k > 0, "simt timing", "MMA instruction without a shape");
  // A faster precision covers more of K per operation (k * deepen), as far as the MMA's K
  // allows; what is left of the rate shortens each operation.
  const double deepen = std::max(1.0, std::min(std::floor(rate), static_cast<double>(k / t.k)));
  const double op_cycles = deepen / rate;
  const int k_per_set = static_cast<int>(t.k * deepen);
  MmaTiming r;
  r.sets = (k + k_per_set - 1) / k_per_set;
  const int tiles = ((m + t.m - 1) / t.m) * ((n + t.n - 1) / t.n);
  r.steps_per_set = (tiles + kOctetsPerWarp - 1) / kOctetsPerWarp;
  r.ops = (int64_t{2} * m * n * k) / (int64_t{2} * t.m * t.n * t.k);

  const int cores = t.per_subcore;
  std::vector<double> core_free(cores, 0.0), busy(cores, 0.0), tile_ready(tiles, 0.0);
  std::vector<char> used(cores);
  const double result_after = std::max<double>(t.pipeline_latency, op_cycles);
  double last_result = 0;
  for (int set = 0; set < r.sets; ++set) {
    for (int step = 0; step < r.steps_per_set; ++step) {
      std::fill(used.begin(), used.end(), 0);
      const int first = step * kOctetsPerWarp, last = std::min(tiles, first + kOctetsPerWarp);
      for (int tile = first; tile < last; ++tile) {
        const int c = static_cast<int>(std::min_element(core_free.begin(), core_free.end()) - core_free.begin());
        if (!used[c]) {  // operand collection for this step on this core
          used[c] = 1;
          core_free[c] += t.step_overhead;
          busy[c] += t.step_overhead;
        }
        const double start = std::max(core_free[c], tile_ready[tile]);
        core_free[c] = start + op_cycles;
        busy[c] += op_cycles;
        tile_ready[tile] = start + result_after;
        last_result = std::max(last_result, tile_ready[tile]);
      }
    }
  }
  double total_busy = 0, max_busy = 0;
  for (double b : busy) {
    total_busy += b;
    max_busy = std::max(max_busy, b);
  }
  // Schedules are sums of small binary fractions in practice; the epsilon keeps 32.0000001 at 32.
  auto cycles = [](double x) { return static_cast<int64_t>(std::ceil(x - 1e-9)); };
  r.occupancy = std::max<int64_t>(1, cycles(max_busy));
  r.latency = std::max<int64_t>(1, cycles(last_result));
  r.busy_cycles = cycles(total_busy);
  return r;
}

void MmaTimingCache::reset(const TensorCoreConfig& tensor, const std::string& config_file) {
  tensor_ = tensor;
  config_file_ = config_file;
  count_ = 0;
}

const MmaTiming& MmaTimingCache::get(const StaticInstruction& inst) {
  for (int i = 0; i < count_; ++i) {
    const Entry& e = entries_[i];
    if (e.m == inst.mma_m && e.n == inst.mma_n && e.k == inst.mma_k && e.precision == inst.tensor) return e.timing;
  }
  const MmaTiming timing = decompose_mma(tensor_, inst.mma_m, inst.mma_n, inst.mma_k, inst.tensor, config_file_);
  if (count_ == static_cast<int>(entries_.size())) {
    overflow_ = timing;
    return overflow_;
  }
  entries_[count_] = Entry{inst.mma_m, inst.mma_n, inst.mma_k, inst.tensor, timing};
  return entries_[count_++].timing;
}

}  // namespace loom::simt
