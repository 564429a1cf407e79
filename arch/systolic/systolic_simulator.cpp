#include "arch/systolic/systolic_simulator.h"

#include <algorithm>
#include <optional>

#include "arch/systolic/layer_plan.h"
#include "arch/systolic/systolic_energy.h"
#include "arch/systolic/systolic_engine.h"

namespace loom {

ArrayGeometry geometry_of(const SystolicConfig& c, bool scalesim_compat) {
  return {c.rows, c.cols, c.dataflow, scalesim_compat};
}

NetworkResult simulate_network(const SystolicConfig& c, const Network& network, const EnergyTable& energy,
                               const SimulationOptions& options) {
  const ArrayGeometry geometry = geometry_of(c, options.scalesim_compat);
  check_folds_bound(network, c, geometry);  // bounds the memory of the plans below
  // Plan every layer first: an impossible layer is reported before any simulation runs.
  std::vector<PlannedLayer> planned;
  planned.reserve(network.layers.size());
  double bound = 0;  // an upper bound on simulated time, checked before running
  for (const Layer& layer : network.layers) {
    planned.push_back(plan_layer(layer, c, geometry, network.source_file));
    bound += cycles_bound(planned.back(), c);
  }
  check_cycles_bound(bound, c, network);

  SystolicEngine& engine = systolic_engine();
  engine.configure(c);
  // Layers a resumed run already has are not played again (their timing does not depend on
  // the layers before them: SystolicEngine::run).
  std::vector<LayerTiming> timings(planned.size());
  std::vector<size_t> to_run;
  std::vector<std::vector<FoldJob>> jobs;
  for (size_t i = 0; i < planned.size(); ++i) {
    if (const std::optional<LayerTiming> kept = options.store.kept(i)) {
      timings[i] = *kept;
    } else {
      to_run.push_back(i);
      jobs.push_back(std::move(planned[i].jobs));
    }
  }
  const size_t already = planned.size() - to_run.size();
  if (already > 0 && options.progress) options.progress(already, planned.size());
  engine.run(jobs, [&](size_t j, const LayerTiming& timing) {
    timings[to_run[j]] = timing;
    options.store.finished(to_run[j], timing);
    if (options.progress) options.progress(already + j + 1, planned.size());
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
