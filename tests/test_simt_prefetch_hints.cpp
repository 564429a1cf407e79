// The timing model's prefetch hints (WarpInstructionSource::handle/prefetch) are only hints:
// a launch gives the same statistics and the same memory contents whether the source acts on
// them or ignores them, and the timing model does give them, ahead of nearly every issue.
#include <doctest/doctest.h>

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "apps/layer_record_json.h"
#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/kernel_reference.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/ptx/cta_run_ahead.h"
#include "arch/simt/timing/gpu_engine.h"

using namespace loom;
using namespace loom::simt;

namespace {

// Forwards everything to another source; the watchers below override what they watch.
class ForwardingSource : public WarpInstructionSource {
 public:
  explicit ForwardingSource(WarpInstructionSource& inner) : inner_(inner) {}

  int64_t cta_count() const override { return inner_.cta_count(); }
  CtaResources cta_resources() const override { return inner_.cta_resources(); }
  void reserve_slots(int slot_count) override { inner_.reserve_slots(slot_count); }
  void start_cta(int slot, int64_t cta_id) override { inner_.start_cta(slot, cta_id); }
  void retire_cta(int slot) override { inner_.retire_cta(slot); }
  bool warp_done(int slot, int warp) const override { return inner_.warp_done(slot, warp); }
  bool warp_at_barrier(int slot, int warp) const override { return inner_.warp_at_barrier(slot, warp); }
  const StaticInstruction& peek(int slot, int warp) const override { return inner_.peek(slot, warp); }
  void execute(int slot, int warp, ExecutedInstruction& out) override { inner_.execute(slot, warp, out); }
  WarpStateHandle handle(int slot, int warp) const override { return inner_.handle(slot, warp); }
  void prefetch(const WarpStateHandle& warp, const StaticInstruction& next) const override {
    inner_.prefetch(warp, next);
  }

 protected:
  WarpInstructionSource& inner_;
};

// Counts the hints, and passes them on to the functional model only when asked to.
class HintCounter final : public ForwardingSource {
 public:
  HintCounter(FunctionalModel& model, bool forward) : ForwardingSource(model), forward_(forward) {}

  void execute(int slot, int warp, ExecutedInstruction& out) override {
    if (hinted_.erase(inner_.handle(slot, warp).state) > 0) ++hinted_issues;
    inner_.execute(slot, warp, out);
  }
  void prefetch(const WarpStateHandle& warp, const StaticInstruction& next) const override {
    ++hints;
    hinted_.insert(warp.state);
    if (forward_) inner_.prefetch(warp, next);
  }

  mutable int64_t hints = 0;
  int64_t hinted_issues = 0;  // instructions whose warp had a hint since it last issued

 private:
  mutable std::unordered_set<const void*> hinted_;  // warps (their state) hinted, not yet issued
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

// At each issue of a run-ahead source's warp, asks whether the warp's last hint named the
// record the source then reads (its handle's `data`, the stream's cursor).
class RecordHintChecker final : public ForwardingSource {
 public:
  explicit RecordHintChecker(CtaRunAheadSource& source) : ForwardingSource(source) {}

  void execute(int slot, int warp, ExecutedInstruction& out) override {
    const WarpStateHandle now = inner_.handle(slot, warp);
    if (const auto hint = hinted_.find(now.state); hint != hinted_.end()) {
      ++(hint->second == now.data ? fresh : stale);
      hinted_.erase(hint);
    }
    inner_.execute(slot, warp, out);
    if (out.next_state != inner_.handle(slot, warp).data) ++misreported;
  }
  void prefetch(const WarpStateHandle& warp, const StaticInstruction& next) const override {
    hinted_[warp.state] = warp.data;
    inner_.prefetch(warp, next);
  }

  int64_t fresh = 0, stale = 0;  // issues whose warp's last hint named its next record, or another
  int64_t misreported = 0;       // instructions whose next_state was not the stream's cursor

 private:
  mutable std::unordered_map<const void*, const void*> hinted_;  // a warp's stream: its last hint's record
};

}  // namespace

TEST_CASE("simt prefetch hints: a run-ahead warp's hint names the record its next issue reads") {
  // The timing model keeps each instruction's next_state in the warp's handle, so the hint
  // needs no read of the warp's stream. Stale only where another warp of the CTA ran it on
  // (records appended, the cursor moved past a jump) after the warp's last issue; at
  // K = 2048 each warp runs ahead several times.
  const GpuConfig config = load_gpu_config(std::string(LOOM_SOURCE_DIR) + "/configs/v100.json");
  for (const int64_t k : {64, 2048}) {
    CAPTURE(k);
    const LaunchRecipe recipe = make_launch_recipe("wmma_gemm", {{"M", 32}, {"N", 32}, {"K", k}}, "sizes");
    RecipeInstance instance(recipe, shipped_kernel("wmma_gemm"), initial_buffers(recipe, 7));
    CtaRunAheadSource ahead(instance.model());
    RecordHintChecker source(ahead);
    const GpuStats stats = simulate_launch(config, source);
    MESSAGE("K = ", k, ": ", source.fresh, " hints named the next record, ", source.stale, " did not, of ",
            stats.warp_instructions, " issues");
    CHECK(source.misreported == 0);
    CHECK(source.fresh * 10 >= stats.warp_instructions * 9);
    CHECK(source.stale * 100 <= source.fresh);
  }
}

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
