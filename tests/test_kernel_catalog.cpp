// The shipped-kernel recipes: launch shapes follow each kernel's launch rule, sizes are
// validated with errors naming the option, and layers pick the kernel the rule says.
#include <doctest/doctest.h>

#include <algorithm>

#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/kernel_reference.h"
#include "arch/simt/kernels/layer_kernels.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/run_functional.h"
#include "sim/error.h"

using namespace loom;
using namespace loom::simt;

TEST_CASE("kernel catalog: recipes follow each kernel's launch rule") {
  const LaunchRecipe w = make_launch_recipe("wmma_gemm", {{"M", 64}, {"N", 96}, {"K", 32}});
  CHECK(w.block.x == 128);
  CHECK(w.grid.x == 2);  // ceil(96 / 64): 4 warps of 16 columns per block
  CHECK(w.grid.y == 4);  // 64 / 16
  CHECK(w.buffers.size() == 3);
  CHECK(w.buffers[0].type == ElementType::f16);
  CHECK(w.buffers[2].output);
  CHECK(w.args.size() == 6);
  CHECK(w.flops == doctest::Approx(2.0 * 64 * 96 * 32));

  const LaunchRecipe c = make_launch_recipe("conv_implicit_gemm", {{"C", 3}, {"H", 9}, {"W", 7}, {"K", 5}, {"pad", 0}});
  CHECK(c.sizes.at("P") == 7);
  CHECK(c.sizes.at("Q") == 5);
  CHECK(c.grid.y == 3);  // ceil(1 * 7 * 5 / 16)
  CHECK(c.args.size() == 14);

  const LaunchRecipe t = make_launch_recipe("triad", {{"n", 1000}});
  CHECK(t.args[3].kind == ArgumentSpec::Kind::f32);  // (a, b, c, s, n)
  CHECK(t.grid.x == 4);

  const LaunchRecipe p = make_launch_recipe("pointer_chase", {{"footprint", 4096}, {"stride", 64}});
  CHECK(p.buffers[0].init == BufferInit::chain);
  CHECK(p.buffers[0].chain_stride == 16);
  CHECK(p.buffers[0].count == 1024);
}

TEST_CASE("kernel catalog: bad sizes are errors naming the option and the rule") {
  CHECK_THROWS_WITH_AS(make_launch_recipe("wmma_gemm", {{"M", 40}}), doctest::Contains("multiple of 16"), InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("naive_gemm", {{"Q", 4}}), doctest::Contains("'Q' is not one"), InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("naive_gemm", {{"M", 0}}), doctest::Contains("positive"), InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("no_such_kernel", {}), doctest::Contains("wmma_gemm"), InputError);
  CHECK_THROWS_AS(parse_size_list("M=12,N", "--size"), InputError);
  CHECK_THROWS_AS(parse_size_list("M=1x", "--size"), InputError);
  const auto sizes = parse_size_list("M=12, N=0x10", "--size");
  CHECK(sizes.at("M") == 12);
  CHECK(sizes.at("N") == 16);
}

