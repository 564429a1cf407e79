#include "arch/systolic/systolic_simulator.h"

#include <algorithm>

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
