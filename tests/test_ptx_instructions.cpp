// Instruction semantics against independent C++ computations: integer edge cases, float
// special values, every cvt rounding mode, half precision (conversions, packed pairs, fma
// rounded once), and every memory space, generic addressing and atomics.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "arch/simt/ptx/half_float.h"
#include "arch/simt/ptx/kernel_arguments.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/ptx_parser.h"
#include "arch/simt/ptx/run_functional.h"
#include "sim/error.h"

using namespace loom;
using namespace loom::simt;
using KA = KernelArgument;

namespace {

constexpr int kWords = 32;  // output words per lane

struct WarpRun {
  std::vector<uint32_t> out;      // kWords per lane
  std::vector<uint32_t> scratch;  // the shared scratch buffer afterwards
  uint32_t word(int lane, int i) const { return out[static_cast<size_t>(lane * kWords + i)]; }
  float f(int lane, int i) const { return std::bit_cast<float>(word(lane, i)); }
  uint64_t u64(int lane, int i) const { return word(lane, i) | uint64_t{word(lane, i + 1)} << 32; }
  double d(int lane, int i) const { return std::bit_cast<double>(u64(lane, i)); }
};

// Runs `body` in one warp of 32 threads. %rd15 points at this lane's kWords output words,
// %rd14 at a 2 KiB scratch buffer (filled with `scratch`), %r31 holds the lane id.
WarpRun run_warp(const std::string& body, const std::string& module_decls = "", std::vector<uint32_t> scratch = {}) {
  const std::string text = ".version 7.5\n.target sm_75\n.address_size 64\n" + module_decls + R"(
.visible .entry t(.param .u64 out, .param .u64 scratch)
{
  .reg .pred %p<8>;
  .reg .b16 %h<16>;
  .reg .b32 %r<32>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<16>;
  .reg .f64 %fd<8>;
  ld.param.u64 %rd15, [out];
  ld.param.u64 %rd14, [scratch];
  mov.u32 %r31, %laneid;
  mul.wide.u32 %rd13, %r31, 128;
  add.s64 %rd15, %rd15, %rd13;
)" + body + "\n  ret;\n}\n";
  const PtxKernel kernel = decode_kernel(parse_ptx(text, "instructions.ptx"), "t");
  GlobalMemory memory;
  scratch.resize(512, 0);
  const uint64_t out = memory.allocate(32 * kWords * 4, "out"), buf = memory.upload(scratch, "scratch");
  LaunchConfig config;
  config.block = {32, 1, 1};
  FunctionalModel model(kernel, config, bind_kernel_arguments(kernel, {KA::pointer(out), KA::pointer(buf)}), memory);
  run_functional(model);
  return {memory.read<uint32_t>(out, 32 * kWords), memory.read<uint32_t>(buf, 512)};
}

uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

}  // namespace

