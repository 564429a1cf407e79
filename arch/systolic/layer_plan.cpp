#include "arch/systolic/layer_plan.h"

#include "sim/error.h"

namespace loom {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t words_in(int64_t bytes, int bits) { return ceil_div(bytes * 8, bits); }

std::string array_name(const SystolicConfig& c) { return std::to_string(c.rows) + "x" + std::to_string(c.cols); }

}  // namespace

void check_folds_bound(const Network& network, const SystolicConfig& c, const ArrayGeometry& geometry) {
  // Each layer's count is at most its MACs (<= kMaxLayerMacs); summed as a double, which
  // cannot overflow and is exact up to 2^53, far above the limit.
  double total = 0;
  int64_t largest = 0;
  const Layer* largest_layer = nullptr;
  for (const Layer& layer : network.layers) {
    const int64_t folds = fold_count(layer.gemm_view(), geometry);
    total += static_cast<double>(folds);
    if (folds > largest) largest = folds, largest_layer = &layer;
  }
  if (total <= static_cast<double>(kMaxFoldsPerRun)) return;
  const std::string count = total < 9e18 ? std::to_string(static_cast<int64_t>(total)) : Json(total).dump();
  throw InputError(network.source_file, "layers",
                   "this network needs " + count + " folds on the " + array_name(c) + " array of " + c.name +
                       " (layer '" + largest_layer->name + "' alone " + std::to_string(largest) +
                       "); loom plans up to 10^7 folds per run (about 1.7 GB of memory): use a larger array or "
                       "fewer layers per run");
}

PlannedLayer plan_layer(const Layer& layer, const SystolicConfig& c, const ArrayGeometry& geometry,
                        const std::string& workload_file) {
  const int64_t folds_needed = fold_count(layer.gemm_view(), geometry);
  if (folds_needed > kMaxFoldsPerRun) {
    throw InputError(workload_file, "layer '" + layer.name + "'",
                     "needs " + std::to_string(folds_needed) + " folds on a " + array_name(c) +
                         " array; loom plans up to 10^7 folds per run (about 1.7 GB of memory)");
  }
  PlannedLayer p;
  LayerResult& r = p.result;
  r.name = layer.name;
  r.kind = layer.kind_name();
  r.gemm = layer.gemm_view();
  const std::vector<Fold> folds = plan_folds(r.gemm, geometry);
  const LayerTraffic traffic = plan_dram_traffic(layer, folds, c);
  p.jobs.reserve(folds.size());
  for (size_t i = 0; i < folds.size(); ++i) {
    const FoldCost cost = fold_cost(folds[i], geometry);
    const FoldTraffic& t = traffic.folds[i];
    r.macs += cost.macs;
    r.cycles_compute += cost.cycles;
    r.steady_state_cycles += folds[i].temporal;
    r.sram += cost.sram;

    p.jobs.push_back(FoldJob{cost.cycles, cost.sram, t});

    r.ifmap_fill_writes += words_in(t.ifmap_read_bytes, c.ifmap_bits);
    r.filter_fill_writes += words_in(t.filter_read_bytes, c.filter_bits);
    r.ofmap_fill_writes += words_in(t.psum_read_bytes, c.ofmap_bits);
    r.ofmap_drain_reads += words_in(t.ofmap_write_bytes, c.ofmap_bits);
  }
  r.folds = static_cast<int64_t>(folds.size());
  p.dram_read_bytes = traffic.read_bytes;
  p.dram_write_bytes = traffic.write_bytes;
  return p;
}

double cycles_bound(const PlannedLayer& p, const SystolicConfig& c) {
  const LayerResult& r = p.result;
  const double port =
      static_cast<double>(r.sram.ifmap_reads + r.sram.filter_reads + r.sram.ofmap_reads + r.sram.ofmap_writes);
  const double dram = c.dram.unlimited ? 0.0
                                       : static_cast<double>(p.dram_read_bytes + p.dram_write_bytes) /
                                                 c.dram.bytes_per_cycle +
                                             3.0 * static_cast<double>(r.folds) * (c.dram.latency_cycles + 1);
  return static_cast<double>(r.cycles_compute) + port + dram;
}

void check_cycles_bound(double bound, const SystolicConfig& c, const Network& network) {
  if (bound > kMaxSimulatedCycles) {
    throw InputError(network.source_file, "layers",
                     "this network could take up to " + Json(bound).dump() + " cycles on " + c.name +
                         "; loom simulates up to 10^15 cycles per run");
  }
}

}  // namespace loom
