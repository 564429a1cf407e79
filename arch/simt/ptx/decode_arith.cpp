// Decoders for integer, logic and floating-point arithmetic.
#include <optional>

#include "arch/simt/ptx/decode_context.h"

namespace loom::simt {

namespace {

using D = DecodeContext;

bool is_float_or_half(PtxType t) { return is_float_type(t) || is_half_type(t); }
bool is_packed(PtxType t) { return t == PtxType::f16x2 || t == PtxType::bf16x2; }

// The directed rounding mode the instruction names, if any (.rn and none: nearest even).
std::optional<RoundingMode> directed_mode(const D& x) {
  if (x.opcode().has("rz")) return RoundingMode::toward_zero;
  if (x.opcode().has("rm")) return RoundingMode::toward_minus_inf;
  if (x.opcode().has("rp")) return RoundingMode::toward_plus_inf;
  return std::nullopt;
}

// The handler for a float operation rounded to nearest (and its narrow twin, register_slots.h).
ExecFn nearest_float_handler(D& x, FloatOp op, PtxType t, bool sat) {
  x.d().narrow = select_float_op_narrow(op, t, sat);
  return select_float_op(op, t, sat);
}

// The handler for an integer operation (and its narrow twin).
ExecFn integer_handler(D& x, IntOp op, PtxType t) {
  x.d().narrow = select_integer_op_narrow(op, t);
  x.d().narrow_sources_only = op == IntOp::mul_wide;
  return select_integer_op(op, t);
}

// The handler for a float operation in the instruction's rounding mode.
ExecFn float_handler(D& x, FloatOp op, PtxType t) {
  const bool sat = x.opcode().has("sat");
  const auto mode = directed_mode(x);
  if (!mode) return nearest_float_handler(x, op, t, sat);
  const ExecFn fn = select_float_directed(op, t, *mode, sat);
  if (!fn) x.unsupported(std::string("directed rounding on .") + ptx_type_name(t) + " " + x.opcode().base + " is not modelled");
  return fn;
}

// d, a[, b[, c]] all of type t.
void same_typed(D& x, ExecFn fn, PtxType t, int sources, uint16_t flops = 0) {
  if (!fn) x.unsupported(std::string("type .") + ptx_type_name(t) + " is not defined for '" + x.opcode().base + "'");
  static const char* kShapes[] = {"d", "d, a", "d, a, b", "d, a, b, c"};
  x.expect_operands(static_cast<size_t>(sources) + 1, kShapes[sources]);
  DecodedInstruction& d = x.d();
  d.exec = fn;
  d.n_dst = 1;
  d.dst[0] = x.write(x.operand(0));
  d.n_src = static_cast<uint8_t>(sources);
  for (int s = 0; s < sources; ++s) d.src[s] = x.read(x.operand(static_cast<size_t>(s) + 1), t);
  x.classify_arithmetic(t);
  if (is_float_or_half(t)) x.info().flops_per_lane = static_cast<uint16_t>(flops * (is_packed(t) ? 2 : 1));
}

// add/sub/mul/div/min/max/fma...: one FloatOp for float types, one IntOp for integers.
void float_or_int(D& x, FloatOp fop, IntOp iop, int sources, uint16_t flops, bool int_allowed = true) {
  const PtxType t = x.one_type();
  if (is_float_or_half(t)) {
    same_typed(x, float_handler(x, fop, t), t, sources, flops);
  } else {
    if (!int_allowed) x.unsupported("integer types are not defined for '" + x.opcode().base + "'");
    same_typed(x, integer_handler(x, iop, t), t, sources);
  }
}

PtxType wide_type(PtxType t) {
  switch (t) {
    case PtxType::u16: return PtxType::u32;
    case PtxType::s16: return PtxType::s32;
    case PtxType::u32: return PtxType::u64;
    case PtxType::s32: return PtxType::s64;
    default: return PtxType::none;
  }
}

void add_sub(D& x, FloatOp fop, IntOp iop) {
  x.allow_mods({"rn", "rz", "rm", "rp", "ftz", "sat"});
  const PtxType t = x.one_type();
  if (!is_float_or_half(t) && x.opcode().has("sat")) {
    same_typed(x, integer_handler(x, iop == IntOp::add ? IntOp::add_sat : IntOp::sub_sat, t), t, 2);
    return;
  }
  float_or_int(x, fop, iop, 2, 1);
}
void decode_add(D& x) { add_sub(x, FloatOp::add, IntOp::add); }
void decode_sub(D& x) { add_sub(x, FloatOp::sub, IntOp::sub); }

void decode_mul(D& x) {
  x.allow_mods({"lo", "hi", "wide", "rn", "rz", "rm", "rp", "ftz", "sat"});
  const PtxType t = x.one_type();
  if (is_float_or_half(t)) return float_or_int(x, FloatOp::mul, IntOp::mul_lo, 2, 1);
  if (x.opcode().has("wide")) {
    const PtxType w = wide_type(t);
    if (w == PtxType::none) x.unsupported("mul.wide is defined for 16- and 32-bit types");
    same_typed(x, integer_handler(x, IntOp::mul_wide, t), t, 2);
    return;
  }
  same_typed(x, integer_handler(x, x.opcode().has("hi") ? IntOp::mul_hi : IntOp::mul_lo, t), t, 2);
}

void decode_mad(D& x) {
  x.allow_mods({"lo", "hi", "wide", "rn", "rz", "rm", "rp", "ftz", "sat"});
  const PtxType t = x.one_type();
  if (is_float_or_half(t)) return float_or_int(x, FloatOp::fma, IntOp::mad_lo, 3, 2);  // mad.rn.f32 is fma
  if (x.opcode().has("wide")) {
    const PtxType w = wide_type(t);
    if (w == PtxType::none) x.unsupported("mad.wide is defined for 16- and 32-bit types");
    same_typed(x, integer_handler(x, IntOp::mad_wide, t), t, 3);
    x.d().src[2] = x.read(x.operand(3), w);  // the addend is as wide as the result
    return;
  }
  if (x.opcode().has("sat")) x.unsupported("mad.hi.sat is not modelled");
  same_typed(x, integer_handler(x, x.opcode().has("hi") ? IntOp::mad_hi : IntOp::mad_lo, t), t, 3);
}

void decode_mul24(D& x) {
  x.allow_mods({"lo", "hi"});
  const PtxType t = x.one_type();
  same_typed(x, integer_handler(x, x.opcode().has("hi") ? IntOp::mul24_hi : IntOp::mul24_lo, t), t, 2);
}
void decode_mad24(D& x) {
  x.allow_mods({"lo"});
  const PtxType t = x.one_type();
  same_typed(x, integer_handler(x, IntOp::mad24_lo, t), t, 3);
}

void decode_div(D& x) {
  x.allow_mods({"rn", "rz", "rm", "rp", "ftz", "approx", "full"});
  float_or_int(x, FloatOp::div, IntOp::div, 2, 0);
}
void decode_rem(D& x) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  if (is_float_or_half(t)) x.unsupported("rem is defined for integer types");
  same_typed(x, integer_handler(x, IntOp::rem, t), t, 2);
}

void min_max(D& x, bool is_min) {
  x.allow_mods({"ftz", "NaN"});
  const PtxType t = x.one_type();
  if (is_float_or_half(t)) {
    const bool nan = x.opcode().has("NaN");
    const FloatOp op = is_min ? (nan ? FloatOp::min_nan : FloatOp::min) : (nan ? FloatOp::max_nan : FloatOp::max);
    same_typed(x, nearest_float_handler(x, op, t, false), t, 2);
    return;
  }
  same_typed(x, integer_handler(x, is_min ? IntOp::min : IntOp::max, t), t, 2);
}
void decode_min(D& x) { min_max(x, true); }
void decode_max(D& x) { min_max(x, false); }

void unary_float_or_int(D& x, FloatOp fop, IntOp iop) {
  x.allow_mods({"ftz"});
  const PtxType t = x.one_type();
  if (is_float_or_half(t)) same_typed(x, nearest_float_handler(x, fop, t, false), t, 1);
  else same_typed(x, integer_handler(x, iop, t), t, 1);
}
void decode_abs(D& x) { unary_float_or_int(x, FloatOp::abs, IntOp::abs); }
void decode_neg(D& x) { unary_float_or_int(x, FloatOp::neg, IntOp::neg); }

// Logic on .pred works on the 0/1 values predicates hold.
PtxType logic_type(D& x) {
  const PtxType t = x.one_type();
  return t == PtxType::pred ? PtxType::b32 : t;
}
void logic(D& x, IntOp op) {
  x.allow_mods({});
  const PtxType t = logic_type(x);
  same_typed(x, integer_handler(x, op, t), t, 2);
}
void decode_and(D& x) { logic(x, IntOp::and_); }
void decode_or(D& x) { logic(x, IntOp::or_); }
void decode_xor(D& x) { logic(x, IntOp::xor_); }
void decode_not(D& x) {
  x.allow_mods({});
  const bool pred = x.one_type() == PtxType::pred;
  const PtxType t = logic_type(x);
  same_typed(x, integer_handler(x, pred ? IntOp::cnot : IntOp::not_, t), t, 1);
}
void decode_cnot(D& x) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  same_typed(x, integer_handler(x, IntOp::cnot, t), t, 1);
}