TEST_CASE("ptx instructions: integer arithmetic, including the edge cases C++ leaves undefined") {
  const WarpRun r = run_warp(R"(
  mov.s32 %r1, -7;
  mov.s32 %r2, 2;
  mov.u32 %r3, 0;
  mov.s32 %r4, -1;
  div.s32 %r5, %r1, %r2;
  st.global.u32 [%rd15], %r5;
  rem.s32 %r5, %r1, %r2;
  st.global.u32 [%rd15+4], %r5;
  div.u32 %r5, %r1, %r3;
  st.global.u32 [%rd15+8], %r5;
  div.s32 %r5, 0x80000000, %r4;
  st.global.u32 [%rd15+12], %r5;
  mul.hi.s32 %r5, %r1, 0x40000000;
  st.global.u32 [%rd15+16], %r5;
  mul.hi.u32 %r5, %r4, %r4;
  st.global.u32 [%rd15+20], %r5;
  shr.s32 %r5, %r1, 40;
  st.global.u32 [%rd15+24], %r5;
  shr.u32 %r5, %r1, 40;
  st.global.u32 [%rd15+28], %r5;
  shl.b32 %r5, %r2, 33;
  st.global.u32 [%rd15+32], %r5;
  bfe.s32 %r5, 0x00000f00, 8, 4;
  st.global.u32 [%rd15+36], %r5;
  bfe.u32 %r5, 0x12345678, 4, 8;
  st.global.u32 [%rd15+40], %r5;
  bfi.b32 %r5, 0xff, 0x12345678, 8, 8;
  st.global.u32 [%rd15+44], %r5;
  prmt.b32 %r5, 0x33221100, 0x77665544, 0x5140;
  st.global.u32 [%rd15+48], %r5;
  popc.b32 %r5, 0xf0f0;
  st.global.u32 [%rd15+52], %r5;
  clz.b32 %r5, 0x00010000;
  st.global.u32 [%rd15+56], %r5;
  brev.b32 %r5, 6;
  st.global.u32 [%rd15+60], %r5;
  bfind.u32 %r5, 0x00010000;
  st.global.u32 [%rd15+64], %r5;
  add.sat.s32 %r5, 0x7fffffff, 5;
  st.global.u32 [%rd15+68], %r5;
  min.s32 %r5, %r1, %r2;
  min.u32 %r6, %r1, %r2;
  st.global.v2.u32 [%rd15+72], {%r5, %r6};
  abs.s32 %r5, %r1;
  neg.s32 %r6, %r31;
  st.global.v2.u32 [%rd15+80], {%r5, %r6};
  mul.wide.s32 %rd1, %r1, 0x10000000;
  st.global.u64 [%rd15+88], %rd1;
  mad.wide.u32 %rd2, %r4, %r4, %rd1;
  st.global.u64 [%rd15+96], %rd2;
  lop3.b32 %r5, 0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa, 0x80;
  shf.l.wrap.b32 %r6, 0x80000001, 0x00000003, 36;
  st.global.v2.u32 [%rd15+104], {%r5, %r6};
  mad.lo.s32 %r5, %r31, %r31, -3;
  mul24.lo.s32 %r6, 0x00ffffff, 2;
  st.global.v2.u32 [%rd15+112], {%r5, %r6};
  sad.u32 %r5, 3, 10, 100;
  cnot.b32 %r6, %r3;
  st.global.v2.u32 [%rd15+120], {%r5, %r6};
)");
  CHECK(static_cast<int32_t>(r.word(0, 0)) == -3);  // truncating division
  CHECK(static_cast<int32_t>(r.word(0, 1)) == -1);
  CHECK(r.word(0, 2) == 0xffffffffu);  // division by zero: all ones
  CHECK(r.word(0, 3) == 0x80000000u);  // INT_MIN / -1 = INT_MIN
  CHECK(static_cast<int32_t>(r.word(0, 4)) == -2);  // floor(-7 * 2^30 / 2^32)
  CHECK(r.word(0, 5) == 0xfffffffeu);
  CHECK(r.word(0, 6) == 0xffffffffu);  // arithmetic shift clamps at 31
  CHECK(r.word(0, 7) == 0);
  CHECK(r.word(0, 8) == 0);
  CHECK(r.word(0, 9) == 0xffffffffu);  // 4-bit field 0xf sign-extended
  CHECK(r.word(0, 10) == 0x67);
  CHECK(r.word(0, 11) == 0x1234ff78u);
  CHECK(r.word(0, 12) == 0x55114400u);
  CHECK(r.word(0, 13) == 8);
  CHECK(r.word(0, 14) == 15);
  CHECK(r.word(0, 15) == 0x60000000u);
  CHECK(r.word(0, 16) == 16);
  CHECK(r.word(0, 17) == 0x7fffffffu);
  CHECK(static_cast<int32_t>(r.word(0, 18)) == -7);
  CHECK(r.word(0, 19) == 2);
  CHECK(r.word(0, 20) == 7);
  CHECK(static_cast<int32_t>(r.word(5, 21)) == -5);
  const int64_t wide = int64_t{-7} * 0x10000000;
  CHECK(static_cast<int64_t>(r.u64(0, 22)) == wide);
  CHECK(r.u64(0, 24) == uint64_t{0xffffffffu} * 0xffffffffu + static_cast<uint64_t>(wide));
  CHECK(r.word(0, 26) == (0xf0f0f0f0u & 0xccccccccu & 0xaaaaaaaau));  // LUT 0x80 = a & b & c
  CHECK(r.word(0, 27) == ((0x00000003u << 4) | (0x80000001u >> 28)));  // funnel shift by 36 & 31
  CHECK(static_cast<int32_t>(r.word(7, 28)) == 7 * 7 - 3);
  CHECK(r.word(0, 29) == 0xfffffffeu);  // .s32: 0xffffff is the 24-bit value -1
  CHECK(r.word(0, 30) == 107);
  CHECK(r.word(0, 31) == 1);
}

