// The microbenchmark kernels (shared_chase, address_chase, fma_chain, mma_chain, stream_read) that calibrate
// GPU configs against real GPUs, and the .cg cache hint their bandwidth probe relies on:
// launch rules, size checks, and on the V100 config that each one times what it is meant to.
#include <doctest/doctest.h>

#include <string>

#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/ptx/functional_model.h"
#include "arch/simt/ptx/global_memory.h"
#include "arch/simt/ptx/kernel_arguments.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/ptx_parser.h"
#include "arch/simt/timing/gpu_engine.h"
#include "sim/error.h"

using namespace loom;
using namespace loom::simt;

namespace {

const GpuConfig& v100() {
  static const GpuConfig c = load_gpu_config(std::string(LOOM_SOURCE_DIR) + "/configs/v100.json");
  return c;
}

// Runs a catalog kernel on the V100 config and checks its output.
GpuStats run_checked(const std::string& kernel, const std::map<std::string, int64_t>& sizes) {
  CAPTURE(kernel);
  const LaunchRecipe r = make_launch_recipe(kernel, sizes);
  const RecipeRunResult result = run_recipe(r, shipped_kernel(kernel), v100(), {});
  CHECK(result.check.ok);
  return result.stats;
}

// Cycles per step of a kernel whose `steps` size sets the length of a dependent chain: the
// difference of two runs, so the fixed cost (set-up, launch, the final store) cancels.
// `sizes` holds the other sizes, equal in both runs.
double cycles_per_step(const std::string& kernel, int64_t steps, std::map<std::string, int64_t> sizes = {}) {
  sizes["steps"] = steps;
  const int64_t once = run_checked(kernel, sizes).cycles;
  sizes["steps"] = 2 * steps;
  const int64_t twice = run_checked(kernel, sizes).cycles;
  return static_cast<double>(twice - once) / static_cast<double>(steps);
}

// One warp loads x[lane] twice (the second load independent of the first) and stores the sum;
// `hint` is inserted after ld.global.
const char* const kRereadPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry reread(.param .u64 x, .param .u64 out)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global@HINT@.u32 %r2, [%rd4];
  ld.global@HINT@.u32 %r3, [%rd4];
  add.s32 %r4, %r2, %r3;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r4;
  ret;
}
)";

PtxKernel reread_kernel(const std::string& hint) {
  std::string text = kRereadPtx;
  for (size_t at; (at = text.find("@HINT@")) != std::string::npos;) text.replace(at, 6, hint);
  return decode_kernel(parse_ptx(text, "reread.ptx"), "reread");
}

GpuStats run_reread(const std::string& hint) {
  CAPTURE(hint);
  const PtxKernel kernel = reread_kernel(hint);
  GlobalMemory memory;
  std::vector<uint32_t> x(32);
  for (uint32_t i = 0; i < 32; ++i) x[i] = i;
  const uint64_t dx = memory.upload(x, "x"), dout = memory.allocate(32 * 4, "out");
  LaunchConfig launch;
  launch.grid = {1, 1, 1};
  launch.block = {32, 1, 1};
  FunctionalModel model(kernel, launch, bind_kernel_arguments(kernel, {KernelArgument::pointer(dx), KernelArgument::pointer(dout)}),
                        memory);
  const GpuStats s = simulate_launch(v100(), model);
  const std::vector<uint32_t> out = memory.read<uint32_t>(dout, 32);
  for (uint32_t i = 0; i < 32; ++i) CHECK(out[i] == 2 * i);
  return s;
}

}  // namespace

