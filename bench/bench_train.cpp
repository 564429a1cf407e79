// `loom_bench train`: the full training-step estimate of ResNet-50 on 8 V100s (DGX-1, data
// parallel, mixed precision, with the single-device baseline and every "what it costs"
// re-estimate), timed end to end. Target (issue 8): under 5 s with the fast models.
#include <chrono>
#include <cstdio>

#include "arch/system/system_config.h"
#include "bench/bench.h"

#include <algorithm>
#include <string>
#include "training/train_estimate.h"

namespace {

using namespace loom;

}  // namespace

int bench_train(const std::vector<std::string>& args) {
  const int repeats = args.empty() ? 3 : std::stoi(args[0]);
  const SystemConfig system = load_system("configs/systems/dgx1_v100.json");
  const Network net = load_workload("workloads/networks/resnet50.json");
  std::printf("train: ResNet-50 on %s, batch 2048, data parallel, mixed precision, analytic models\n",
              system.name.c_str());
  double best = 1e30;
  for (int parallel = 0; parallel < 3; ++parallel) {
    TrainOptions o;
    o.batch = 2048;
    o.parallel = static_cast<Parallelism>(parallel);
    if (o.parallel == Parallelism::tensor) o.batch = 256;  // the whole batch on every device
    for (int i = 0; i < repeats; ++i) {
      const auto start = std::chrono::steady_clock::now();
      const TrainResult r = estimate_training(system, net, o);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (o.parallel == Parallelism::data) best = std::min(best, seconds);
      std::printf("  %-8s run %d: %8.3f s for the estimate (%zu timeline bars, %zu effects): %.0f samples/s\n",
                  name_of(o.parallel), i + 1, seconds, r.timeline.size(), r.effects.size(), r.samples_per_second);
    }
  }
  std::printf("  data parallel best: %.3f s (target < 5 s): %s\n", best, best < 5.0 ? "met" : "NOT met");
  return best < 5.0 ? 0 : 1;
}