TEST_CASE("ptx instructions: float special values, comparisons and exact rounding") {
  const WarpRun r = run_warp(R"(
  mov.f32 %f1, 0f7FC00000;
  mov.f32 %f2, 0f3F800000;
  min.f32 %f3, %f1, %f2;
  max.NaN.f32 %f4, %f1, %f2;
  min.f32 %f5, 0f00000000, 0f80000000;
  max.f32 %f6, 0f80000000, 0f00000000;
  st.global.v4.f32 [%rd15], {%f3, %f4, %f5, %f6};
  setp.equ.f32 %p1, %f1, %f2;
  setp.eq.f32 %p2, %f1, %f1;
  setp.ne.f32 %p3, %f1, %f2;
  setp.nan.f32 %p4, %f2, %f1;
  selp.u32 %r1, 1, 0, %p1;
  selp.u32 %r2, 1, 0, %p2;
  selp.u32 %r3, 1, 0, %p3;
  selp.u32 %r4, 1, 0, %p4;
  st.global.v4.u32 [%rd15+16], {%r1, %r2, %r3, %r4};
  testp.notanumber.f32 %p5, %f1;
  setp.lt.and.f32 %p6|%p7, %f2, 0f40000000, %p5;
  selp.u32 %r1, 1, 0, %p5;
  selp.u32 %r2, 1, 0, %p6;
  selp.u32 %r3, 1, 0, %p7;
  setp.gtu.f32 %p1, %f1, %f2;
  selp.u32 %r4, 1, 0, %p1;
  st.global.v4.u32 [%rd15+32], {%r1, %r2, %r3, %r4};
  div.rn.f32 %f3, 0f3F800000, 0f40400000;
  sqrt.rn.f32 %f4, 0f40000000;
  add.sat.f32 %f5, 0f3F400000, 0f3F000000;
  copysign.f32 %f6, 0fBF800000, 0f40000000;
  st.global.v4.f32 [%rd15+48], {%f3, %f4, %f5, %f6};
  mov.f32 %f7, 0f3F800800;
  neg.f32 %f8, 0f3F801000;
  fma.rn.f32 %f9, %f7, %f7, %f8;
  mul.f32 %f10, %f7, %f7;
  add.f32 %f10, %f10, %f8;
  ex2.approx.f32 %f11, 0f40400000;
  lg2.approx.f32 %f12, 0f41000000;
  st.global.v4.f32 [%rd15+64], {%f9, %f10, %f11, %f12};
  rcp.rn.f64 %fd1, 0d4008000000000000;
  st.global.f64 [%rd15+80], %fd1;
  abs.f32 %f13, 0fC0000000;
  cvt.rn.f32.u32 %f14, %r31;
  mul.f32 %f14, %f14, 0f3F000000;
  st.global.v2.f32 [%rd15+88], {%f13, %f14};
)");
  CHECK(r.f(0, 0) == 1.0f);                // a NaN operand yields the other
  CHECK(std::isnan(r.f(0, 1)));            // unless .NaN asks to propagate
  CHECK(r.word(0, 2) == 0x80000000u);      // min(+0, -0) = -0
  CHECK(r.word(0, 3) == 0);                // max(-0, +0) = +0
  CHECK(r.word(0, 4) == 1);                // equ: unordered counts as equal
  CHECK(r.word(0, 5) == 0);                // NaN == NaN is false
  CHECK(r.word(0, 6) == 0);                // ordered ne with a NaN is false
  CHECK(r.word(0, 7) == 1);
  CHECK(r.word(0, 8) == 1);                // testp.notanumber
  CHECK(r.word(0, 9) == 1);                // (1 < 2) and p5
  CHECK(r.word(0, 10) == 0);               // !(1 < 2) and p5
  CHECK(r.word(0, 11) == 1);               // gtu with NaN
  CHECK(r.f(0, 12) == 1.0f / 3.0f);
  CHECK(r.f(0, 13) == std::sqrt(2.0f));
  CHECK(r.f(0, 14) == 1.0f);               // .sat clamps to [0, 1]
  CHECK(r.f(0, 15) == -2.0f);              // magnitude of b, sign of a
  const float a = std::bit_cast<float>(0x3F800800u), c = -std::bit_cast<float>(0x3F801000u);
  CHECK(r.f(0, 16) == std::fma(a, a, c));  // one rounding: 2^-24
  CHECK(r.f(0, 16) == std::ldexp(1.0f, -24));
  CHECK(r.f(0, 17) == 0.0f);               // mul then add: the product rounded away the 2^-24
  CHECK(r.f(0, 18) == 8.0f);
  CHECK(r.f(0, 19) == 3.0f);
  CHECK(r.d(0, 20) == 1.0 / 3.0);
  CHECK(r.f(0, 22) == 2.0f);
  CHECK(r.f(9, 23) == 4.5f);
}

