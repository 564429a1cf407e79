// First-lane results (arch/simt/ptx/first_lane_results.h): instructions whose results are
// read only at the first active lane run for that lane alone. Checked: which instructions
// of the WMMA GEMM the pass takes (its address chains) and which it leaves (the loop
// counter, values read in other blocks); each rule that keeps an instruction out (another
// reader, a guard, another block, a wmma.store's value); that a chain under a mask without
// lane 0 computes the first active lane's value; and that every shipped kernel computes the
// same memory, and the timing model the same statistics, with the pass as without.
#include <doctest/doctest.h>

#include <bit>
#include <string>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "tests/ptx_test_kernels.h"

using namespace loom;
using namespace loom::simt;

namespace {

PtxKernel decode_shipped(const std::string& name, bool first_lane) {
  return loom_test::decode_shipped(name, DecodeOptions{.first_lane_results = first_lane});
}

PtxKernel decode_text(const std::string& body, bool first_lane) {
  return loom_test::decode_text(body, DecodeOptions{.first_lane_results = first_lane});
}

bool flagged(const DecodedInstruction& d) { return d.flags & DecodedInstruction::kFlagFirstLaneOnly; }

// Whether the first instruction whose text holds `part` is flagged.
bool flagged(const PtxKernel& k, const std::string& part) { return flagged(k.code[loom_test::pc_of(k, part)]); }

int flagged_count(const PtxKernel& k) {
  int n = 0;
  for (const DecodedInstruction& d : k.code) n += flagged(d);
  return n;
}

// `out` (kOutWords words, zeroed) after one warp of `kernel`.
constexpr size_t kOutWords = 2048;
std::vector<uint32_t> run_text(const PtxKernel& kernel) { return loom_test::run_one_warp(kernel, kOutWords); }

}  // namespace

TEST_CASE("first-lane results: the WMMA GEMM's address chains run for one lane, nothing else does") {
  const PtxKernel k = decode_shipped("wmma_gemm", true);
  for (size_t pc = 0; pc < k.code.size(); ++pc) {
    if (!flagged(k.code[pc])) continue;
    CAPTURE(k.statics[pc].text);
    CHECK(k.code[pc].lane_local);
    CHECK(k.code[pc].guard == kNoOperand);
  }
  // The loop's four k-steps: the offset, the a and b addresses (a chain of four each).
  CHECK(flagged(k, "cvt.s64.s32 %rd14, %r115"));
  CHECK(flagged(k, "add.s64 %rd17, %rd2, %rd16"));
  CHECK(flagged(k, "shl.b64 %rd40, %rd39, 1"));
  CHECK(flagged(k, "add.s32 %r44, %r115, 16"));
  // The epilogue's store address, down to its pointer conversion.
  CHECK(flagged(k, "cvta.to.global.u64 %rd50, %rd11"));
  CHECK(flagged(k, "add.s64 %rd52, %rd50, %rd51"));
  // Left: the loop counter (written before the loop and in it), the loop-invariant offsets
  // (read in other blocks), the tail loop's pointers (written twice) and every predicate and
  // MMA.
  CHECK_FALSE(flagged(k, "add.s32 %r115, %r115, 64"));
  CHECK_FALSE(flagged(k, "cvt.s64.s32 %rd3, %r23"));
  CHECK_FALSE(flagged(k, "add.s64 %rd54, %rd54, 32"));
  CHECK_FALSE(flagged(k, "setp.ne.s32 %p6, %r114, 0"));
  CHECK_FALSE(flagged(k, "wmma.mma"));
  CHECK(flagged_count(k) == 38);
  CHECK(flagged_count(decode_shipped("wmma_gemm", false)) == 0);
  // The tiled GEMM's loads take a different address in every lane: nothing to take.
  CHECK(flagged_count(decode_shipped("tiled_gemm", true)) == 0);
}

