#include "validate/runner/runner_plan.h"

#include <algorithm>
#include <stdexcept>

#include "sim/error.h"
#include "validate/runner/launch_arguments.h"

namespace loom::gpu_runner {

namespace {

const simt::KernelInfo& catalog_info(const std::string& kernel) {
  for (const simt::KernelInfo& k : simt::kernel_catalog())
    if (k.name == kernel) return k;
  throw std::logic_error("planned a kernel loom does not ship: " + kernel);
}

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
    std::string known;
    for (const simt::KernelInfo& k : simt::kernel_catalog()) known += k.name + ", ";
    throw InputError("", "--kernels", "shipped kernel names (" + known + "or " + kLibraryFilterName +
                                          " for the cuBLAS references), comma-separated; got '" + name + "'");
  }
}

PlannedLaunch plan_launch(const std::string& kernel, const validate::SizeMap& sizes) {
  PlannedLaunch p;
  try {
    p.recipe = simt::make_launch_recipe(kernel, sizes, "sizes");
  } catch (const InputError& e) {
    // The plan comes from loom's own tables, so a size loom rejects is loom's bug.
    throw std::logic_error("the validation plan asks for " + kernel + " " + size_text(kernel, sizes) +
                           ", which loom's recipe rejects: " + e.what());
  }
  (void)kernel_for(p.recipe);  // std::logic_error when the runner's kernel disagrees
  // The recipe adds derived sizes (a convolution's P and Q); the file records only the
  // parameters the kernel takes, which is what loom reads back.
  for (const auto& parameter : catalog_info(kernel).size_defaults)
    p.sizes[parameter.first] = p.recipe.sizes.at(parameter.first);
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

std::string size_text(const std::string& kernel, const validate::SizeMap& sizes) {
  std::string text;
  auto add = [&](const std::string& key, int64_t value) {
    text += (text.empty() ? "" : ",") + key + "=" + std::to_string(value);
  };
  std::vector<std::string> done;
  if (simt::is_catalog_kernel(kernel))
    for (const auto& parameter : catalog_info(kernel).size_defaults)
      if (const auto it = sizes.find(parameter.first); it != sizes.end()) {
        add(it->first, it->second);
        done.push_back(it->first);
      }
  for (const auto& [key, value] : sizes)  // anything else, alphabetically
    if (std::find(done.begin(), done.end(), key) == done.end()) add(key, value);
  return text;
}

}  // namespace loom::gpu_runner
