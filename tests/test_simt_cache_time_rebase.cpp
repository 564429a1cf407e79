// The caches keep sector arrival times in 32 bits after a time base that the timing model
// moves forward every kSectorTimeRebaseCycles (sectored_tag_array.h). Moving it is
// invisible: a launch rebased at every window gives the same statistics as one never
// rebased, for kernels whose loads merge with misses still in flight (the tiled and WMMA
// GEMMs) and one that reads DRAM at length (the triad).
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "apps/layer_record_json.h"
#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/kernel_reference.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/timing/gpu_timing_model.h"

using namespace loom;
using namespace loom::simt;

namespace {

struct Outcome {
  std::string stats;  // GpuStats as the report writes them
  int64_t rebases = 0;
};

Outcome launch(const std::string& kernel, const std::map<std::string, int64_t>& sizes, const GpuConfig& config, int64_t rebase_period) {
  const LaunchRecipe recipe = make_launch_recipe(kernel, sizes, "sizes");
  RecipeInstance instance(recipe, shipped_kernel(kernel), initial_buffers(recipe, 3));
  GpuTimingModel model;
  model.set_rebase_period(rebase_period);
  model.begin(config, instance.model());
  while (!model.run_until(model.next_cycle() + 100000)) {
  }
  const int64_t rebases = model.rebases();
  return {gpu_stats_to_json(model.finish()).dump(), rebases};
}

}  // namespace

TEST_CASE("simt cache time rebase: rebasing at every window changes no statistic") {
  const GpuConfig config = load_gpu_config(std::string(LOOM_SOURCE_DIR) + "/configs/v100.json");
  const struct {
    const char* kernel;
    std::map<std::string, int64_t> sizes;
  } launches[] = {{"tiled_gemm", {{"M", 128}, {"N", 128}, {"K", 128}}},
                  {"wmma_gemm", {{"M", 128}, {"N", 128}, {"K", 128}}},
                  {"triad", {{"n", 1 << 16}}}};
  for (const auto& l : launches) {
    CAPTURE(l.kernel);
    const Outcome never = launch(l.kernel, l.sizes, config, kNever);
    const Outcome always = launch(l.kernel, l.sizes, config, 1);
    CHECK(never.rebases == 0);
    CHECK(always.rebases > 10);
    CHECK(always.stats == never.stats);
  }
}