TEST_CASE("microbenchmark kernels: recipes follow their launch rules") {
  const LaunchRecipe chase = make_launch_recipe("shared_chase", {{"count", 100}, {"stride", 7}});
  CHECK(chase.grid.x * chase.block.x == 1);
  REQUIRE(chase.buffers.size() == 1);
  CHECK(chase.buffers[0].type == ElementType::u32);
  CHECK(chase.buffers[0].output);
  REQUIRE(chase.args.size() == 4);  // (out, steps, count, stride)
  CHECK(chase.args[1].integer == 1024);
  CHECK(chase.args[2].integer == 100);
  CHECK(chase.args[3].integer == 7);

  // address_chase takes pointer_chase's sizes; the kernel builds its ring in `chain`.
  const LaunchRecipe ring = make_launch_recipe("address_chase", {{"footprint", 4096}, {"stride", 64}});
  CHECK(ring.grid.x * ring.block.x == 1);
  REQUIRE(ring.buffers.size() == 2);
  CHECK(ring.buffers[0].count == 1024);  // u32 words of the footprint
  CHECK(ring.buffers[0].init == BufferInit::zeros);
  CHECK_FALSE(ring.buffers[0].output);
  CHECK(ring.buffers[1].output);
  REQUIRE(ring.args.size() == 5);  // (chain, out, count, stride, steps)
  CHECK(ring.args[0].kind == ArgumentSpec::Kind::buffer);
  CHECK(ring.args[1].kind == ArgumentSpec::Kind::buffer);
  CHECK(ring.args[2].integer == 64);  // 4096 / 64 elements
  CHECK(ring.args[3].integer == 64);
  CHECK(ring.args[4].integer == 1024);

  const LaunchRecipe fma = make_launch_recipe("fma_chain", {{"blocks", 3}, {"threads", 64}, {"steps", 10}});
  CHECK(fma.grid.x == 3);
  CHECK(fma.block.x == 64);
  CHECK(fma.buffers[0].count == 3 * 64);
  CHECK(fma.args.size() == 2);  // (out, steps)
  CHECK(fma.flops == doctest::Approx(2.0 * 10 * 3 * 64));

  const LaunchRecipe mma = make_launch_recipe("mma_chain", {{"blocks", 2}, {"threads", 96}});
  CHECK(mma.grid.x == 2);
  CHECK(mma.block.x == 96);
  CHECK(mma.buffers[0].count == 6 * 256);  // one 16x16 tile per warp
  CHECK(mma.flops == doctest::Approx(2.0 * 16 * 16 * 16 * 256 * 6));

  const LaunchRecipe stream = make_launch_recipe("stream_read", {{"n", 1000}});
  CHECK(stream.block.x == 256);
  CHECK(stream.grid.x == 4);  // blocks = 0: one thread per element, as triad
  REQUIRE(stream.args.size() == 4);  // (x, out, n, passes)
  CHECK(stream.args[0].kind == ArgumentSpec::Kind::buffer);
  CHECK(stream.args[2].integer == 1000);
  CHECK(stream.args[3].integer == 2);
  CHECK(stream.buffers[1].count == 4 * 256);
  CHECK(stream.compulsory_bytes == 4 * 1000 + 4 * 4 * 256);
  CHECK(make_launch_recipe("stream_read", {{"n", 1 << 26}}).grid.x == 65535);
  CHECK(make_launch_recipe("stream_read", {{"blocks", 80}}).grid.x == 80);
}

TEST_CASE("microbenchmark kernels: sizes they cannot run are errors naming the rule") {
  CHECK_THROWS_WITH_AS(make_launch_recipe("shared_chase", {{"count", 5000}}), doctest::Contains("count <= 4096"), InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("shared_chase", {{"count", 8}, {"stride", 8}}), doctest::Contains("stride < count"),
                       InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("address_chase", {{"stride", 12}}), doctest::Contains("multiple of 8"),
                       InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("address_chase", {{"footprint", 1000}}), doctest::Contains("multiple of 128"),
                       InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("address_chase", {{"footprint", 64}}), doctest::Contains("multiple of 128"),
                       InputError);  // not even one element
  CHECK_THROWS_WITH_AS(make_launch_recipe("fma_chain", {{"blocks", 0}}), doctest::Contains("blocks >= 1"), InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("mma_chain", {{"threads", 48}}), doctest::Contains("multiple of 32"), InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("mma_chain", {{"steps", 1 << 20}}), doctest::Contains("2^20"), InputError);
  CHECK_THROWS_WITH_AS(make_launch_recipe("fma_chain", {{"steps", 0}}), doctest::Contains("positive"), InputError);
}

