// Speed benchmark: all conv and FC layers of ResNet-50 (batch 1) on the default 128x128
// weight-stationary array with the cycle-level (SystemC) model. Prints wall time,
// simulated cycles and simulated cycles per second (median of repeated runs, so one
// noisy run does not decide the figure). Target (docs/performance.md): < 2 s per network.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "arch/systolic/systolic_simulator.h"

using namespace loom;

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
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
  return 0;
}