void shift(D& x, IntOp op) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  same_typed(x, integer_handler(x, op, t), t, 2);
  x.d().src[1] = x.read(x.operand(2), PtxType::u32);  // the shift amount is always .u32
}
void decode_shl(D& x) { shift(x, IntOp::shl); }
void decode_shr(D& x) { shift(x, IntOp::shr); }

void count(D& x, IntOp op) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  same_typed(x, integer_handler(x, op, t), t, 1);
}
void decode_popc(D& x) { count(x, IntOp::popc); }
void decode_clz(D& x) { count(x, IntOp::clz); }
void decode_brev(D& x) { count(x, IntOp::brev); }
void decode_bfind(D& x) { count(x, IntOp::bfind); }

void decode_bfe(D& x) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  same_typed(x, integer_handler(x, IntOp::bfe, t), t, 3);
  x.d().src[1] = x.read(x.operand(2), PtxType::u32);
  x.d().src[2] = x.read(x.operand(3), PtxType::u32);
}
void decode_bfi(D& x) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  const ExecFn fn = integer_handler(x, IntOp::bfi, t);
  if (!fn) x.unsupported("bfi is defined for .b32 and .b64");
  x.expect_operands(5, "d, a, b, pos, len");
  DecodedInstruction& d = x.d();
  d.exec = fn;
  d.n_dst = 1;
  d.dst[0] = x.write(x.operand(0));
  d.n_src = 4;
  d.src[0] = x.read(x.operand(1), t);
  d.src[1] = x.read(x.operand(2), t);
  d.src[2] = x.read(x.operand(3), PtxType::u32);
  d.src[3] = x.read(x.operand(4), PtxType::u32);
  x.classify_arithmetic(t);
}
void decode_prmt(D& x) {
  x.allow_mods({});  // the .f4e/.b4e/.rc8/... modes are not modelled
  const PtxType t = x.one_type();
  same_typed(x, integer_handler(x, IntOp::prmt, t), t, 3);
}
void decode_lop3(D& x) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  x.expect_operands(5, "d, a, b, c, immLut");
  const PtxOperand& lut = x.operand(4);
  if (lut.kind != PtxOperand::Kind::integer) x.fail("an immediate look-up table as the last operand");
  DecodedInstruction& d = x.d();
  d.exec = integer_handler(x, IntOp::lop3, t);
  if (!d.exec) x.unsupported("lop3 is defined for .b32");
  d.aux = lut.bits & 0xff;
  d.n_dst = 1;
  d.dst[0] = x.write(x.operand(0));
  d.n_src = 3;
  for (int s = 0; s < 3; ++s) d.src[s] = x.read(x.operand(static_cast<size_t>(s) + 1), t);
  x.classify_arithmetic(t);
}
void decode_shf(D& x) {
  x.allow_mods({"l", "r", "wrap", "clamp"});
  const bool left = x.opcode().has("l"), wrap = x.opcode().has("wrap");
  if (left == x.opcode().has("r") || wrap == x.opcode().has("clamp")) x.fail("shf.{l,r}.{wrap,clamp}.b32");
  const IntOp op = left ? (wrap ? IntOp::shf_l_wrap : IntOp::shf_l_clamp) : (wrap ? IntOp::shf_r_wrap : IntOp::shf_r_clamp);
  const PtxType t = x.one_type();
  same_typed(x, integer_handler(x, op, t), t, 3);
}
void decode_sad(D& x) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  same_typed(x, integer_handler(x, IntOp::sad, t), t, 3);
}

