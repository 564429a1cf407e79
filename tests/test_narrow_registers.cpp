// Narrow registers (arch/simt/ptx/register_slots.h): registers of at most 32 bits that only
// instructions with a narrow twin name live in 32-bit lanes. Checked: which registers of the
// tiled GEMM go narrow and which handlers switch; that one instruction without a twin keeps
// its whole group wide; and that every shipped kernel computes the same memory, and the
// timing model the same statistics, with narrow registers as with none. Also the packing's
// one exception to "results never share a source's slot": a wmma.mma's d may take the slots
// of a c that dies there, and only then.
#include <doctest/doctest.h>

#include <algorithm>
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
using loom_test::pc_of;
using loom_test::run_recipe_functionally;
using loom_test::small_sizes;

namespace {

PtxKernel decode_shipped(const std::string& name, bool narrow) {
  return loom_test::decode_shipped(name, DecodeOptions{.narrow_registers = narrow});
}

PtxKernel decode_text(const std::string& body, bool narrow) {
  return loom_test::decode_text(body, DecodeOptions{.narrow_registers = narrow});
}

// `out` (4 words per lane) after one warp of `kernel`.
std::vector<uint32_t> run_text(const PtxKernel& kernel) { return loom_test::run_one_warp(kernel, 32 * 4); }

}  // namespace

TEST_CASE("narrow registers: the tiled GEMM keeps only its 64-bit addresses wide") {
  const PtxKernel wide = decode_shipped("tiled_gemm", false), narrow = decode_shipped("tiled_gemm", true);
  CHECK(wide.narrow_begin == wide.narrow_end);
  REQUIRE(narrow.narrow_end > narrow.narrow_begin);
  CHECK(narrow.storage_units() * 3 < wide.storage_units() * 2);  // 114 -> 71 units
  auto check = [&](const std::string& text, ExecFn DecodedInstruction::*twin) {
    CAPTURE(text);
    const DecodedInstruction& d = narrow.code[pc_of(narrow, text)];
    REQUIRE((d.*twin != nullptr));
    CHECK((d.exec == d.*twin));
    CHECK((wide.code[pc_of(wide, text)].exec != d.exec));
    for (int i = 0; i < d.n_src; ++i) {
      const uint32_t x = d.src[static_cast<size_t>(i)];
      if (x & kConstantFlag) continue;
      const bool special = x >= narrow.special_slot && x < narrow.scratch_slot;
      CHECK((special ? (x - narrow.special_slot) % 3 == 2 : narrow.is_narrow(x)));  // a special's narrow copy
    }
    if (!d.narrow_sources_only)
      for (int i = 0; i < d.n_dst; ++i) CHECK(narrow.is_narrow(d.dst[static_cast<size_t>(i)]));
  };
  using D = DecodedInstruction;
  check("fma.rn.f32", &D::narrow);
  check("add.s32", &D::narrow);
  check("setp.ge.s32", &D::narrow);
  check("or.pred", &D::narrow);
  check("ld.param.u32", &D::narrow);
  check("mov.u32 %r37, %tid.x", &D::narrow);  // the special's narrow copy
  check("ld.global.f32", &D::narrow);         // a 64-bit address
  check("ld.shared.f32", &D::narrow_both);    // a 32-bit address
  check("st.shared.f32", &D::narrow_both);
  // mul.wide.s32 reads narrow registers into a wide one.
  const DecodedInstruction& wide_mul = narrow.code[pc_of(narrow, "mul.wide.s32")];
  CHECK(wide_mul.narrow_sources_only);
  CHECK_FALSE(narrow.is_narrow(wide_mul.dst[0]));
  // 64-bit registers stay wide, and guards are read at the width their predicate has.
  for (size_t pc = 0; pc < narrow.code.size(); ++pc) {
    const DecodedInstruction& d = narrow.code[pc];
    if (d.guard != kNoOperand) CHECK(d.guard_narrow == narrow.is_narrow(d.guard));
    if (narrow.statics[pc].text.find(".u64") != std::string::npos || narrow.statics[pc].text.find(".s64") != std::string::npos)
      for (int i = 0; i < d.n_dst; ++i) CHECK_FALSE(narrow.is_narrow(d.dst[static_cast<size_t>(i)]));
  }
}

