#include "arch/simt/kernels/recipe_runner.h"

#include <map>
#include <memory>
#include <mutex>

#include "arch/simt/ptx/functional_model.h"
#include "arch/simt/ptx/global_memory.h"
#include "arch/simt/ptx/kernel_arguments.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/ptx_parser.h"
#include "arch/simt/timing/occupancy.h"
#include "sim/embedded_files.h"
#include "sim/error.h"
#include "sim/text_file.h"

namespace loom::simt {

const PtxKernel& shipped_kernel(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<PtxKernel>> decoded;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = decoded[name];
  if (!slot) {
    const std::string_view text = embedded_file("ptx/" + name);
    LOOM_CHECK(!text.empty(), "simt", "shipped kernel '" + name + "' is not compiled into the binary");
    const PtxModule module = parse_ptx(text, "validate/kernels/" + name + ".ptx");
    slot = std::make_unique<PtxKernel>(decode_kernel(module, name));
  }
  return *slot;
}

RecipeRunResult run_recipe(const LaunchRecipe& recipe, const PtxKernel& kernel, const GpuConfig& config,
                           const RecipeRunOptions& options) {
  GlobalMemory memory;
  const std::vector<HostBuffer> before = initial_buffers(recipe, options.seed);
  std::vector<uint64_t> addresses;
  for (size_t i = 0; i < recipe.buffers.size(); ++i) {
    addresses.push_back(memory.allocate(before[i].size(), recipe.buffers[i].name));
    memory.write_bytes(addresses.back(), before[i].data(), before[i].size());
  }
  std::vector<KernelArgument> args;
  for (const ArgumentSpec& a : recipe.args) {
    switch (a.kind) {
      case ArgumentSpec::Kind::buffer: args.push_back(KernelArgument::pointer(addresses[size_t(a.buffer)])); break;
      case ArgumentSpec::Kind::int32: args.push_back(KernelArgument::integer(a.integer)); break;
      case ArgumentSpec::Kind::f32: args.push_back(KernelArgument::f32(static_cast<float>(a.real))); break;
      case ArgumentSpec::Kind::f64: args.push_back(KernelArgument::f64(a.real)); break;
    }
  }
  LaunchConfig launch;
  launch.grid = recipe.grid;
  launch.block = recipe.block;
  launch.registers_per_thread = options.registers_per_thread;
  FunctionalModel model(kernel, launch, bind_kernel_arguments(kernel, args), memory);
  // The grid's own limits (y and z) are only visible here; the engine sees a CTA count.
  check_launch(config, model.cta_resources(), {recipe.grid.x, recipe.grid.y, recipe.grid.z});

  RecipeRunResult result;
  result.stats = simulate_launch(config, model, options.progress);
  if (options.verify) {
    std::vector<HostBuffer> after;
    for (size_t i = 0; i < recipe.buffers.size(); ++i) {
      after.emplace_back(before[i].size());
      memory.read_bytes(addresses[i], after.back().data(), after.back().size());
    }
    result.check = verify_outputs(recipe, before, after);
    result.verified = true;
  }
  return result;
}

std::string describe_check(const RecipeRunResult& result) {
  if (!result.verified) return "not checked";
  const VerifyResult& c = result.check;
  if (!c.ok) {
    return "FAILED: " + with_commas(c.mismatches) + " of " + with_commas(c.checked) +
           " output elements outside the bound; first " + c.first_mismatch;
  }
  if (c.worst_ratio == 0) return "passed: " + with_commas(c.checked) + " output elements exact";
  char worst[32];
  std::snprintf(worst, sizeof worst, "%.2g", c.worst_ratio);
  return "passed: " + with_commas(c.checked) + " output elements within the FP32 summation bound (worst error " +
         worst + " of it)";
}

}  // namespace loom::simt
