// Runs one launch recipe end to end: decode the kernel's PTX, allocate and fill its buffers,
// bind its arguments, execute it on the SIMT timing model (or functionally only), read the
// outputs back and check them against the CPU reference.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/kernel_reference.h"
#include "arch/simt/ptx/functional_model.h"
#include "arch/simt/ptx/global_memory.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/ptx_program.h"
#include "arch/simt/timing/gpu_engine.h"

namespace loom::simt {

// The shipped kernel `name`, decoded from the PTX compiled into the binary (decoded once per
// process and set of options).
const PtxKernel& shipped_kernel(const std::string& name, const DecodeOptions& options = {});

// One launch made ready: device memory holding the buffers, the arguments bound, and the
// functional model built over them (run it with simulate_launch or run_functional).
class RecipeInstance {
 public:
  RecipeInstance(const LaunchRecipe& recipe, const PtxKernel& kernel, const std::vector<HostBuffer>& buffers,
                 int registers_per_thread = 0);
  // The buffers' initial contents (initial_buffers(recipe, seed)) written straight into
  // device memory, with no host copy of megabytes of inputs on the way.
  RecipeInstance(const LaunchRecipe& recipe, const PtxKernel& kernel, uint64_t seed, int registers_per_thread = 0);
  FunctionalModel& model() { return *model_; }
  // Every buffer's contents now, in recipe order.
  std::vector<HostBuffer> read_back() const;

 private:
  void bind(const LaunchRecipe& recipe, const PtxKernel& kernel, int registers_per_thread);

  GlobalMemory memory_;
  std::vector<uint64_t> addresses_;
  std::vector<size_t> sizes_;
  std::unique_ptr<FunctionalModel> model_;
};

struct RecipeRunOptions {
  uint64_t seed = 1;
  bool verify = true;              // read outputs back and compare with the CPU reference
  int registers_per_thread = 0;    // 0: the kernel's estimate
  // Kernels that can (can_run_ahead) execute a CTA at a time ahead of their issues
  // (cta_run_ahead.h): the same results, faster. false: every instruction executes at issue.
  bool run_ahead = true;
  ProgressFn progress;
};

struct RecipeRunResult {
  GpuStats stats;
  bool ran_ahead = false;  // executed through CtaRunAheadSource (else at issue)
  bool verified = false;
  VerifyResult check;
};

// `kernel`: the decoded kernel (shipped_kernel(recipe.kernel) for catalog kernels).
RecipeRunResult run_recipe(const LaunchRecipe& recipe, const PtxKernel& kernel, const GpuConfig& config,
                           const RecipeRunOptions& options);

// "passed: 65,536 elements within the FP32 summation bound (worst 3% of it)" and the like.
std::string describe_check(const RecipeRunResult& result);

}  // namespace loom::simt