void decode_fma(D& x) {
  x.allow_mods({"rn", "rz", "rm", "rp", "ftz", "sat"});
  const PtxType t = x.one_type();
  if (!is_float_or_half(t)) x.unsupported("fma is defined for float types");
  if (!x.opcode().has("rn") && !directed_mode(x) && !is_half_type(t)) x.fail("a rounding mode (fma.rn.f32)");
  float_or_int(x, FloatOp::fma, IntOp::mad_lo, 3, 2, false);
}

// Special-function-unit operations (.approx results are computed exactly: closer than the
// hardware's approximation, which no kernel should depend on).
void special_function(D& x, FloatOp op) {
  x.allow_mods({"approx", "rn", "rz", "rm", "rp", "ftz", "full"});
  const PtxType t = x.one_type();
  if (!is_float_or_half(t)) x.unsupported(x.opcode().base + " is defined for float types");
  same_typed(x, float_handler(x, op, t), t, 1);
  x.classify(Unit::sfu, EnergyClass::sfu_op);
}
void decode_rcp(D& x) { special_function(x, FloatOp::rcp); }
void decode_sqrt(D& x) { special_function(x, FloatOp::sqrt); }
void decode_rsqrt(D& x) { special_function(x, FloatOp::rsqrt); }
void decode_sin(D& x) { special_function(x, FloatOp::sin); }
void decode_cos(D& x) { special_function(x, FloatOp::cos); }
void decode_ex2(D& x) { special_function(x, FloatOp::ex2); }
void decode_lg2(D& x) { special_function(x, FloatOp::lg2); }
void decode_tanh(D& x) { special_function(x, FloatOp::tanh); }