TEST_CASE("ptx instructions: float arithmetic with directed rounding (.rz, .rm, .rp)") {
  const WarpRun r = run_warp(R"(
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f30800000;
  neg.f32 %f3, %f2;
  add.rz.f32 %f4, %f1, %f2;
  add.rp.f32 %f5, %f1, %f2;
  add.rz.f32 %f6, %f1, %f3;
  add.rm.f32 %f7, %f1, %f3;
  st.global.v4.f32 [%rd15], {%f4, %f5, %f6, %f7};
  add.rp.f32 %f4, %f1, %f3;
  mul.rz.f32 %f5, 0f3F800001, 0f3F800001;
  mul.rp.f32 %f6, 0f3F800001, 0f3F800001;
  div.rz.f32 %f7, %f1, 0f40400000;
  st.global.v4.f32 [%rd15+16], {%f4, %f5, %f6, %f7};
  sqrt.rp.f32 %f4, 0f40000000;
  sqrt.rm.f32 %f5, 0f40000000;
  fma.rz.f32 %f6, %f1, %f1, %f2;
  fma.rp.f32 %f7, %f1, %f1, %f2;
  st.global.v4.f32 [%rd15+32], {%f4, %f5, %f6, %f7};
  add.rz.f64 %fd1, 0d3FF0000000000000, 0d3C30000000000000;
  add.rp.f64 %fd2, 0d3FF0000000000000, 0d3C30000000000000;
  st.global.v2.f64 [%rd15+48], {%fd1, %fd2};
  div.rm.f64 %fd3, 0dBFF0000000000000, 0d4008000000000000;
  st.global.f64 [%rd15+64], %fd3;
)");
  const float one = 1.0f, up = std::nextafter(1.0f, 2.0f), down = std::nextafter(1.0f, 0.0f);
  CHECK(r.f(0, 0) == one);   // 1 + 2^-30 toward zero
  CHECK(r.f(0, 1) == up);    // ... toward +inf
  CHECK(r.f(0, 2) == down);  // 1 - 2^-30 toward zero
  CHECK(r.f(0, 3) == down);  // ... toward -inf
  CHECK(r.f(0, 4) == one);   // ... toward +inf
  const float a = std::bit_cast<float>(0x3F800001u);  // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46
  CHECK(r.f(0, 5) == std::ldexp(1.0f, -22) + 1.0f);
  CHECK(r.f(0, 6) == std::nextafter(std::ldexp(1.0f, -22) + 1.0f, 2.0f));
  CHECK(r.word(0, 7) == 0x3EAAAAAAu);  // 1/3 truncated (nearest is ...AB)
  (void)a;
  CHECK(r.word(0, 8) == 0x3FB504F4u);  // sqrt(2) rounded up
  CHECK(r.word(0, 9) == 0x3FB504F3u);  // and down
  CHECK(r.f(0, 10) == one);
  CHECK(r.f(0, 11) == up);
  CHECK(r.d(0, 12) == 1.0);
  CHECK(r.d(0, 14) == std::nextafter(1.0, 2.0));
  CHECK(r.d(0, 16) == std::nextafter(-1.0 / 3.0, -1.0));  // -1/3 rounds toward -inf
}

TEST_CASE("ptx instructions: cvt honours every rounding mode, saturation and sign extension") {
  const WarpRun r = run_warp(R"(
  cvt.rni.s32.f32 %r1, 0f40200000;
  cvt.rni.s32.f32 %r2, 0f40600000;
  cvt.rzi.s32.f32 %r3, 0fC02CCCCD;
  cvt.rmi.s32.f32 %r4, 0fC0066666;
  st.global.v4.u32 [%rd15], {%r1, %r2, %r3, %r4};
  cvt.rpi.s32.f32 %r1, 0f40066666;
  cvt.rzi.s32.f32 %r2, 0f501502F9;
  cvt.rzi.s32.f32 %r3, 0f7FC00000;
  cvt.rzi.u32.f32 %r4, 0fBF800000;
  st.global.v4.u32 [%rd15+16], {%r1, %r2, %r3, %r4};
  cvt.rz.f32.u32 %f1, 16777219;
  cvt.rn.f32.u32 %f2, 16777219;
  cvt.rp.f32.u32 %f3, 16777217;
  cvt.rm.f32.s32 %f4, -16777217;
  st.global.v4.f32 [%rd15+32], {%f1, %f2, %f3, %f4};
  cvt.rz.f32.f64 %f1, 0d3FF0000010000000;
  cvt.rp.f32.f64 %f2, 0d3FF0000010000000;
  cvt.rn.f32.f64 %f3, 0d3FF0000010000000;
  cvt.rni.f32.f32 %f4, 0f40200000;
  st.global.v4.f32 [%rd15+48], {%f1, %f2, %f3, %f4};
  cvt.s8.s32 %h1, 200;
  cvt.s32.s8 %r1, %h1;
  cvt.sat.u8.s32 %r2, -5;
  cvt.sat.s16.s32 %r3, 70000;
  cvt.u32.u64 %r4, 0x123456789;
  st.global.v4.u32 [%rd15+64], {%r1, %r2, %r3, %r4};
  cvt.rn.f32.s64 %f1, 0x7fffffffffffffff;
  cvt.sat.f32.f32 %f2, 0f40000000;
  cvt.rn.f16.f32 %h2, 0f3F801000;
  cvt.rn.f16.f32 %h3, 0f3F803000;
  cvt.u32.u16 %r5, %h2;
  cvt.u32.u16 %r6, %h3;
  st.global.v4.u32 [%rd15+80], {%r5, %r6, %r5, %r6};
  st.global.v2.f32 [%rd15+96], {%f1, %f2};
  cvt.s64.s32 %rd1, -3;
  cvt.f64.f32 %fd1, 0f3DCCCCCD;
  st.global.u64 [%rd15+104], %rd1;
  st.global.f64 [%rd15+112], %fd1;
  cvt.rn.bf16.f32 %h4, 0f3F808000;
  cvt.f32.bf16 %f3, %h4;
  cvt.rz.f16.f64 %h5, 0d40F0000000000000;
  cvt.rn.f16.f64 %h6, 0d40F0000000000000;
  mov.b32 %r7, {%h5, %h6};
  st.global.v2.f32 [%rd15+120], {%f3, %r7};
)");
  CHECK(r.word(0, 0) == 2);   // 2.5 ties to even
  CHECK(r.word(0, 1) == 4);   // 3.5 ties to even
  CHECK(static_cast<int32_t>(r.word(0, 2)) == -2);
  CHECK(static_cast<int32_t>(r.word(0, 3)) == -3);
  CHECK(r.word(0, 4) == 3);
  CHECK(r.word(0, 5) == 0x7fffffffu);  // 1e10 saturates
  CHECK(r.word(0, 6) == 0);            // NaN -> 0
  CHECK(r.word(0, 7) == 0);            // -1 -> u32 saturates at 0
  CHECK(r.f(0, 8) == 16777218.0f);     // toward zero
  CHECK(r.f(0, 9) == 16777220.0f);     // nearest (tie to even)
  CHECK(r.f(0, 10) == 16777218.0f);    // up
  CHECK(r.f(0, 11) == -16777218.0f);   // down
  const double x = std::bit_cast<double>(0x3FF0000010000000ull);  // 1 + 2^-24 + a bit
  CHECK(r.f(0, 12) == 1.0f);
  CHECK(r.f(0, 13) == std::nextafter(1.0f, 2.0f));
  CHECK(r.f(0, 14) == static_cast<float>(x));
  CHECK(r.f(0, 15) == 2.0f);
  CHECK(static_cast<int32_t>(r.word(0, 16)) == static_cast<int8_t>(200));  // chopped to 8 bits, sign-extended
  CHECK(r.word(0, 17) == 0);
  CHECK(r.word(0, 18) == 0x7fff);
  CHECK(r.word(0, 19) == 0x23456789u);
  CHECK(r.word(0, 20) == float_to_half(std::bit_cast<float>(0x3F801000u)));
  CHECK(r.word(0, 20) == 0x3C00);  // 1 + 2^-11 exactly: ties to even, down
  CHECK(r.word(0, 21) == 0x3C02);  // 1 + 3*2^-11: ties to even, up
  CHECK(r.f(0, 24) == 9223372036854775808.0f);
  CHECK(r.f(0, 25) == 1.0f);
  CHECK(static_cast<int64_t>(r.u64(0, 26)) == -3);
  CHECK(r.d(0, 28) == static_cast<double>(std::bit_cast<float>(0x3DCCCCCDu)));
  CHECK(r.f(0, 30) == 1.0f);       // 1 + 2^-8 is a bf16 tie: to even
  CHECK((r.word(0, 31) & 0xffff) == 0x7bff);  // 65536 toward zero: the largest half
  CHECK((r.word(0, 31) >> 16) == 0x7c00);     // to nearest: infinity
}