TEST_CASE("kernel catalog: layers run through the kernel the precision and shape call for") {
  Layer conv;
  conv.name = "conv";
  conv.kind = LayerKind::conv2d;
  conv.conv = {56, 56, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  CHECK(launch_for_layer(conv, GpuPrecision::fp32).recipe.kernel == "conv_implicit_gemm");
  const LayerLaunch half = launch_for_layer(conv, GpuPrecision::fp16);
  CHECK(half.recipe.kernel == "wmma_gemm");
  CHECK(half.recipe.sizes.at("K") == 576);  // 64 * 3 * 3, already a multiple of 16
  CHECK(half.useful_flops == doctest::Approx(2.0 * conv.macs()));

  Layer fc;
  fc.name = "fc";
  fc.kind = LayerKind::gemm;
  fc.gemm = {1, 1000, 2048, 1};
  const LayerLaunch f = launch_for_layer(fc, GpuPrecision::fp16);
  CHECK(f.recipe.sizes.at("M") == 16);  // padded up to the WMMA tile
  CHECK(launch_for_layer(fc, GpuPrecision::fp32).recipe.kernel == "tiled_gemm");

  Layer depthwise = conv;
  depthwise.conv.groups = 64;
  depthwise.conv.out_channels = 64;
  const LayerLaunch d = launch_for_layer(depthwise, GpuPrecision::fp32);
  CHECK(d.recipe.kernel == "tiled_gemm");
  CHECK(d.recipe.sizes.at("M") == 56 * 56 * 64);  // groups stacked along M
}

namespace {

// Runs a recipe functionally (no timing) and returns the buffers read back afterwards.
std::vector<HostBuffer> run_recipe_functionally(const LaunchRecipe& r, const std::vector<HostBuffer>& before) {
  const PtxKernel kernel = load_ptx_kernel(std::string(LOOM_SOURCE_DIR) + "/" + r.ptx_file, r.entry);
  RecipeInstance instance(r, kernel, before);
  run_functional(instance.model());
  return instance.read_back();
}

}  // namespace

TEST_CASE("kernel catalog: every shipped kernel's output passes its CPU reference check, and a wrong one fails") {
  const std::vector<std::pair<std::string, std::map<std::string, int64_t>>> launches = {
      {"naive_gemm", {{"M", 37}, {"N", 45}, {"K", 29}}},
      {"tiled_gemm", {{"M", 50}, {"N", 35}, {"K", 41}}},
      {"wmma_gemm", {{"M", 48}, {"N", 80}, {"K", 64}}},
      {"relu_add", {{"n", 1000}}},
      {"triad", {{"n", 5000}, {"blocks", 3}}},
      {"pointer_chase", {{"footprint", 4096}, {"stride", 68}, {"steps", 300}}},
      {"reduction", {{"n", 3000}}},
      {"conv_implicit_gemm", {{"N", 2}, {"C", 3}, {"H", 9}, {"W", 8}, {"K", 5}, {"stride", 2}, {"pad", 1}}},
      {"shared_chase", {{"steps", 300}, {"count", 1000}, {"stride", 37}}},
      {"address_chase", {{"footprint", 4096}, {"stride", 64}, {"steps", 301}}},  // 4.7 times round 64 elements
      {"fma_chain", {{"steps", 77}, {"blocks", 2}, {"threads", 48}}},  // 77: the unrolled loop and its remainder
      {"mma_chain", {{"steps", 5}, {"blocks", 2}, {"threads", 64}}},
      {"stream_read", {{"n", 5000}, {"passes", 3}, {"blocks", 3}}},  // several elements per thread
  };
  for (const auto& launch : launches) {
    const auto& name = launch.first;  // not a binding: clang 14 cannot capture one
    const auto& sizes = launch.second;
    CAPTURE(name);
    const LaunchRecipe r = make_launch_recipe(name, sizes);
    const std::vector<HostBuffer> before = initial_buffers(r, 7);
    // Filled in device memory in place (run_recipe's way), the buffers hold the same bytes,
    // and another seed gives other inputs (unless the kernel's inputs are not random).
    const PtxKernel kernel = load_ptx_kernel(std::string(LOOM_SOURCE_DIR) + "/" + r.ptx_file, r.entry);
    CHECK(RecipeInstance(r, kernel, uint64_t{7}).read_back() == before);
    const bool random = std::any_of(r.buffers.begin(), r.buffers.end(),
                                    [](const BufferSpec& b) { return b.init == BufferInit::random; });
    CHECK((RecipeInstance(r, kernel, uint64_t{8}).read_back() != before) == random);
    std::vector<HostBuffer> after = run_recipe_functionally(r, before);
    const VerifyResult ok = verify_outputs(r, before, after);
    CHECK(ok.ok);
    CHECK(ok.checked > 0);
    CHECK(ok.first_mismatch.empty());
    // Corrupt one output element: the check must notice.
    for (size_t i = 0; i < r.buffers.size(); ++i) {
      if (!r.buffers[i].output) continue;
      after[i][0] ^= 0x40;  // flips a mantissa/exponent bit of the first element
      after[i][3] ^= 0x01;
    }
    const VerifyResult bad = verify_outputs(r, before, after);
    CHECK_FALSE(bad.ok);
    CHECK(bad.mismatches >= 1);
  }
}