void decode_copysign(D& x) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  same_typed(x, nearest_float_handler(x, FloatOp::copysign, t, false), t, 2);
}

}  // namespace

const std::map<std::string, OpcodeDecoder, std::less<>>& arithmetic_decoders() {
  static const std::map<std::string, OpcodeDecoder, std::less<>> table{
      {"add", decode_add},   {"sub", decode_sub},     {"mul", decode_mul},     {"mad", decode_mad},
      {"mul24", decode_mul24}, {"mad24", decode_mad24}, {"div", decode_div},   {"rem", decode_rem},
      {"min", decode_min},   {"max", decode_max},     {"abs", decode_abs},     {"neg", decode_neg},
      {"and", decode_and},   {"or", decode_or},       {"xor", decode_xor},     {"not", decode_not},
      {"cnot", decode_cnot}, {"shl", decode_shl},     {"shr", decode_shr},     {"popc", decode_popc},
      {"clz", decode_clz},   {"brev", decode_brev},   {"bfind", decode_bfind}, {"bfe", decode_bfe},
      {"bfi", decode_bfi},   {"prmt", decode_prmt},   {"lop3", decode_lop3},   {"shf", decode_shf},
      {"sad", decode_sad},   {"fma", decode_fma},     {"rcp", decode_rcp},     {"sqrt", decode_sqrt},
      {"rsqrt", decode_rsqrt}, {"sin", decode_sin},   {"cos", decode_cos},     {"ex2", decode_ex2},
      {"lg2", decode_lg2},   {"tanh", decode_tanh},   {"copysign", decode_copysign},
  };
  return table;
}

}  // namespace loom::simt
