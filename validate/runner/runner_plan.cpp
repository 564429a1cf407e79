#include "validate/runner/runner_plan.h"

#include <algorithm>
#include <stdexcept>

#include "sim/error.h"
#include "sim/text_file.h"
#include "validate/runner/launch_arguments.h"

namespace loom::gpu_runner {

namespace {

bool wanted(const std::vector<std::string>& kernels, const std::string& name) {
  return kernels.empty() || std::find(kernels.begin(), kernels.end(), name) != kernels.end();
}

}  // namespace

int RunnerPlan::steps() const {
  int n = 1;
  for (const SweepFamily& f : sweep) n += static_cast<int>(f.runs.size());
  n += 2 * static_cast<int>(probes.size());
  n += 2 * static_cast<int>(library_sizes.size());
  return n;
}

void check_kernel_filter(const std::vector<std::string>& kernels) {
  for (const std::string& name : kernels) {
    if (name == kLibraryFilterName || simt::is_catalog_kernel(name)) continue;
    throw InputError("", "--kernels", "shipped kernel names (" + names_of(simt::kernel_catalog()) + ", or " +
                                          kLibraryFilterName +
                                          " for the cuBLAS references), comma-separated; got '" + name + "'");
  }
}

PlannedLaunch plan_launch(const std::string& kernel, const validate::SizeMap& sizes) {
  PlannedLaunch p;
  try {
    p.recipe = simt::make_launch_recipe(kernel, sizes, "sizes");
  } catch (const InputError& e) {
    // The plan comes from loom's own tables, so a size loom rejects is loom's bug.
    throw std::logic_error("the validation plan asks for " + kernel + " " + simt::format_size_list(kernel, sizes) +
                           ", which loom's recipe rejects: " + e.what());
  }
  (void)kernel_for(p.recipe);  // std::logic_error when the runner's kernel disagrees
  // The file records only the parameters the kernel takes, which is what loom reads back.
  p.sizes = simt::size_parameters(p.recipe);
  return p;
}

RunnerPlan make_runner_plan(const validate::ProbeTarget& target, bool quick, const std::vector<std::string>& kernels) {
  RunnerPlan plan;
  for (const validate::PlannedRun& run : validate::validation_sweep(target, quick)) {
    if (!wanted(kernels, run.kernel)) continue;
    if (plan.sweep.empty() || plan.sweep.back().kernel != run.kernel) plan.sweep.push_back({run.kernel, {}});
    plan.sweep.back().runs.push_back(plan_launch(run.kernel, run.sizes));
  }
  for (const validate::MicrobenchmarkDef& def : validate::microbenchmark_catalog()) {
    const validate::Probe probe = validate::make_probe(def.name, target);
    if (!wanted(kernels, probe.kernel)) continue;
    plan.probes.push_back({&def, plan_launch(probe.kernel, probe.small), plan_launch(probe.kernel, probe.large)});
  }
  if (wanted(kernels, kLibraryFilterName)) plan.library_sizes = validate::library_gemm_sizes(quick);
  return plan;
}

}  // namespace loom::gpu_runner
