#include "arch/simt/kernels/network_on_gpu.h"

#include <map>
#include <optional>

#include "arch/simt/kernels/launch_limits.h"
#include "arch/simt/kernels/recipe_runner.h"

namespace loom::simt {

std::vector<GpuLayerRun> run_network_on_gpu(const Network& network, const GpuConfig& config, GpuPrecision precision,
                                            const std::function<void(size_t, size_t)>& progress,
                                            const LayerStore<GpuStats>& store) {
  check_network_limits(network, config, precision);  // before any layer is simulated
  const SimtEnergyTable table = load_simt_energy_table(config.energy_table);
  std::map<std::pair<std::string, std::map<std::string, int64_t>>, size_t> first_run;  // launch -> layer index
  std::vector<GpuLayerRun> runs;
  runs.reserve(network.layers.size());
  for (const Layer& layer : network.layers) {
    GpuLayerRun run;
    run.layer = &layer;
    run.launch = launch_for_layer(layer, precision);
    const auto key = std::make_pair(run.launch.recipe.kernel, run.launch.recipe.sizes);
    const auto earlier = first_run.find(key);
    run.reused = earlier != first_run.end();
    if (const std::optional<GpuStats> kept = store.kept(runs.size())) {
      run.stats = *kept;  // a resumed run: simulated before the interruption
    } else {
      if (run.reused) {
        run.stats = runs[earlier->second].stats;
      } else {
        RecipeRunOptions options;
        options.verify = false;  // network runs time the kernels; `loom gpu` and the tests check them
        run.stats = run_recipe(run.launch.recipe, shipped_kernel(run.launch.recipe.kernel), config, options).stats;
      }
      store.finished(runs.size(), run.stats);
    }
    if (!run.reused) first_run.emplace(key, runs.size());
    run.energy = price_gpu_energy(run.stats, config, table);
    runs.push_back(std::move(run));
    if (progress) progress(runs.size(), network.layers.size());
  }
  return runs;
}

}  // namespace loom::simt
