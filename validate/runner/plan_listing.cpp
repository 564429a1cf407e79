#include "validate/runner/plan_listing.h"

#include "validate/runner/cublas_reference.h"
#include "validate/runner/prepared_launch.h"
#include "validate/runner/progress_text.h"

namespace loom::gpu_runner {

validate::ProbeTarget nominal_probe_target() {
  validate::ProbeTarget t;
  t.sms = 132;
  t.max_threads_per_sm = 2048;
  t.l2_bytes = int64_t{50} << 20;
  return t;
}

namespace {

std::string dim_text(const simt::Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

std::string geometry(const PlannedLaunch& p) {
  return "grid " + dim_text(p.recipe.grid) + ", block " + dim_text(p.recipe.block) + ", " +
         byte_text(recipe_device_bytes(p.recipe));
}

}  // namespace

void print_plan(const RunnerPlan& plan, const std::string& device_text, std::FILE* out) {
  const int steps = plan.steps();
  int step = 0;
  std::fprintf(out, "plan for %s: %d steps\n", device_text.c_str(), steps);
  std::fprintf(out, "%s launch overhead (empty kernel): grid 1x1x1, block 1x1x1\n", step_text(++step, steps).c_str());
  for (const SweepFamily& family : plan.sweep)
    for (const PlannedLaunch& p : family.runs)
      std::fprintf(out, "%s %s: %s\n", step_text(++step, steps).c_str(), launch_text(p).c_str(), geometry(p).c_str());
  for (const PlannedProbe& probe : plan.probes)
    for (const bool large : {false, true})
      std::fprintf(out, "%s %s: %s\n", step_text(++step, steps).c_str(), probe_launch_text(probe, large).c_str(),
                   geometry(large ? probe.large : probe.small).c_str());
  for (const int64_t n : plan.library_sizes)
    for (const LibraryGemm kind : {LibraryGemm::sgemm, LibraryGemm::hgemm_tensor_op})
      std::fprintf(out, "%s %s: %s\n", step_text(++step, steps).c_str(), library_text(library_gemm_name(kind), n).c_str(),
                   byte_text(library_gemm_bytes(kind, n)).c_str());
}

}  // namespace loom::gpu_runner