TEST_CASE("microbenchmark kernels: .cg on a global load is decoded as an L1 bypass") {
  const auto bypass = [](const std::string& hint) {
    CAPTURE(hint);
    const PtxKernel k = reread_kernel(hint);
    for (const StaticInstruction& s : k.statics)
      if (s.unit == Unit::ldst && s.space == MemorySpace::global && !s.is_store) return s.bypass_l1;
    FAIL("no global load");
    return false;
  };
  CHECK(bypass(".cg"));
  CHECK_FALSE(bypass(""));
  CHECK_FALSE(bypass(".ca"));
  CHECK_FALSE(bypass(".cs"));
  CHECK_FALSE(bypass(".nc"));
  // The shipped bandwidth probe loads through __ldcg.
  const PtxKernel& stream = shipped_kernel("stream_read");
  int cg_loads = 0;
  for (const StaticInstruction& s : stream.statics) cg_loads += s.bypass_l1;
  CHECK(cg_loads == 5);  // four in the main loop, one in the remainder loop
}

TEST_CASE("microbenchmark kernels: rereading a line hits L1, unless the loads are .cg") {
  const GpuStats cached = run_reread("");
  const GpuStats cg = run_reread(".cg");
  CHECK(cached.l1_sector_hits == 4);  // the second load's sectors are already on their way
  CHECK(cached.l2_sector_accesses == 4 + 4);  // the first load and the store
  CHECK(cg.l1_sector_hits == 0);
  CHECK(cg.l1_sector_accesses == cached.l1_sector_accesses);
  CHECK(cg.l2_sector_accesses == 4 + 4 + 4);  // both loads go to L2
  CHECK(cg.dram_read_bytes == cached.dram_read_bytes);  // the reread hits in L2
}

TEST_CASE("microbenchmark kernels: on the V100 config each times the latency or throughput it probes") {
  const GpuConfig& c = v100();
  SUBCASE("shared_chase: the ring holds addresses, so a step is one dependent shared load") {
    const double per_step = cycles_per_step("shared_chase", 512);
    CHECK(per_step >= c.shared_latency);
    CHECK(per_step <= c.shared_latency + 0.25);  // the loop's counter and branch overlap the loads
  }
  SUBCASE("address_chase: over 8 KiB, after the first pass, a step is one dependent L1 hit") {
    const double per_step = cycles_per_step("address_chase", 1024, {{"footprint", 8 << 10}, {"stride", 128}});
    CHECK(per_step >= c.l1.hit_latency);
    CHECK(per_step <= c.l1.hit_latency + 0.25);
  }
  SUBCASE("fma_chain: one warp sees the FP32 latency, the loop overhead spread over 64 steps") {
    const double per_step = cycles_per_step("fma_chain", 1024);
    CHECK(per_step >= c.fp32.latency);
    CHECK(per_step <= c.fp32.latency + 0.25);
  }
  SUBCASE("mma_chain: one warp sees the dependent-MMA latency (35 cycles, docs/simt-model.md)") {
    CHECK(cycles_per_step("mma_chain", 64) == doctest::Approx(35).epsilon(0.02));
  }
  SUBCASE("stream_read: the second pass is served by L2, never by L1") {
    const GpuStats s = run_checked("stream_read", {{"n", 1 << 16}, {"passes", 2}});
    CHECK(s.l1_sector_hits == 0);
    CHECK(s.dram_read_bytes == 4 << 16);  // x crosses DRAM once
    CHECK(s.l2_sector_hits >= (4 << 16) / c.l2_sector_bytes);  // the whole second pass
  }
}
