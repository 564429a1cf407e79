// Speed benchmark: all conv and FC layers of ResNet-50 (batch 1) on the default 128x128
// weight-stationary array with the cycle-level (SystemC) model. Prints wall time,
// simulated cycles and simulated cycles per second (median of repeated runs, so one
// noisy run does not decide the figure). Target (docs/performance.md): < 2 s per network.
// `loom_bench resnet50 [REPEATS]`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "arch/systolic/pe_array_model.h"
#include "bench/bench.h"
#include "arch/systolic/systolic_simulator.h"
#include "workloads/im2col.h"

using namespace loom;

int bench_resnet50(const std::vector<std::string>& args) {
  const int repeats = !args.empty() ? std::max(1, std::atoi(args[0].c_str())) : 7;
  const std::string root = LOOM_SOURCE_DIR;
  const SystolicConfig config = load_systolic_config(root + "/configs/systolic_128x128_ws.json");
  const Network network = load_workload(root + "/workloads/networks/resnet50.json");
  const EnergyTable energy = EnergyTable::load(config.energy_table);

  std::vector<double> seconds;
  int64_t cycles = 0;
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const NetworkResult r = simulate_network(config, network, energy, {});
    const auto t1 = std::chrono::steady_clock::now();
    seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
    cycles = r.totals().cycles_total;
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  std::printf("benchmark: resnet50 (%zu conv/fc layers, batch 1) on %s (%lldx%lld %s), cycle-level model\n",
              network.layers.size(), config.name.c_str(), static_cast<long long>(config.rows),
              static_cast<long long>(config.cols), name_of(config.dataflow));
  std::printf("  runs:                        %d (min %.4f s, max %.4f s)\n", repeats, seconds.front(), seconds.back());
  std::printf("  wall time per network:       %.4f s (median)\n", median);
  std::printf("  simulated cycles:            %lld\n", static_cast<long long>(cycles));
  std::printf("  simulated cycles per second: %.3e\n", static_cast<double>(cycles) / median);
  std::printf("  target: < 2 s per network -> %s\n", median < 2.0 ? "met" : "NOT met");

  // The same kind of work at PE level (every PE every cycle, real values), on a 16x16
  // array so it finishes quickly: the fast model's advantage as a ratio in one run.
  Layer layer;
  layer.name = "conv3x3";
  layer.kind = LayerKind::conv2d;
  layer.conv = {14, 14, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  SystolicConfig small = config;
  small.rows = small.cols = 16;
  small.dram.unlimited = true;
  small.dram.latency_cycles = 0;
  Network one;
  one.name = "one";
  one.layers = {layer};
  std::vector<int64_t> ifmap(static_cast<size_t>(layer.ifmap_elements()), 1);
  std::vector<int64_t> weights(static_cast<size_t>(layer.filter_elements()), 1);
  const auto a = im2col(layer, ifmap);
  const auto b = filter_matrices(layer, weights);
  const auto p0 = std::chrono::steady_clock::now();
  const PeLevelResult detailed = run_pe_level(geometry_of(small, false), a, b);
  const auto p1 = std::chrono::steady_clock::now();
  int64_t fast_cycles = 0;
  const int fast_repeats = 1000;
  for (int i = 0; i < fast_repeats; ++i) fast_cycles = simulate_network(small, one, energy, {}).layers[0].cycles_total;
  const auto p2 = std::chrono::steady_clock::now();
  const double pe_s = std::chrono::duration<double>(p1 - p0).count();
  const double fast_s = std::chrono::duration<double>(p2 - p1).count() / fast_repeats;
  std::printf("benchmark: one 3x3 conv (14x14x32 -> 32) on a 16x16 ws array, both fidelities\n");
  std::printf("  PE-level: %lld cycles in %.4f s = %.3e cycles/s, %.3e PE-updates/s\n",
              static_cast<long long>(detailed.cycles), pe_s, static_cast<double>(detailed.cycles) / pe_s,
              static_cast<double>(detailed.cycles) * 256 / pe_s);
  std::printf("  cycle model: %lld cycles in %.6f s; speed-up over PE-level: %.0fx (cycles equal: %s)\n",
              static_cast<long long>(fast_cycles), fast_s, pe_s / fast_s,
              fast_cycles == detailed.cycles ? "yes" : "NO");
  return fast_cycles == detailed.cycles ? 0 : 1;
}