TEST_CASE("narrow registers: one instruction without a twin keeps its register's whole group wide") {
  // %f1 and %f2 meet in add.f32 (a twin), but cvt (no twin) writes %f1 and reads %f2: both
  // stay wide. %f3 and %f5 meet in mul.f32, and a cvt writes %f5: wide. %f4 meets %r1 (from
  // %tid.x, a special) and %r2 (read by add.u32) through moves: wide. Only %g1 and %g2, which
  // nothing but twins names, go narrow.
  const std::string body = R"(
  .reg .b32 %r<4>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<4>;
  .reg .f64 %fd<2>;
  .reg .f32 %g<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f2, %f1, 0f3FC00000;
  cvt.f64.f32 %fd1, %f2;
  mov.f32 %f3, 0f40400000;
  mul.f32 %f5, %f3, %f3;
  mov.b32 %f4, %r1;
  mov.b32 %r2, %f4;
  add.u32 %r3, %r2, 7;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f2;
  st.global.f32 [%rd3+4], %f5;
  st.global.u32 [%rd3+8], %r3;
  cvt.rn.f32.f64 %f5, %fd1;
  mov.f32 %g1, 0f3F800000;
  add.f32 %g2, %g1, %g1;
  st.global.f32 [%rd3+12], %g2;
  ret;
)";
  const PtxKernel narrow = decode_text(body, true), wide = decode_text(body, false);
  auto value_narrow = [&](const std::string& text) {
    const DecodedInstruction& d = narrow.code[pc_of(narrow, text)];
    return d.exec == d.narrow && d.narrow != nullptr;
  };
  CHECK_FALSE(value_narrow("add.f32 %f2"));  // %f1 is written by a cvt
  CHECK_FALSE(value_narrow("mov.b32 %f4"));  // %f4 -> %r2 -> add.u32
  CHECK_FALSE(value_narrow("mov.b32 %r2"));
  // %f5 is written by mul.f32 (a twin) and by cvt.rn.f32.f64 (none): wide, and %f3 with it.
  CHECK_FALSE(value_narrow("mul.f32"));
  CHECK(value_narrow("add.f32 %g2"));
  CHECK(narrow.narrow_end - narrow.narrow_begin == 2);  // %g1 and %g2 (they interfere)
  CHECK(run_text(narrow) == run_text(wide));
  const std::vector<uint32_t> v = run_text(narrow);
  CHECK(v[4 * 5 + 2] == 5u + 7u);  // %r3 of lane 5
  CHECK(std::bit_cast<float>(v[4 * 5 + 3]) == 2.0f);
}