TEST_CASE("ptx half floats: the four-lane conversions equal the scalar ones bit for bit, exhaustively") {
  int mismatches = 0;
  for (uint32_t h = 0; h < 0x10000; h += 4) {
    const Ints4 bits = {static_cast<int32_t>(h), static_cast<int32_t>(h + 1), static_cast<int32_t>(h + 2),
                        static_cast<int32_t>(h + 3)};
    const Floats4 halves = half_to_float4(bits), bfloats = bfloat_to_float4(bits);
    for (uint32_t k = 0; k < 4; ++k) {
      const auto pattern = static_cast<uint16_t>(h + k);
      if (std::bit_cast<uint32_t>(halves[k]) != std::bit_cast<uint32_t>(half_to_float(pattern))) ++mismatches;
      if (std::bit_cast<uint32_t>(bfloats[k]) != std::bit_cast<uint32_t>(bfloat_to_float(pattern))) ++mismatches;
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("ptx half floats: conversions round to nearest even, exhaustively") {
  int mismatches = 0;
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(static_cast<uint16_t>(h));
    if (std::isnan(f)) continue;
    if (float_to_half(f) != h) ++mismatches;  // every half converts back to itself
    // The midpoint to the next half up rounds to whichever of the two is even.
    if ((h & 0x7fff) < 0x7bff) {
      const float next = half_to_float(static_cast<uint16_t>(h + 1));
      const float mid = static_cast<float>((static_cast<double>(f) + next) / 2);
      const uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h);
      if (float_to_half(mid) != even) ++mismatches;
      if (float_to_half(std::nextafter(mid, next)) != h + 1) ++mismatches;
      if (float_to_half(std::nextafter(mid, f)) != h) ++mismatches;
    }
  }
  CHECK(mismatches == 0);
  CHECK(float_to_half(65519.0f) == 0x7bff);
  CHECK(float_to_half(65520.0f) == 0x7c00);
  CHECK(float_to_half(-1e-9f) == 0x8000);
  CHECK(std::isnan(half_to_float(float_to_half(NAN))));
  std::mt19937 rng(3);
  for (int i = 0; i < 100000; ++i) {  // the fast path agrees with the generic rounding
    const float f = std::bit_cast<float>(static_cast<uint32_t>(rng()));
    if (std::isnan(f)) continue;
    REQUIRE(float_to_half(f) == to_half(static_cast<double>(f), RoundingMode::nearest_even));
    REQUIRE(float_to_bfloat(f) == to_bfloat(static_cast<double>(f), RoundingMode::nearest_even));
  }
}

TEST_CASE("ptx instructions: f16, f16x2 and bf16 arithmetic; fma.f16 rounds once") {
  // Lane l computes fma(a, b, c) on halves from the scratch buffer; the reference computes the
  // exact value in long double (a half product and sum fit in its 64-bit significand).
  std::mt19937 rng(9);
  std::vector<uint32_t> inputs(256);
  for (uint32_t& v : inputs) {
    uint32_t h = rng() & 0xffff;
    if ((h & 0x7c00) == 0x7c00) h &= 0xbfff;  // no inf/NaN
    v = h;
  }
  const WarpRun r = run_warp(R"(
  mul.wide.u32 %rd1, %r31, 12;
  add.s64 %rd1, %rd14, %rd1;
  ld.global.u16 %h1, [%rd1];
  ld.global.u16 %h2, [%rd1+4];
  ld.global.u16 %h3, [%rd1+8];
  fma.rn.f16 %h4, %h1, %h2, %h3;
  add.f16 %h5, %h1, %h2;
  mul.f16 %h6, %h1, %h2;
  neg.f16 %h7, %h1;
  mov.b32 %r1, {%h1, %h2};
  mov.b32 %r2, {%h3, %h1};
  add.f16x2 %r3, %r1, %r2;
  min.f16x2 %r4, %r1, %r2;
  mov.b32 {%h8, %h9}, %r3;
  cvt.u32.u16 %r5, %h4;
  cvt.u32.u16 %r6, %h5;
  cvt.u32.u16 %r7, %h6;
  cvt.u32.u16 %r8, %h7;
  st.global.v4.u32 [%rd15], {%r5, %r6, %r7, %r8};
  cvt.u32.u16 %r9, %h9;
  st.global.v4.u32 [%rd15+16], {%r3, %r4, %r9, %r1};
  mov.b16 %h10, 0x3F80;
  fma.rn.bf16 %h11, %h10, %h10, %h10;
  cvt.u32.u16 %r10, %h11;
  setp.lt.f16 %p1, %h1, %h2;
  selp.u32 %r11, 1, 0, %p1;
  cvt.rn.f16x2.f32 %r12, 0f3F800000, 0fC0000000;
  st.global.v4.u32 [%rd15+32], {%r10, %r11, %r12, %r12};
)", "", inputs);
  for (int l = 0; l < 32; ++l) {
    CAPTURE(l);
    const auto a = static_cast<uint16_t>(inputs[3 * l]), b = static_cast<uint16_t>(inputs[3 * l + 1]),
               c = static_cast<uint16_t>(inputs[3 * l + 2]);
    const long double exact = static_cast<long double>(half_to_float(a)) * half_to_float(b) + half_to_float(c);
    CHECK(r.word(l, 0) == to_half(exact, RoundingMode::nearest_even));
    CHECK(r.word(l, 1) == float_to_half(half_to_float(a) + half_to_float(b)));
    CHECK(r.word(l, 2) == float_to_half(half_to_float(a) * half_to_float(b)));
    CHECK(r.word(l, 3) == (a ^ 0x8000u));
    const uint32_t lo = float_to_half(half_to_float(a) + half_to_float(c)), hi = float_to_half(half_to_float(b) + half_to_float(a));
    CHECK(r.word(l, 4) == (lo | hi << 16));
    const uint32_t min_lo = half_to_float(a) <= half_to_float(c) ? a : c, min_hi = half_to_float(b) <= half_to_float(a) ? b : a;
    if (half_to_float(a) != half_to_float(c) && half_to_float(b) != half_to_float(a)) CHECK(r.word(l, 5) == (min_lo | min_hi << 16));
    CHECK(r.word(l, 6) == hi);  // unpacking gives back the high half
    CHECK(r.word(l, 7) == (a | uint32_t{b} << 16));
    CHECK(r.word(l, 9) == (half_to_float(a) < half_to_float(b) ? 1u : 0u));
  }
  CHECK(r.word(0, 8) == float_to_bfloat(2.0f));  // 1 * 1 + 1 in bf16
  CHECK(r.word(0, 10) == (0x3C00u << 16 | 0xC000u));  // cvt.rn.f16x2.f32: a in the upper half
}

TEST_CASE("ptx instructions: every state space, generic addressing, vectors and atomics") {
  const WarpRun r = run_warp(R"(
  .shared .align 8 .b8 sm[256];
  .local .align 4 .b8 __local_depot0[16];
  mov.u64 %rd1, sm;
  cvta.shared.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r31, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.u32 [%rd4], %r31;
  bar.sync 0;
  xor.b32 %r1, %r31, 1;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd5, %rd1, %rd5;
  cvt.u32.u64 %r2, %rd5;
  ld.shared.u32 %r3, [%r2];
  cvta.to.shared.u64 %rd6, %rd2;
  sub.s64 %rd6, %rd6, %rd1;
  cvt.u32.u64 %r4, %rd6;
  st.global.v2.u32 [%rd15], {%r3, %r4};
  mov.u64 %rd7, __local_depot0;
  mul.lo.u32 %r5, %r31, 3;
  st.local.u32 [%rd7+4], %r5;
  cvta.local.u64 %rd8, %rd7;
  ld.u32 %r6, [%rd8+4];
  ld.const.u32 %r7, [table+8];
  st.global.v2.u32 [%rd15+8], {%r6, %r7};
  atom.shared.add.u32 %r8, [sm+128], 1;
  bar.sync 0;
  ld.shared.u32 %r9, [sm+128];
  st.global.v2.u32 [%rd15+16], {%r8, %r9};
  atom.global.add.f32 %f1, [%rd14], 0f3F000000;
  red.global.add.u32 [%rd14+4], %r31;
  atom.global.cas.b32 %r10, [%rd14+8], %r31, 100;
  atom.global.exch.b32 %r11, [%rd14+12], %r31;
  atom.global.min.s32 %r12, [%rd14+16], %r31;
  atom.global.inc.u32 %r13, [%rd14+20], 9;
  atom.global.max.u32 %r14, [%rd14+24], %r31;
  st.global.v4.u32 [%rd15+24], {%r10, %r11, %r12, %r13};
  st.global.u32 [%rd15+40], %r14;
  mov.u32 %r15, 0xf0;
  st.global.u8 [%rd14+32], %r15;
  ld.global.s8 %r16, [%rd14+32];
  ld.global.u8 %r17, [%rd14+32];
  st.global.v2.u32 [%rd15+44], {%r16, %r17};
  ld.global.v4.u32 {%r18, %r19, %r20, %r21}, [%rd14+48];
  st.global.v4.u32 [%rd15+64], {%r21, %r20, %r19, %r18};
  ld.global.nc.v2.f32 {%f2, %f3}, [%rd14+64];
  st.global.v2.f32 [%rd15+80], {%f3, %f2};
)", ".const .align 4 .u32 table[4] = {10, 20, 30, 40};\n",
                             [] {
                               std::vector<uint32_t> s(256, 0);  // word i is at byte 4i
                               s[1] = 5;  // red.add target
                               s[2] = 7;  // cas: only the lane whose value matches (7) swaps
                               for (int i = 0; i < 4; ++i) s[12 + i] = 100 + i;
                               s[16] = bits(1.5f);
                               s[17] = bits(-2.0f);
                               return s;
                             }());
  for (int l = 0; l < 32; ++l) {
    CAPTURE(l);
    CHECK(r.word(l, 0) == static_cast<uint32_t>(l ^ 1));  // written via the generic window, read as shared
    CHECK(r.word(l, 1) == 0);                            // cvta.to.shared undoes cvta.shared
    CHECK(r.word(l, 2) == static_cast<uint32_t>(3 * l)); // .local, then generic, per thread
    CHECK(r.word(l, 3) == 30);
    CHECK(r.word(l, 4) == static_cast<uint32_t>(l));     // atomics apply in lane order
    CHECK(r.word(l, 5) == 32);
    CHECK(r.word(l, 6) == (l <= 7 ? 7u : 100u));         // cas swaps at lane 7; later lanes see 100
    CHECK(r.word(l, 7) == (l == 0 ? 0u : static_cast<uint32_t>(l - 1)));
    CHECK(r.word(l, 8) == 0);                            // min of 0 and l
    CHECK(r.word(l, 9) == static_cast<uint32_t>(l % 10));  // inc wraps after 9
    CHECK(r.word(l, 10) == (l == 0 ? 0u : static_cast<uint32_t>(l - 1)));
    CHECK(r.word(l, 11) == 0xfffffff0u);                 // ld.s8 sign-extends into the register
    CHECK(r.word(l, 12) == 0xf0u);
    CHECK(r.word(l, 16) == 103);
    CHECK(r.word(l, 19) == 100);
    CHECK(r.f(l, 20) == -2.0f);
    CHECK(r.f(l, 21) == 1.5f);
  }
  CHECK(std::bit_cast<float>(r.scratch[0]) == 16.0f);  // 32 lanes added 0.5
  CHECK(r.scratch[1] == 5 + 31 * 32 / 2);              // red.add of the lane ids onto 5
  CHECK(r.scratch[2] == 100);
  CHECK(r.scratch[3] == 31);
  CHECK(r.scratch[6] == 31);
}

