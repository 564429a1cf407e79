#include "arch/simt/kernels/recipe_runner.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "arch/simt/kernels/launch_limits.h"
#include "arch/simt/ptx/cta_run_ahead.h"
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

const PtxKernel& shipped_kernel(const std::string& name, const DecodeOptions& options) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, bool, bool>, std::unique_ptr<PtxKernel>> decoded;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = decoded[{name, options.schedule, options.narrow_registers}];
  if (!slot) {
    const std::string_view text = embedded_file("ptx/" + name);
    LOOM_CHECK(!text.empty(), "simt", "shipped kernel '" + name + "' is not compiled into the binary");
    const PtxModule module = parse_ptx(text, "validate/kernels/" + name + ".ptx");
    slot = std::make_unique<PtxKernel>(decode_kernel(module, name, options));
  }
  return *slot;
}

RecipeInstance::RecipeInstance(const LaunchRecipe& recipe, const PtxKernel& kernel,
                               const std::vector<HostBuffer>& buffers, int registers_per_thread) {
  for (size_t i = 0; i < recipe.buffers.size(); ++i) {
    addresses_.push_back(memory_.allocate(buffers[i].size(), recipe.buffers[i].name));
    memory_.write_bytes(addresses_.back(), buffers[i].data(), buffers[i].size());
    sizes_.push_back(buffers[i].size());
  }
  bind(recipe, kernel, registers_per_thread);
}

RecipeInstance::RecipeInstance(const LaunchRecipe& recipe, const PtxKernel& kernel, uint64_t seed,
                               int registers_per_thread) {
  uint64_t state = seed;
  for (const BufferSpec& spec : recipe.buffers) {
    const size_t bytes = static_cast<size_t>(spec.bytes());
    addresses_.push_back(memory_.allocate(bytes, spec.name));
    sizes_.push_back(bytes);
    // Fresh allocations are zero-filled, as write_initial_buffer expects.
    write_initial_buffer(spec, state, memory_.translate(addresses_.back(), bytes));
  }
  bind(recipe, kernel, registers_per_thread);
}

void RecipeInstance::bind(const LaunchRecipe& recipe, const PtxKernel& kernel, int registers_per_thread) {
  std::vector<KernelArgument> args;
  for (const ArgumentSpec& a : recipe.args) {
    switch (a.kind) {
      case ArgumentSpec::Kind::buffer: args.push_back(KernelArgument::pointer(addresses_[size_t(a.buffer)])); break;
      case ArgumentSpec::Kind::int32: args.push_back(KernelArgument::integer(a.integer)); break;
      case ArgumentSpec::Kind::f32: args.push_back(KernelArgument::f32(static_cast<float>(a.real))); break;
      case ArgumentSpec::Kind::f64: args.push_back(KernelArgument::f64(a.real)); break;
    }
  }
  LaunchConfig launch;
  launch.grid = recipe.grid;
  launch.block = recipe.block;
  launch.registers_per_thread = registers_per_thread;
  model_ = std::make_unique<FunctionalModel>(kernel, launch, bind_kernel_arguments(kernel, args), memory_);
}

std::vector<HostBuffer> RecipeInstance::read_back() const {
  std::vector<HostBuffer> contents;
  for (size_t i = 0; i < addresses_.size(); ++i) {
    contents.emplace_back(sizes_[i]);
    memory_.read_bytes(addresses_[i], contents.back().data(), sizes_[i]);
  }
  return contents;
}

RecipeRunResult run_recipe(const LaunchRecipe& recipe, const PtxKernel& kernel, const GpuConfig& config,
                           const RecipeRunOptions& options) {
  // Before any buffer is allocated: the launch's memory and work within loom's limits.
  check_launch_limits(recipe, config);
  RecipeInstance instance(recipe, kernel, options.seed, options.registers_per_thread);
  // The inputs the reference needs, only when it is asked for (a copy of every buffer).
  const std::vector<HostBuffer> before = options.verify ? instance.read_back() : std::vector<HostBuffer>{};
  // The grid's own limits (y and z) are only visible here; the engine sees a CTA count.
  check_launch(config, instance.model().cta_resources(), {recipe.grid.x, recipe.grid.y, recipe.grid.z});
  RecipeRunResult result;
  result.ran_ahead = options.run_ahead && can_run_ahead(kernel);
  if (result.ran_ahead) {
    CtaRunAheadSource ahead(instance.model());
    result.stats = simulate_launch(config, ahead, options.progress);
  } else {
    result.stats = simulate_launch(config, instance.model(), options.progress);
  }
  if (options.verify) {
    result.check = verify_outputs(recipe, before, instance.read_back());
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