TEST_CASE("narrow registers: narrow floats, moves, loads and stores compute what wide ones do") {
  // Every value here is narrow: floats through mov, add, fma, f16x2 and shared memory, with
  // constants read as 32-bit lanes, and a divergent guard keeping inactive lanes' values.
  const std::string body = R"(
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b32 %h<3>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[128];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  mov.u64 %rd2, buf;
  mul.wide.u32 %rd1, %r1, 4;
  add.s64 %rd2, %rd2, %rd1;
  mov.f32 %f1, 0f3FC00000;
  add.f32 %f2, %f1, 0f40000000;
  fma.rn.f32 %f3, %f2, %f2, %f1;
  st.shared.f32 [%rd2], %f3;
  bar.sync 0;
  setp.lt.u32 %p1, %r1, 9;
  mov.f32 %f4, 0f00000000;
  @%p1 ld.shared.f32 %f4, [buf+8];
  mov.b32 %h1, 0x3C003C00;
  add.f16x2 %h2, %h1, %h1;
  neg.f32 %f7, %f3;
  st.global.v2.f32 [%rd3], {%f3, %f4};
  st.global.b32 [%rd3+8], %h2;
  st.global.f32 [%rd3+12], %f7;
  ret;
)";
  const PtxKernel narrow = decode_text(body, true), wide = decode_text(body, false);
  for (const std::string text : {"fma.rn.f32", "add.f16x2", "ld.shared.f32", "st.global.v2.f32", "st.global.b32", "mov.b32"}) {
    CAPTURE(text);
    const DecodedInstruction& d = narrow.code[pc_of(narrow, text)];
    CHECK((d.exec == d.narrow));
  }
  const std::vector<uint32_t> n = run_text(narrow), w = run_text(wide);
  CHECK(n == w);
  const auto as_float = [](uint32_t bits) { return std::bit_cast<float>(bits); };
  CHECK(as_float(n[0]) == 3.5f * 3.5f + 1.5f);
  CHECK(as_float(n[4 * 3 + 1]) == 3.5f * 3.5f + 1.5f);  // lane 3 < 9 loaded buf[2]
  CHECK(as_float(n[4 * 20 + 1]) == 0.0f);               // lane 20 kept its 0
  CHECK(n[2] == 0x40004000u);                           // 1 + 1 = 2 in both halves
  CHECK(as_float(n[3]) == -(3.5f * 3.5f + 1.5f));
}

TEST_CASE("narrow registers: a wmma.mma's hint leaves out lanes 16-31 of its a and b fragments, either way") {
  // DecodedInstruction::half_warp_sources covers the a and b fragments (its first 16
  // sources, renamed or not) and nothing else; every other instruction has none.
  for (const bool narrow : {true, false}) {
    const PtxKernel k = decode_shipped("wmma_gemm", narrow);
    int mmas = 0;
    for (size_t pc = 0; pc < k.code.size(); ++pc) {
      const bool mma = k.statics[pc].text.find("wmma.mma") != std::string::npos;
      CAPTURE(k.statics[pc].text);
      CHECK(k.code[pc].half_warp_sources == (mma ? 16 : 0));
      if (mma) CHECK(k.code[pc].n_src == 24);
      mmas += mma;
    }
    CHECK(mmas > 0);
  }
}

TEST_CASE("register slots: a GEMM's chain of wmma.mma accumulators lives in one set of slots") {
  // In the unrolled loop each MMA's c is the previous one's d and dies there: d takes c's
  // slots, so the narrow slots are a, b and one accumulator set (24, not 32).
  for (const bool narrow : {true, false}) {
    CAPTURE(narrow);
    const PtxKernel k = decode_shipped("wmma_gemm", narrow);
    int mmas = 0;
    for (size_t pc = 0; pc < k.code.size(); ++pc) {
      if (k.statics[pc].text.find("wmma.mma") == std::string::npos) continue;
      const DecodedInstruction& d = k.code[pc];
      CAPTURE(k.statics[pc].text);
      CHECK((d.flags & DecodedInstruction::kFlagSourcesReadFirst));
      // d's slots are among those its operands free (all of them die there). With narrow
      // registers they are c's, in whatever order the colouring gave them (c is named
      // backwards); with wide ones a and b are in the running too.
      std::vector<uint32_t> dst(d.dst.begin(), d.dst.begin() + 8), c(d.src.begin() + 16, d.src.begin() + 24);
      std::sort(dst.begin(), dst.end());
      std::sort(c.begin(), c.end());
      if (narrow) CHECK(dst == c);
      for (const uint32_t x : dst) CHECK(std::find(d.src.begin(), d.src.begin() + 24, x) != d.src.begin() + 24);
      ++mmas;
    }
    CHECK(mmas == 5);
    if (narrow) CHECK(k.narrow_end - k.narrow_begin == 24);
  }
}

