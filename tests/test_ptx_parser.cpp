// The PTX front end: tokens, operands and declarations as parsed; errors that name the line
// and what was expected; instruction decoding (static information for the timing model,
// reconvergence points, register estimate, unsupported instructions); argument binding.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <string>

#include "arch/simt/ptx/kernel_arguments.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/ptx_parser.h"
#include "sim/error.h"

using namespace loom;
using namespace loom::simt;
using Kind = PtxOperand::Kind;

namespace {

const std::string kHeader = ".version 7.5\n.target sm_75\n.address_size 64\n";  // lines 1-3

// A module whose only kernel has `body` starting at line 6.
std::string kernel_text(const std::string& body, const std::string& params = "") {
  return kHeader + ".visible .entry k(" + params + ")\n{\n" + body + "}\n";
}

// The InputError message parse_ptx + decode_kernel give for `text` ("" when none).
std::string error_of(const std::string& text, std::string* field = nullptr) {
  try {
    decode_kernel(parse_ptx(text, "bad.ptx"), "");
  } catch (const InputError& e) {
    if (field) *field = e.field();
    CHECK(e.file() == "bad.ptx");
    return e.what();
  }
  return "";
}

bool contains(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("ptx parser: immediates in every notation") {
  const PtxModule m = parse_ptx(kernel_text(R"(
  .reg .b32 %r<9>;
  .reg .f32 %f1;
  .reg .f64 %fd1;
  mov.u32 %r1, 42;
  mov.s32 %r2, -5;
  mov.u32 %r3, 0x1F;
  mov.u32 %r4, 017;
  mov.u32 %r5, 0b101;
  mov.f32 %f1, 0f3F800000;
  mov.f64 %fd1, 0d4000000000000000;
  mov.f32 %f1, 0fBF800000;
  mov.f64 %fd1, 1.5;
  mov.u32 %r6, 7U;
  mov.f32 %f1, -0f3F800000;
)"), "imm.ptx");
  const std::vector<PtxStatement>& body = m.entry("k").body;
  REQUIRE(body.size() == 11);
  auto imm = [&](size_t i) { return body[i].operands.at(1); };
  CHECK(imm(0).kind == Kind::integer);
  CHECK(imm(0).bits == 42);
  CHECK(static_cast<int64_t>(imm(1).bits) == -5);
  CHECK(imm(2).bits == 31);
  CHECK(imm(3).bits == 15);
  CHECK(imm(4).bits == 5);
  CHECK(imm(5).kind == Kind::f32);
  CHECK(imm(5).bits == 0x3F800000u);
  CHECK(imm(6).kind == Kind::f64);
  CHECK(std::bit_cast<double>(imm(6).bits) == 2.0);
  CHECK(imm(7).bits == 0xBF800000u);
  CHECK(imm(8).kind == Kind::f64);
  CHECK(std::bit_cast<double>(imm(8).bits) == 1.5);
  CHECK(imm(9).bits == 7);
  CHECK(imm(10).bits == 0xBF800000u);  // '-' flips the sign of a float literal
  CHECK(body[0].text == "mov.u32 %r1, 42");
  CHECK(body[0].line == 10);
}

TEST_CASE("ptx parser: guards, vectors, addresses, register pairs and sinks") {
  const PtxModule m = parse_ptx(kernel_text(R"(
  .reg .pred %p<3>;
  .reg .b32 %r<5>;
  .reg .b64 %rd<3>;
  .shared .align 8 .b8 tile[256];
  @%p1 ld.global.v2.u32 {%r1, %r2}, [%rd1+8];
  @!%p2 st.shared.u32 [tile+-4], %r3;
  ld.param.u64 %rd2, [arg];
  setp.lt.s32 %p1|%p2, %r1, %r2;
  ld.shared.v4.u32 {%r1, _, %r3, %r4}, [tile];
  ld.global.u32 %r1, [%rd1-12];
  selp.b32 %r1, %r2, %r3, !%p1;
)", ".param .u64 arg"), "ops.ptx");
  const PtxEntry& e = m.entry("k");
  REQUIRE(e.body.size() == 7);
  const PtxStatement& ld = e.body[0];
  CHECK(ld.guard >= 0);
  CHECK(e.registers[static_cast<size_t>(ld.guard)].name == "%p1");
  CHECK_FALSE(ld.guard_negated);
  CHECK(ld.opcode == "ld.global.v2.u32");
  REQUIRE(ld.operands.size() == 2);
  CHECK(ld.operands[0].kind == Kind::vector);
  CHECK(ld.operands[0].elements.size() == 2);
  CHECK(ld.operands[1].kind == Kind::address);
  CHECK(e.registers[static_cast<size_t>(ld.operands[1].reg)].name == "%rd1");
  CHECK(ld.operands[1].offset == 8);
  const PtxStatement& st = e.body[1];
  CHECK(st.guard_negated);
  CHECK(st.operands[0].symbol == "tile");
  CHECK(st.operands[0].offset == -4);
  CHECK(e.body[2].operands[1].symbol == "arg");
  const PtxOperand& pair = e.body[3].operands[0];
  CHECK(e.registers[static_cast<size_t>(pair.reg)].name == "%p1");
  CHECK(e.registers[static_cast<size_t>(pair.reg2)].name == "%p2");
  CHECK(e.body[4].operands[0].elements[1].kind == Kind::sink);
  CHECK(e.body[5].operands[1].offset == -12);
  CHECK(e.body[6].operands[3].negated);
  REQUIRE(e.variables.size() == 1);
  CHECK(e.variables[0].bytes() == 256);
  CHECK(e.variables[0].align == 8);
  CHECK(e.registers.size() == 3 + 5 + 3);
}

TEST_CASE("ptx parser: comments, pragmas, directives and nested scopes are skipped or scoped") {
  const std::string text = kHeader + R"(
// a line comment
/* a block comment
   spanning lines */
.extern .func (.param .b32 r) helper (.param .b32 a);
.visible .entry k(.param .u64 out) .maxntid 128, 1, 1 .minnctapersm 2
{
  .reg .b32 %r<2>;  // trailing comment
  .pragma "nounroll";
  {
    .reg .b16 %t;
    mov.b16 %t, 0x3C00; /* inline */ cvt.u32.u16 %r1, %t;
  }
  {
    .reg .b16 %t;
    mov.b16 %t, 1;
  }
  ret;
}
.entry second() { ret; }
)";
  const PtxModule m = parse_ptx(text, "c.ptx");
  CHECK(m.version == "7.5");
  CHECK(m.target == "sm_75");
  REQUIRE(m.entries.size() == 2);
  CHECK(m.functions == std::vector<std::string>{"helper"});
  const PtxEntry& e = m.entry("k");
  REQUIRE(e.body.size() == 4);
  CHECK(e.body[1].line == 15);  // the cvt after the inline comment, on the mov's line
  // The two %t live in different scopes: different registers.
  CHECK(e.body[0].operands[0].reg != e.body[2].operands[0].reg);
  CHECK(e.body[1].operands[1].reg == e.body[0].operands[0].reg);
  const PtxKernel k = decode_kernel(m, "k");
  CHECK(k.code.size() == 4);
}

TEST_CASE("ptx parser: syntax errors name the line and what was expected") {
  std::string field;
  CHECK(contains(error_of(kernel_text("  .reg .b32 %r<2>;\n  mov.u32 %r1, 1\n  ret;\n"), &field), "expected ',' or ';' after an operand of 'mov.u32', found 'ret'"));
  CHECK(field == "line 8");
  CHECK(contains(error_of(kernel_text("  .reg .b32 %r<2>;\n  add.u32 %r1, %r7, 1;\n"), &field), "register '%r7' is not declared"));
  CHECK(field == "line 7");
  CHECK(contains(error_of(kernel_text("  .reg .b32 %r1;\n  mov.u32 %r1, 0x;\n"), &field), "expected a number"));
  CHECK(field == "line 7");
  CHECK(contains(error_of(kernel_text("  /* never closed\n  ret;\n"), &field), "unterminated /* comment"));
  CHECK(field == "line 6");
  CHECK(contains(error_of(kHeader + ".visible .entry k()\n{\n  ret;\n", &field), "expected '}' closing the kernel body"));
  CHECK(contains(error_of(kernel_text("  .reg .b64 %rd1;\n  .reg .b32 %r1;\n  ld.global.u32 %r1, [%rd1+];\n"), &field), "expected an integer offset in the address"));
  CHECK(field == "line 8");
  CHECK(contains(error_of(kernel_text("  .reg .b32 %r1;\n  @%r1 ret;\n"), &field), "expected a predicate register after '@'"));
  CHECK(contains(error_of(kernel_text("  .reg .q32 %r1;\n"), &field), "expected a type"));
  CHECK(contains(error_of(kHeader + ".address_size 32\n"), "loom executes 64-bit PTX only"));
  CHECK(contains(error_of(kHeader), "no kernel found"));
  CHECK(contains(error_of(kHeader + "#include <x>\n"), "unexpected character '#'"));
  CHECK(contains(error_of(kernel_text("  .reg .b32 %r1;\n  bra NOWHERE;\n"), &field), "'NOWHERE' is not"));
  CHECK(field == "line 7");
  CHECK(contains(error_of(kernel_text("  .reg .b32 %r1;\n  add.u32 %r1, %r1;\n"), &field), "expected 3 operands (d, a, b), found 2"));
  CHECK(contains(error_of(kernel_text("  .reg .b32 %r1;\n  ld.global.u32 %r1, [undeclared];\n")), "'undeclared' is not declared"));
}

TEST_CASE("ptx parser: kernels are chosen by name; a wrong name lists the kernels") {
  const PtxModule m = parse_ptx(kHeader + ".visible .entry alpha() { ret; }\n.visible .entry beta() { ret; }\n", "two.ptx");
  CHECK(m.entry("beta").name == "beta");
  CHECK_THROWS_WITH_AS(m.entry("gamma"), "two.ptx: kernel: no kernel named 'gamma'; expected one of: alpha, beta", InputError);
  CHECK_THROWS_WITH_AS(m.entry(""), doctest::Contains("name one of: alpha, beta"), InputError);
}

TEST_CASE("ptx decode: unsupported instructions name the instruction and its line") {
  std::string field;
  const std::string m = error_of(kernel_text("  .reg .b32 %r<4>;\n  dp4a.u32.u32 %r1, %r2, %r3, %r3;\n"), &field);
  CHECK(contains(m, "unsupported PTX instruction 'dp4a.u32.u32' at line 7 ('dp4a.u32.u32 %r1, %r2, %r3, %r3'); supported: "));
  CHECK(contains(m, "add,"));
  CHECK(contains(m, "wmma"));
  CHECK(field == "line 7");
  CHECK(contains(error_of(kernel_text("  .reg .b32 %r<3>;\n  add.cc.u32 %r1, %r2, %r2;\n")), "'add.cc.u32' at line 7 ('add.cc.u32 %r1, %r2, %r2'): modifier '.cc' is not modelled"));
  CHECK(contains(error_of(kernel_text("  .reg .f64 %fd<3>;\n  fma.rz.f64 %fd1, %fd2, %fd2, %fd2;\n")), "directed rounding on .f64 fma is not modelled"));
  CHECK(contains(error_of(kernel_text("  .reg .f32 %f<3>;\n  add.f32 %f1, %f2, %f2;\n  div.s32 %f1, %f2;\n")), "line 8"));
  const std::string call = error_of(kHeader + ".func helper() { ret; }\n.visible .entry k()\n{\n  call helper, ();\n  ret;\n}\n");
  CHECK(contains(call, "unsupported PTX instruction 'call' at line 7"));
  CHECK(contains(call, "device-function calls (.func) are not modelled"));
  CHECK(contains(error_of(kHeader + ".func helper() { ret; }\n"), "no kernel found"));
  CHECK(contains(error_of(kernel_text("  .reg .b32 %r<3>;\n  wmma.load.a.sync.aligned.row.m8n32k16.f16 {%r1,%r1,%r1,%r1,%r1,%r1,%r1,%r1}, [%r2];\n")), "shape .m8n32k16"));
}

TEST_CASE("ptx decode: static information for the timing model") {
  const PtxKernel k = decode_kernel(parse_ptx(kernel_text(R"(
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<4>;
  .reg .f64 %fd<3>;
  .reg .b64 %rd<3>;
  .reg .b16 %h<3>;
  ld.param.u64 %rd1, [out];
  fma.rn.f32 %f1, %f2, %f3, %f2;
  add.f64 %fd1, %fd2, %fd2;
  add.rn.f16x2 %r1, %r2, %r3;
  @%p1 st.global.f32 [%rd1+4], %f1;
  sqrt.approx.f32 %f1, %f1;
  cvt.rn.f32.s32 %f2, %r1;
  cvt.s64.s32 %rd2, %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [%r1];
  @!%p1 bra DONE;
  shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;
DONE:
  ret;
)", ".param .u64 out"), "s.ptx"), "", DecodeOptions{.schedule = false});  // as written: facts by pc
  REQUIRE(k.statics.size() == 13);
  auto id = [&](const std::string& name) {
    for (size_t i = 0; i < k.registers.size(); ++i)
      if (k.registers[i].name == name) return static_cast<uint16_t>(i);
    FAIL("no register " << name);
    return uint16_t{0};
  };
  const StaticInstruction& ld = k.statics[0];
  CHECK(ld.unit == Unit::ldst);
  CHECK(ld.energy == EnergyClass::load_other);
  CHECK(ld.space == MemorySpace::param);
  CHECK(ld.n_src == 0);
  CHECK(ld.n_dst == 1);
  CHECK(ld.dst[0] == id("%rd1"));
  const StaticInstruction& fma = k.statics[1];
  CHECK(fma.unit == Unit::fp32);
  CHECK(fma.flops_per_lane == 2);
  CHECK(fma.n_src == 2);  // %f2 read twice counts once
  CHECK(fma.src[0] == id("%f2"));
  CHECK(fma.src[1] == id("%f3"));
  CHECK(k.statics[2].unit == Unit::fp64);
  CHECK(k.statics[2].flops_per_lane == 1);
  CHECK(k.statics[3].unit == Unit::fp16);
  CHECK(k.statics[3].flops_per_lane == 2);
  const StaticInstruction& st = k.statics[4];
  CHECK(st.is_store);
  CHECK(st.energy == EnergyClass::store_global);
  CHECK(st.n_dst == 0);
  REQUIRE(st.n_src == 3);  // address, value, then the guard predicate
  CHECK(st.src[2] == id("%p1"));
  CHECK(st.line == 17);
  CHECK(st.text == "@%p1 st.global.f32 [%rd1+4], %f1");
  CHECK(k.statics[5].unit == Unit::sfu);
  CHECK(k.statics[5].energy == EnergyClass::sfu_op);
  CHECK(k.statics[6].unit == Unit::fp32);
  CHECK(k.statics[7].unit == Unit::int_alu);
  CHECK(k.statics[8].is_barrier);
  CHECK(k.statics[8].unit == Unit::control);
  CHECK(k.statics[9].energy == EnergyClass::load_shared);
  CHECK(k.statics[10].is_branch);
  CHECK(k.code[10].target == 12);
  CHECK(k.code[10].reconverge == 12);
  CHECK(k.statics[11].unit == Unit::ldst);  // shfl: the MIO pipe
  CHECK(k.statics[12].is_exit);
  CHECK(k.register_count() == 1 + 3 + 3 + 2 + 2);  // only registers the kernel uses get ids (%p0, %h* ... do not)
}

TEST_CASE("ptx decode: branches reconverge at their immediate post-dominator") {
  // Nested ifs, a loop with a break, and a branch whose paths meet only at exit.
  const PtxKernel k = decode_kernel(parse_ptx(kernel_text(R"(
  .reg .pred %p<4>;
  @%p1 bra W;          // 0: -> W (7)
  @%p2 bra Y;          // 1: -> Z (5)
  bra.uni Z;           // 2: uniform jump, also a branch
Y:
  @%p3 bra Z;          // 3: -> Z (5)
  bra.uni Z;           // 4
Z:
  @%p3 bra Z2;         // 5: both paths meet at 6
Z2:
  bra.uni W;           // 6
W:
LOOP:
  @%p1 bra OUT;        // 7: leaves the loop -> 9
  bra.uni LOOP;        // 8
OUT:
  @%p2 ret;            // 9
  @%p3 bra LOOP;       // 10: paths meet only at exit
  ret;                 // 11
)"), "r.ptx"), "");
  REQUIRE(k.code.size() == 12);
  CHECK(k.code[0].reconverge == 7);
  CHECK(k.code[1].reconverge == 5);
  CHECK(k.code[3].reconverge == 5);
  CHECK(k.code[5].reconverge == 6);
  CHECK(k.code[7].reconverge == 9);
  CHECK(k.code[10].reconverge == kNoReconvergence);
}

TEST_CASE("ptx decode: the register estimate is the liveness maximum in 32-bit words plus an allowance") {
  // Live at once after the loads: %rd1 (2 words), %rd2 (2), %r1, %r2, %f1 (1 each) = 7 words;
  // predicates are free. %r3 reuses %r1's space after its last use.
  const PtxKernel k = decode_kernel(parse_ptx(kernel_text(R"(
  .reg .pred %p1;
  .reg .b32 %r<4>;
  .reg .f32 %f1;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [a+8];
  ld.global.u32 %r1, [%rd1];
  ld.global.u32 %r2, [%rd2];
  ld.global.f32 %f1, [%rd1+4];
  setp.eq.u32 %p1, %r1, 0;
  add.u32 %r3, %r1, %r2;
  st.global.u32 [%rd2], %r3;
  st.global.f32 [%rd1], %f1;
  ret;
)", ".param .u64 a, .param .u64 b"), "e.ptx"), "");
  CHECK(k.live_register_words == 7);
  CHECK(k.estimated_registers == 7 + 8);
}

TEST_CASE("ptx arguments: parameters are laid out at their alignment; mismatches are errors") {
  const PtxKernel k = decode_kernel(parse_ptx(kHeader + R"(
.visible .entry naive_gemm(.param .u64 A, .param .u64 B, .param .u64 C, .param .u32 M, .param .u32 N, .param .u32 K) { ret; }
.visible .entry mixed(.param .u8 a, .param .f64 b, .param .s16 c, .param .f32 d, .param .align 8 .b8 s[12]) { ret; }
)", "args.ptx"), "naive_gemm");
  using KA = KernelArgument;
  const std::vector<uint8_t> bytes = bind_kernel_arguments(
      k, {KA::pointer(0x1000000000), KA::pointer(0x1000001000), KA::pointer(0x1000002000), KA::integer(3), KA::integer(-1 + 5), KA::unsigned_integer(7)});
  REQUIRE(bytes.size() == 36);
  uint64_t c = 0;
  uint32_t n = 0;
  std::memcpy(&c, bytes.data() + 16, 8);
  std::memcpy(&n, bytes.data() + 28, 4);
  CHECK(c == 0x1000002000);
  CHECK(n == 4);
  CHECK_THROWS_WITH_AS(bind_kernel_arguments(k, {KA::pointer(0), KA::pointer(0), KA::pointer(0), KA::integer(1), KA::integer(1)}),
                       "args.ptx: arguments: kernel 'naive_gemm' takes 6 parameters (u64, u64, u64, u32, u32, u32), 5 given",
                       InputError);
  const std::vector<KA> good{KA::pointer(0), KA::pointer(0), KA::pointer(0), KA::integer(1), KA::integer(1), KA::integer(1)};
  auto with = [&](size_t i, KA a) {
    std::vector<KA> v = good;
    v[i] = a;
    return v;
  };
  CHECK_THROWS_WITH_AS(bind_kernel_arguments(k, with(3, KA::f32(1.5f))),
                       "args.ptx: argument 4: kernel 'naive_gemm' parameter 4 ('M', .u32) was given f32 1.5; expected an integer",
                       InputError);
  CHECK_THROWS_WITH_AS(bind_kernel_arguments(k, with(4, KA::pointer(0x1000000000))),
                       doctest::Contains("parameter 5 ('N', .u32) was given pointer 0x1000000000; expected an integer (a pointer needs a 64-bit parameter)"),
                       InputError);
  CHECK_THROWS_WITH_AS(bind_kernel_arguments(k, with(5, KA::integer(-1))), doctest::Contains("in the range of .u32"), InputError);
  CHECK_THROWS_WITH_AS(bind_kernel_arguments(k, with(5, KA::integer(int64_t{1} << 32))), doctest::Contains("in the range of .u32"), InputError);
  CHECK_THROWS_WITH_AS(bind_kernel_arguments(k, with(0, KA::f64(2.0))), doctest::Contains("expected a device pointer or an integer"), InputError);

  const PtxKernel mixed = decode_kernel(parse_ptx(kHeader + ".visible .entry mixed(.param .u8 a, .param .f64 b, .param .s16 c, .param .f32 d) { ret; }\n", "m.ptx"), "");
  const std::vector<uint8_t> m = bind_kernel_arguments(mixed, {KA::integer(200), KA::f32(0.5f), KA::integer(-2), KA::f64(0.25)});
  REQUIRE(m.size() == 24);  // u8 at 0, f64 at 8, s16 at 16, f32 at 20
  double b = 0;
  float d = 0;
  int16_t s = 0;
  std::memcpy(&b, m.data() + 8, 8);
  std::memcpy(&s, m.data() + 16, 2);
  std::memcpy(&d, m.data() + 20, 4);
  CHECK(m[0] == 200);
  CHECK(b == 0.5);
  CHECK(s == -2);
  CHECK(d == 0.25f);
  CHECK_THROWS_WITH_AS(bind_kernel_arguments(mixed, {KA::integer(256), KA::f32(0), KA::integer(0), KA::f32(0)}),
                       doctest::Contains("in the range of .u8"), InputError);
  CHECK_THROWS_WITH_AS(bind_kernel_arguments(mixed, {KA::integer(1), KA::integer(1), KA::integer(0), KA::f32(0)}),
                       doctest::Contains("expected a floating-point value (.f64)"), InputError);
}
