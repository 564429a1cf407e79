#include "arch/simt/kernels/network_on_gpu.h"

#include <map>

#include "arch/simt/kernels/recipe_runner.h"

namespace loom::simt {

std::vector<GpuLayerRun> run_network_on_gpu(const Network& network, const GpuConfig& config, GpuPrecision precision,
                                            const std::function<void(size_t, size_t)>& progress) {
  const SimtEnergyTable table = load_simt_energy_table(config.energy_table);
  std::map<std::pair<std::string, std::map<std::string, int64_t>>, size_t> first_run;  // launch -> layer index
  std::vector<GpuLayerRun> runs;
  runs.reserve(network.layers.size());
  for (const Layer& layer : network.layers) {
    GpuLayerRun run;
    run.layer = &layer;
    run.launch = launch_for_layer(layer, precision);
    const auto key = std::make_pair(run.launch.recipe.kernel, run.launch.recipe.sizes);
    if (const auto it = first_run.find(key); it != first_run.end()) {
      run.stats = runs[it->second].stats;
      run.reused = true;
    } else {
      RecipeRunOptions options;
      options.verify = false;  // network runs time the kernels; `loom gpu` and the tests check them
      run.stats = run_recipe(run.launch.recipe, shipped_kernel(run.launch.recipe.kernel), config, options).stats;
      first_run.emplace(key, runs.size());
    }
    run.energy = price_gpu_energy(run.stats, config, table);
    runs.push_back(std::move(run));
    if (progress) progress(runs.size(), network.layers.size());
  }
  return runs;
}

}  // namespace loom::simt
