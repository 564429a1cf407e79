// The timing model's prefetch hints (WarpInstructionSource::handle/prefetch) are only hints:
// a launch gives the same statistics and the same memory contents whether the source acts on
// them or ignores them, and the timing model does give them, ahead of nearly every issue.
#include <doctest/doctest.h>

#include <string>
#include <unordered_set>

#include "apps/layer_record_json.h"
#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/kernel_reference.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/timing/gpu_engine.h"

using namespace loom;
using namespace loom::simt;

namespace {

// Forwards everything to a functional model; counts the hints and passes them on only when
// asked to.
class HintCounter final : public WarpInstructionSource {
 public:
  HintCounter(FunctionalModel& model, bool forward) : model_(model), forward_(forward) {}

  int64_t cta_count() const override { return model_.cta_count(); }
  CtaResources cta_resources() const override { return model_.cta_resources(); }
  void reserve_slots(int slot_count) override { model_.reserve_slots(slot_count); }
  void start_cta(int slot, int64_t cta_id) override { model_.start_cta(slot, cta_id); }
  void retire_cta(int slot) override { model_.retire_cta(slot); }
  bool warp_done(int slot, int warp) const override { return model_.warp_done(slot, warp); }
  bool warp_at_barrier(int slot, int warp) const override { return model_.warp_at_barrier(slot, warp); }
  const StaticInstruction& peek(int slot, int warp) const override { return model_.peek(slot, warp); }
  void execute(int slot, int warp, ExecutedInstruction& out) override {
    if (hinted_.erase(model_.handle(slot, warp).state) > 0) ++hinted_issues;
    model_.execute(slot, warp, out);
  }
  WarpStateHandle handle(int slot, int warp) const override { return model_.handle(slot, warp); }
  void prefetch(const WarpStateHandle& warp, const StaticInstruction& next) const override {
    ++hints;
    hinted_.insert(warp.state);
    if (forward_) model_.prefetch(warp, next);
  }

  mutable int64_t hints = 0;
  int64_t hinted_issues = 0;  // instructions whose warp had a hint since it last issued

 private:
  mutable std::unordered_set<const void*> hinted_;  // warps (their state) hinted, not yet issued
  FunctionalModel& model_;
  bool forward_;
};

struct Outcome {
  std::string stats;  // GpuStats as the report writes them
  std::vector<HostBuffer> memory;
  int64_t hints = 0;
  int64_t hinted_issues = 0;
  int64_t warp_instructions = 0;
};

Outcome launch(const std::string& kernel, const GpuConfig& config, bool forward_hints) {
  const LaunchRecipe recipe = make_launch_recipe(kernel, {{"M", 64}, {"N", 64}, {"K", 64}}, "sizes");
  RecipeInstance instance(recipe, shipped_kernel(kernel), initial_buffers(recipe, 7));
  HintCounter source(instance.model(), forward_hints);
  const GpuStats stats = simulate_launch(config, source);
  return {gpu_stats_to_json(stats).dump(), instance.read_back(), source.hints, source.hinted_issues, stats.warp_instructions};
}

}  // namespace

TEST_CASE("simt prefetch hints: given while warps issue, and acting on them changes nothing") {
  const GpuConfig config = load_gpu_config(std::string(LOOM_SOURCE_DIR) + "/configs/v100.json");
  for (const char* kernel : {"tiled_gemm", "wmma_gemm"}) {
    CAPTURE(kernel);
    const Outcome acted = launch(kernel, config, true);
    const Outcome ignored = launch(kernel, config, false);
    CHECK(acted.stats == ignored.stats);
    CHECK(acted.memory == ignored.memory);
    // Most instructions are followed by a hint for the warp expected to issue next, and
    // nearly every warp that issues had one since it last issued: a warp ready later in
    // its SM's window is hinted too, not only one ready next cycle (about 2 in 3 then).
    CHECK(acted.hints > acted.warp_instructions / 4);
    MESSAGE(std::string(kernel), ": ", acted.hinted_issues, " of ", acted.warp_instructions, " issues hinted");
    CHECK(acted.hinted_issues * 10 >= acted.warp_instructions * 9);
    CHECK(acted.hints == ignored.hints);
  }
}