TEST_CASE("register slots: a wmma.mma's d keeps apart from a c that is read again") {
  // Every c register (1.0 everywhere) is read after the MMA, so d = c + a b (1 + 16 x 1 x 1
  // = 17) must not overwrite any of them; a and b are read again too, and come out unchanged.
  const std::string body = R"(
  .reg .b32 %r<5>;
  .reg .f32 %c<8>;
  .reg .f32 %d<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  mov.b32 %r2, 0x3C003C00;
  mov.b32 %r3, 0x3C003C00;
  mov.f32 %c0, 0f3F800000;
  mov.f32 %c1, %c0;
  mov.f32 %c2, %c0;
  mov.f32 %c3, %c0;
  mov.f32 %c4, %c0;
  mov.f32 %c5, %c0;
  mov.f32 %c6, %c0;
  mov.f32 %c7, %c0;
  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%d0, %d1, %d2, %d3, %d4, %d5, %d6, %d7}, {%r2, %r2, %r2, %r2, %r2, %r2, %r2, %r2}, {%r3, %r3, %r3, %r3, %r3, %r3, %r3, %r3}, {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7};
  add.f32 %d0, %d0, %d7;
  add.f32 %c0, %c0, %c1;
  add.f32 %c0, %c0, %c2;
  add.f32 %c0, %c0, %c3;
  add.f32 %c0, %c0, %c4;
  add.f32 %c0, %c0, %c5;
  add.f32 %c0, %c0, %c6;
  add.f32 %c0, %c0, %c7;
  st.global.v2.f32 [%rd3], {%d0, %c0};
  st.global.v2.b32 [%rd3+8], {%r2, %r3};
  ret;
)";
  for (const bool narrow : {true, false}) {
    CAPTURE(narrow);
    const PtxKernel k = decode_text(body, narrow);
    const DecodedInstruction& mma = k.code[pc_of(k, "wmma.mma")];
    for (size_t r = 0; r < 8; ++r)
      for (size_t s = 0; s < 24; ++s) CHECK(mma.dst[r] != mma.src[s]);
    const std::vector<uint32_t> v = run_text(k);
    for (int lane = 0; lane < 32; ++lane) {
      CAPTURE(lane);
      CHECK(std::bit_cast<float>(v[4 * lane]) == 34.0f);      // d0 + d7
      CHECK(std::bit_cast<float>(v[4 * lane + 1]) == 8.0f);   // c0 + ... + c7
      CHECK(v[4 * lane + 2] == 0x3C003C00u);
      CHECK(v[4 * lane + 3] == 0x3C003C00u);
    }
  }
}

TEST_CASE("narrow registers: every shipped kernel computes the same memory either way") {
  for (const KernelInfo& info : kernel_catalog()) {
    CAPTURE(info.name);
    const LaunchRecipe recipe = make_launch_recipe(info.name, small_sizes(info.name));
    CHECK(run_recipe_functionally(recipe, decode_shipped(info.name, true)) ==
          run_recipe_functionally(recipe, decode_shipped(info.name, false)));
  }
}

TEST_CASE("narrow registers: the timing model's statistics do not change") {
  const GpuConfig config = load_gpu_config(std::string(LOOM_SOURCE_DIR) + "/configs/v100.json");
  for (const char* kernel : {"tiled_gemm", "wmma_gemm", "reduction"}) {
    CAPTURE(kernel);
    const LaunchRecipe recipe = make_launch_recipe(kernel, small_sizes(kernel));
    const loom_test::TimedRun with = loom_test::run_recipe_timed(config, recipe, decode_shipped(kernel, true));
    const loom_test::TimedRun without = loom_test::run_recipe_timed(config, recipe, decode_shipped(kernel, false));
    CHECK(with.stats == without.stats);
    CHECK(with.memory == without.memory);
  }
}