TEST_CASE("ptx instructions: mma.sync m16n8k16 uses the PTX ISA fragment layout") {
  // The host scatters A (16x16 f16), B (16x8 f16) and C (16x8 f32) into per-lane fragments as
  // the PTX ISA's m16n8k16 tables lay them out; the kernel loads them, multiplies, stores D.
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  float a[16][16], b[16][8], c[16][8];
  for (auto& row : a)
    for (float& v : row) v = half_to_float(float_to_half(u(rng)));
  for (auto& row : b)
    for (float& v : row) v = half_to_float(float_to_half(u(rng)));
  for (auto& row : c)
    for (float& v : row) v = u(rng);
  // Lane l: a0..a3 at word 8l, b0..b1 at 8l+4, c0..c3 at 256+4l. Fragment element i of a
  // register pair sits in the low (even i) or high (odd i) half.
  auto a_row = [](int l, int i) { return l / 4 + ((i % 4) >= 2 ? 8 : 0); };
  auto a_col = [](int l, int i) { return (l % 4) * 2 + (i & 1) + (i >= 4 ? 8 : 0); };
  auto b_row = [](int l, int i) { return (l % 4) * 2 + (i & 1) + (i >= 2 ? 8 : 0); };
  auto c_row = [](int l, int i) { return l / 4 + (i >= 2 ? 8 : 0); };
  auto c_col = [](int l, int i) { return (l % 4) * 2 + (i & 1); };
  std::vector<uint32_t> scratch(512, 0);
  for (int l = 0; l < 32; ++l) {
    for (int i = 0; i < 8; ++i) scratch[8 * l + i / 2] |= uint32_t{float_to_half(a[a_row(l, i)][a_col(l, i)])} << (16 * (i & 1));
    for (int i = 0; i < 4; ++i) scratch[8 * l + 4 + i / 2] |= uint32_t{float_to_half(b[b_row(l, i)][l / 4])} << (16 * (i & 1));
    for (int i = 0; i < 4; ++i) scratch[256 + 4 * l + i] = bits(c[c_row(l, i)][c_col(l, i)]);
  }
  const WarpRun r = run_warp(R"(
  mul.wide.u32 %rd1, %r31, 32;
  add.s64 %rd1, %rd14, %rd1;
  ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];
  ld.global.v2.u32 {%r5, %r6}, [%rd1+16];
  mul.wide.u32 %rd2, %r31, 16;
  add.s64 %rd2, %rd14, %rd2;
  ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2+1024];
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4};
  st.global.v4.f32 [%rd15], {%f5, %f6, %f7, %f8};
)", "", scratch);
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) {
      const int m = c_row(l, i), n = c_col(l, i);
      double want = c[m][n];
      double scale = std::fabs(c[m][n]);
      for (int k = 0; k < 16; ++k) {
        want += static_cast<double>(a[m][k]) * b[k][n];
        scale += std::fabs(static_cast<double>(a[m][k]) * b[k][n]);
      }
      CAPTURE(l);
      CAPTURE(i);
      CHECK(std::fabs(r.f(l, i) - want) <= 1e-6 * scale);  // fp32 accumulation of 16 exact products
    }
}

