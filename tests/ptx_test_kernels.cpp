#include "tests/ptx_test_kernels.h"

#include <doctest/doctest.h>

#include "apps/layer_record_json.h"
#include "arch/simt/ptx/cta_run_ahead.h"
#include "arch/simt/ptx/kernel_arguments.h"
#include "arch/simt/ptx/ptx_parser.h"
#include "arch/simt/ptx/run_functional.h"
#include "arch/simt/timing/gpu_engine.h"
#include "sim/embedded_files.h"

namespace loom_test {

using namespace loom;
using namespace loom::simt;

PtxKernel decode_shipped(const std::string& name, const DecodeOptions& options) {
  const PtxModule module = parse_ptx(embedded_file("ptx/" + name), "validate/kernels/" + name + ".ptx");
  return decode_kernel(module, name, options);
}

PtxKernel decode_text(const std::string& body, const DecodeOptions& options) {
  const std::string text = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n" +
                           body + "}\n";
  return decode_kernel(parse_ptx(text, "k.ptx"), "", options);
}

size_t pc_of(const PtxKernel& k, const std::string& part) {
  for (size_t pc = 0; pc < k.statics.size(); ++pc)
    if (k.statics[pc].text.find(part) != std::string::npos) return pc;
  FAIL("no instruction holds " << part);
  return 0;
}

std::map<std::string, int64_t> small_sizes(const std::string& name) {
  if (name.find("gemm") != std::string::npos && name != "conv_implicit_gemm") return {{"M", 64}, {"N", 48}, {"K", 80}};
  if (name == "conv_implicit_gemm") return {{"C", 16}, {"H", 14}, {"W", 14}, {"K", 32}};
  return {};
}

std::vector<HostBuffer> run_recipe_functionally(const LaunchRecipe& recipe, const PtxKernel& kernel) {
  RecipeInstance instance(recipe, kernel, initial_buffers(recipe, 7));
  run_functional(instance.model());
  return instance.read_back();
}

TimedRun run_recipe_timed(const GpuConfig& config, const LaunchRecipe& recipe, const PtxKernel& kernel, bool run_ahead) {
  RecipeInstance instance(recipe, kernel, initial_buffers(recipe, 7));
  TimedRun run;
  if (run_ahead) {
    CtaRunAheadSource ahead(instance.model());
    run.stats = gpu_stats_to_json(simulate_launch(config, ahead)).dump();
  } else {
    run.stats = gpu_stats_to_json(simulate_launch(config, instance.model())).dump();
  }
  run.memory = instance.read_back();
  return run;
}

std::vector<uint32_t> run_one_warp(const PtxKernel& kernel, size_t words) {
  GlobalMemory memory;
  const uint64_t out = memory.allocate(words * 4, "out");
  LaunchConfig config;
  config.block = {32, 1, 1};
  FunctionalModel model(kernel, config, bind_kernel_arguments(kernel, {KernelArgument::pointer(out)}), memory);
  run_functional(model);
  return memory.read<uint32_t>(out, words);
}

}  // namespace loom_test