TEST_CASE("first-lane results: each rule keeps an instruction out, and a chain without lane 0 computes lane first") {
  // Lanes 8-31 (lane 0 inactive) store 16x16 f32 tiles of 2.0, stride 16 elements (rows of
  // 64 bytes; lanes 0-7 hold rows 0-3, so those stay 0). The first tile's address is
  // out + 64 * (first active lane) = out + 512. The chains to the addresses are taken, except:
  //  * %rd5 is also read by a cvt in every lane (another reader), and so %rd4 before it;
  //  * %rd7 comes from a guarded add;
  //  * %rd9 and the stride %r8 are read in the next block;
  //  * %f0 is the first tile's value (a wmma.store reads it in every lane);
  //  * %r2 is also stored by every lane.
  const std::string body = R"(
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 bra DONE;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd2, %r3, 64;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r9, 16;
  mov.f32 %f0, 0f40000000;
  mov.f32 %f1, 0f40000000;
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd3], {%f0, %f0, %f0, %f0, %f0, %f0, %f0, %f0}, %r9;
  add.s64 %rd4, %rd1, 4096;
  add.s64 %rd5, %rd4, 0;
  add.s64 %rd6, %rd5, 0;
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd6], {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, %r9;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd10, %r2, 4;
  add.s64 %rd11, %rd1, %rd10;
  st.global.u32 [%rd11+6144], %r2;
  cvt.u32.u64 %r5, %rd5;
  st.global.u32 [%rd11+6400], %r5;
  setp.ne.u32 %p2, %r2, 99;
  @%p2 add.s64 %rd7, %rd1, 0;
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd7+1536], {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, %r9;
  add.s64 %rd9, %rd1, 0;
  mov.u32 %r8, 16;
  bra NEXT;
NEXT:
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd9+5120], {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, %r8;
DONE:
  ret;
)";
  const PtxKernel on = decode_text(body, true), off = decode_text(body, false);
  CHECK(flagged(on, "mov.u32 %r3, %tid.x"));
  CHECK(flagged(on, "mul.wide.u32 %rd2"));
  CHECK(flagged(on, "add.s64 %rd3"));
  CHECK(flagged(on, "mov.u32 %r9, 16"));  // a stride
  CHECK(flagged(on, "add.s64 %rd6"));
  CHECK_FALSE(flagged(on, "add.s64 %rd5"));             // read by every lane's cvt
  CHECK_FALSE(flagged(on, "add.s64 %rd4"));             // and so its source
  CHECK_FALSE(flagged(on, "@%p2 add.s64 %rd7"));        // guarded
  CHECK_FALSE(flagged(on, "add.s64 %rd9"));             // read in another block
  CHECK_FALSE(flagged(on, "mov.u32 %r8, 16"));          // read in another block
  CHECK_FALSE(flagged(on, "mov.f32 %f0"));              // a wmma.store's value
  CHECK_FALSE(flagged(on, "mov.u32 %r2, %tid.x"));      // stored by every lane
  CHECK_FALSE(flagged(on, "mul.wide.u32 %rd10"));       // a per-lane address
  CHECK_FALSE(flagged(on, "cvta.to.global.u64 %rd1"));  // read in other blocks
  const std::vector<uint32_t> got = run_text(on);
  CHECK(got == run_text(off));
  auto as_float = [&](size_t byte) { return std::bit_cast<float>(got[byte / 4]); };
  CHECK(as_float(512 + 4 * 64) == 2.0f);         // row 4 of the tile at lane 8's address
  CHECK(as_float(512 + 15 * 64 + 60) == 2.0f);   // its last element
  CHECK(as_float(4 * 64) == 0.0f);               // nothing at lane 0's
  CHECK(as_float(4096 + 4 * 64) == 2.0f);        // the tile at %rd6
  CHECK(as_float(1536 + 4 * 64) == 2.0f);        // at %rd7
  CHECK(as_float(5120 + 4 * 64) == 2.0f);        // at %rd9, in the next block
  CHECK(got[6144 / 4 + 8] == 8u);                // lane 8 stored its id
  CHECK(got[6144 / 4 + 7] == 0u);                // lane 7 did not run the block
}

TEST_CASE("first-lane results: every shipped kernel computes the same memory either way") {
  for (const KernelInfo& info : kernel_catalog()) {
    CAPTURE(info.name);
    const LaunchRecipe recipe = make_launch_recipe(info.name, loom_test::small_sizes(info.name));
    CHECK(loom_test::run_recipe_functionally(recipe, decode_shipped(info.name, true)) ==
          loom_test::run_recipe_functionally(recipe, decode_shipped(info.name, false)));
  }
}

TEST_CASE("first-lane results: the timing model's statistics do not change") {
  const GpuConfig config = load_gpu_config(std::string(LOOM_SOURCE_DIR) + "/configs/v100.json");
  for (const char* kernel : {"wmma_gemm", "mma_chain"}) {
    CAPTURE(kernel);
    const LaunchRecipe recipe = make_launch_recipe(kernel, loom_test::small_sizes(kernel));
    const loom_test::TimedRun with = loom_test::run_recipe_timed(config, recipe, decode_shipped(kernel, true));
    const loom_test::TimedRun without = loom_test::run_recipe_timed(config, recipe, decode_shipped(kernel, false));
    CHECK(with.stats == without.stats);
    CHECK(with.memory == without.memory);
  }
}