TEST_CASE("ptx instructions: dynamic shared memory follows the static symbols; %clock advances") {
  const std::string text = R"(.version 7.5
.target sm_75
.address_size 64
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 out, .param .u32 n)
{
  .reg .pred %p1;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 fixed[20];
  mov.u32 %r1, %tid.x;
  mov.u32 %r6, %clock;
  ld.param.u32 %r7, [n];
  mov.u32 %r2, dyn;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4], %r1;
  st.shared.u32 [fixed+16], %r1;
  bar.sync 0;
  setp.lt.u32 %p1, %r1, %r7;
  @%p1 ld.shared.u32 %r5, [%r4];
  mov.u32 %r4, %clock;
  sub.u32 %r6, %r4, %r6;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 12;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r2, %r5};
  st.global.u32 [%rd3+8], %r6;
  ret;
}
)";
  const PtxKernel kernel = decode_kernel(parse_ptx(text, "dyn.ptx"), "");
  CHECK(kernel.static_shared_bytes == 20);
  CHECK(kernel.dynamic_shared_offset() == 32);
  GlobalMemory memory;
  const uint64_t out = memory.allocate(64 * 12, "out");
  LaunchConfig config;
  config.block = {64, 1, 1};
  config.dynamic_shared_bytes = 64 * 4;
  FunctionalModel model(kernel, config, bind_kernel_arguments(kernel, {KA::pointer(out), KA::integer(64)}), memory);
  CHECK(model.cta_resources().shared_bytes == 32 + 256);
  run_functional(model);
  const std::vector<uint32_t> v = memory.read<uint32_t>(out, 64 * 3);
  for (uint32_t t = 0; t < 64; ++t) {
    CHECK(v[3 * t] == 32);  // dyn starts at the static bytes rounded up to its alignment
    CHECK(v[3 * t + 1] == t);
    CHECK(v[3 * t + 2] > 0);  // %clock counts the warp's instructions
  }
  config.dynamic_shared_bytes = 64 * 4 - 4;  // one word short for the last thread
  FunctionalModel short_of_one(kernel, config, bind_kernel_arguments(kernel, {KA::pointer(out), KA::integer(64)}), memory);
  CHECK_THROWS_WITH_AS(run_functional(short_of_one), doctest::Contains("tid 63,0,0"), InputError);
}
