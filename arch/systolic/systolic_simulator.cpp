#include "arch/systolic/systolic_simulator.h"

#include <algorithm>

#include "arch/systolic/dram_traffic.h"
#include "arch/systolic/systolic_energy.h"
#include "arch/systolic/systolic_engine.h"
#include "sim/error.h"

namespace loom {

ArrayGeometry geometry_of(const SystolicConfig& c, bool scalesim_compat) {
  return {c.rows, c.cols, c.dataflow, scalesim_compat};
}

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t words_in(int64_t bytes, int bits) { return ceil_div(bytes * 8, bits); }

struct PlannedLayer {
  LayerResult result;
  std::vector<FoldJob> jobs;
  int64_t dram_bytes = 0;  // planned reads + writes
};

// Limits that keep one run within memory and within SystemC's time range (2^64 ps).
constexpr int64_t kMaxFoldsPerLayer = 100'000'000;
constexpr double kMaxSimulatedCycles = 1e15;

PlannedLayer plan_layer(const Layer& layer, const SystolicConfig& c, const ArrayGeometry& geometry,
                        const std::string& workload_file) {
  const int64_t folds_needed = fold_count(layer.gemm_view(), geometry);
  if (folds_needed > kMaxFoldsPerLayer) {
    throw InputError(workload_file, "layer '" + layer.name + "'",
                     "needs " + std::to_string(folds_needed) + " folds on a " + std::to_string(c.rows) + "x" +
                         std::to_string(c.cols) + " array; loom simulates up to 10^8 folds per layer");
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
  p.dram_bytes = traffic.read_bytes + traffic.write_bytes;
  return p;
}

}  // namespace

NetworkResult simulate_network(const SystolicConfig& c, const Network& network, const EnergyTable& energy,
                               const SimulationOptions& options) {
  const ArrayGeometry geometry = geometry_of(c, options.scalesim_compat);
  // Plan every layer first: an impossible layer is reported before any simulation runs.
  std::vector<PlannedLayer> planned;
  planned.reserve(network.layers.size());
  double cycles_bound = 0;  // an upper bound on simulated time, checked before running
  for (const Layer& layer : network.layers) {
    planned.push_back(plan_layer(layer, c, geometry, network.source_file));
    const LayerResult& r = planned.back().result;
    const double port = static_cast<double>(r.sram.ifmap_reads + r.sram.filter_reads + r.sram.ofmap_reads +
                                            r.sram.ofmap_writes);
    const double dram = c.dram.unlimited ? 0.0
                                         : static_cast<double>(planned.back().dram_bytes) / c.dram.bytes_per_cycle +
                                               3.0 * static_cast<double>(r.folds) * (c.dram.latency_cycles + 1);
    cycles_bound += static_cast<double>(r.cycles_compute) + port + dram;
  }
  if (cycles_bound > kMaxSimulatedCycles) {
    throw InputError(network.source_file, "layers",
                     "this network could take up to " + Json(cycles_bound).dump() + " cycles on " + c.name +
                         "; loom simulates up to 10^15 cycles per run");
  }

  SystolicEngine& engine = systolic_engine();
  engine.configure(c);
  std::vector<std::vector<FoldJob>> jobs;
  jobs.reserve(planned.size());
  for (PlannedLayer& p : planned) jobs.push_back(std::move(p.jobs));
  const std::vector<LayerTiming> timings = engine.run(jobs, [&](size_t i) {
    if (options.progress) options.progress(i + 1, jobs.size());
  });

  NetworkResult out;
  out.arch_name = c.name;
  out.workload_name = network.name;
  out.array_pes = c.rows * c.cols;
  out.clock_hz = c.clock_hz;
  for (size_t i = 0; i < planned.size(); ++i) {
    LayerResult r = std::move(planned[i].result);
    r.cycles_total = timings[i].cycles;
    if (options.scalesim_compat) {
      // SCALE-Sim reports the index of a layer's last cycle (N - 1), not the count N.
      r.cycles_total -= 1;
      r.cycles_compute -= 1;
    }
    r.cycles_stall = r.cycles_total - r.cycles_compute;
    r.dram_read_bytes = timings[i].dram_read_bytes;
    r.dram_write_bytes = timings[i].dram_write_bytes;
    r.dram_peak_bytes_per_cycle = timings[i].dram_peak_bytes_per_cycle;
    r.energy = price_layer(r, c, energy);
    out.layers.push_back(std::move(r));
  }
  return out;
}

}  // namespace loom
