// Decoders for comparisons, selection, moves and conversions (setp, selp, slct, testp, mov,
// cvt, cvta).
#include <optional>

#include "arch/simt/ptx/address_windows.h"
#include "arch/simt/ptx/decode_context.h"

namespace loom::simt {

namespace {

using D = DecodeContext;

std::optional<CompareOp> compare_op(std::string_view m) {
  static const std::pair<std::string_view, CompareOp> kOps[] = {
      {"eq", CompareOp::eq},   {"ne", CompareOp::ne},   {"lt", CompareOp::lt},   {"le", CompareOp::le},
      {"gt", CompareOp::gt},   {"ge", CompareOp::ge},   {"lo", CompareOp::lo},   {"ls", CompareOp::ls},
      {"hi", CompareOp::hi},   {"hs", CompareOp::hs},   {"equ", CompareOp::equ}, {"neu", CompareOp::neu},
      {"ltu", CompareOp::ltu}, {"leu", CompareOp::leu}, {"gtu", CompareOp::gtu}, {"geu", CompareOp::geu},
      {"num", CompareOp::num}, {"nan", CompareOp::nan}};
  for (const auto& [name, op] : kOps)
    if (m == name) return op;
  return std::nullopt;
}

std::optional<BoolOp> bool_op(std::string_view m) {
  if (m == "and") return BoolOp::and_;
  if (m == "or") return BoolOp::or_;
  if (m == "xor") return BoolOp::xor_;
  return std::nullopt;
}

// setp.cmp[.bool][.ftz].type p[|q], a, b[, {!}c]
void decode_setp(D& x) {
  const Opcode& op = x.opcode();
  std::optional<CompareOp> cmp;
  BoolOp combine = BoolOp::none;
  for (const std::string& m : op.mods) {
    if (const auto c = compare_op(m); c && !cmp) cmp = c;
    else if (const auto b = bool_op(m); b && combine == BoolOp::none) combine = *b;
    else if (m != "ftz") x.unsupported("modifier '." + m + "' is not modelled");
  }
  if (!cmp) x.fail("a comparison (setp.lt.s32, setp.geu.f32, ...)");
  const PtxType t = x.one_type();
  const ExecFn fn = select_setp(*cmp, t);
  x.d().narrow = select_setp_narrow(*cmp, t);
  if (!fn) x.unsupported(std::string("comparison on type .") + ptx_type_name(t) + " is not defined");
  x.expect_operands(combine == BoolOp::none ? 3 : 4, combine == BoolOp::none ? "p, a, b" : "p, a, b, c");
  DecodedInstruction& d = x.d();
  d.exec = fn;
  d.op = static_cast<uint8_t>(combine);
  x.write_destination_pair(x.operand(0));
  d.src[0] = x.read(x.operand(1), t);
  d.src[1] = x.read(x.operand(2), t);
  d.n_src = 2;
  if (combine != BoolOp::none) {
    bool negated = false;
    d.src[2] = x.read_predicate(x.operand(3), negated);
    if (negated) d.flags |= DecodedInstruction::kFlagNegateC;
    d.n_src = 3;
  }
  x.classify_arithmetic(t);
}

void decode_testp(D& x) {
  static const std::pair<std::string_view, TestOp> kTests[] = {
      {"finite", TestOp::finite}, {"infinite", TestOp::infinite}, {"number", TestOp::number},
      {"notanumber", TestOp::notanumber}, {"normal", TestOp::normal}, {"subnormal", TestOp::subnormal}};
  if (x.opcode().mods.size() != 1) x.fail("testp.{finite,infinite,number,notanumber,normal,subnormal}.type");
  std::optional<TestOp> test;
  for (const auto& [name, t] : kTests)
    if (x.opcode().mods[0] == name) test = t;
  if (!test) x.unsupported("test '." + x.opcode().mods[0] + "'");
  const PtxType t = x.one_type();
  const ExecFn fn = select_testp(*test, t);
  if (!fn) x.unsupported("testp is defined for .f32 and .f64");
  x.expect_operands(2, "p, a");
  DecodedInstruction& d = x.d();
  d.exec = fn;
  d.n_dst = 1;
  d.dst[0] = x.write(x.operand(0));
  d.n_src = 1;
  d.src[0] = x.read(x.operand(1), t);
  x.classify_arithmetic(t);
}

uint64_t width_of(PtxType t) { return t == PtxType::pred ? 1 : type_mask(t); }

void decode_selp(D& x) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  x.expect_operands(4, "d, a, b, p");
  DecodedInstruction& d = x.d();
  d.exec = select_value_handler();
  d.aux = width_of(t);
  d.n_dst = 1;
  d.dst[0] = x.write(x.operand(0));
  d.n_src = 3;
  d.src[0] = x.read(x.operand(1), t);
  d.src[1] = x.read(x.operand(2), t);
  bool negated = false;
  d.src[2] = x.read_predicate(x.operand(3), negated);
  if (negated) x.fail("a predicate without '!' (swap a and b instead)");
  x.classify(Unit::int_alu, EnergyClass::int_op);
}

void decode_slct(D& x) {
  x.allow_mods({"ftz"});
  if (x.opcode().types.size() != 2) x.fail("slct.dtype.{s32,f32}");
  const PtxType t = x.opcode().types[0], ct = x.opcode().types[1];
  const ExecFn fn = select_slct(ct);
  if (!fn) x.unsupported("slct's selector must be .s32 or .f32");
  x.expect_operands(4, "d, a, b, c");
  DecodedInstruction& d = x.d();
  d.exec = fn;
  d.aux = width_of(t);
  d.n_dst = 1;
  d.dst[0] = x.write(x.operand(0));
  d.n_src = 3;
  d.src[0] = x.read(x.operand(1), t);
  d.src[1] = x.read(x.operand(2), t);
  d.src[2] = x.read(x.operand(3), ct);
  x.classify(Unit::int_alu, EnergyClass::int_op);
}

// mov.type d, a | mov.type d, {a, b, ...} (pack) | mov.type {d0, d1, ...}, a (unpack)
void decode_mov(D& x) {
  x.allow_mods({});
  const PtxType t = x.one_type();
  x.expect_operands(2, "d, a");
  DecodedInstruction& d = x.d();
  x.classify(Unit::int_alu, EnergyClass::int_op);
  const PtxOperand &to = x.operand(0), &from = x.operand(1);
  if (from.kind == PtxOperand::Kind::vector || to.kind == PtxOperand::Kind::vector) {
    const bool packing = from.kind == PtxOperand::Kind::vector;
    const PtxOperand& parts = packing ? from : to;
    const size_t n = parts.elements.size();
    if ((n != 2 && n != 4) || type_bits(t) % n != 0) x.fail("a vector of 2 or 4 parts that together fill the ." + std::string(ptx_type_name(t)));
    const int bits = type_bits(t) / static_cast<int>(n);
    const PtxType part_type = bits == 8 ? PtxType::b8 : bits == 16 ? PtxType::b16 : PtxType::b32;
    d.offset = bits;
    if (packing) {
      if (to.kind == PtxOperand::Kind::vector) x.fail("a register destination when packing a vector");
      d.exec = pack_handler();
      d.n_dst = 1;
      d.dst[0] = x.write(to);
      d.n_src = static_cast<uint8_t>(n);
      for (size_t k = 0; k < n; ++k) d.src[k] = x.read(parts.elements[k], part_type);
    } else {
      d.exec = unpack_handler();
      d.n_src = 1;
      d.src[0] = x.read(from, t);
      d.n_dst = static_cast<uint8_t>(n);
      for (size_t k = 0; k < n; ++k) d.dst[k] = x.write(parts.elements[k]);
    }
    return;
  }
  d.n_dst = 1;
  d.dst[0] = x.write(to);
  d.aux = width_of(t);
  if (from.kind == PtxOperand::Kind::special && is_time_register(from.special)) {
    if (from.special == SpecialRegister::globaltimer) x.unsupported("%globaltimer is not modelled");
    d.exec = clock_handler();
    return;
  }
  d.exec = move_handler();
  if (t != PtxType::pred && type_bytes(t) <= 4) d.narrow = move_handler_narrow();
  d.n_src = 1;
  d.src[0] = x.read(from, t);
}

std::optional<CvtRounding> cvt_rounding(std::string_view m) {
  static const std::pair<std::string_view, CvtRounding> kModes[] = {
      {"rn", CvtRounding::rn},   {"rz", CvtRounding::rz},   {"rm", CvtRounding::rm},   {"rp", CvtRounding::rp},
      {"rni", CvtRounding::rni}, {"rzi", CvtRounding::rzi}, {"rmi", CvtRounding::rmi}, {"rpi", CvtRounding::rpi},
      {"rna", CvtRounding::rn}};  // rna (ties away, tf32 only) differs from rn only on exact ties
  for (const auto& [name, mode] : kModes)
    if (m == name) return mode;
  return std::nullopt;
}

// cvt[.rnd][.ftz][.sat].dtype.atype d, a
void decode_cvt(D& x) {
  const Opcode& op = x.opcode();
  CvtRounding rounding = CvtRounding::none;
  bool sat = false;
  for (const std::string& m : op.mods) {
    if (const auto r = cvt_rounding(m); r && rounding == CvtRounding::none) rounding = *r;
    else if (m == "sat") sat = true;
    else if (m != "ftz") x.unsupported("modifier '." + m + "' is not modelled");
  }
  if (op.types.size() != 2) x.fail("cvt with a destination and a source type (cvt.f32.s32)");
  const PtxType to = op.types[0], from = op.types[1];
  if ((to == PtxType::f16x2 || to == PtxType::bf16x2) && from == PtxType::f32 && !sat &&
      (rounding == CvtRounding::rn || rounding == CvtRounding::none)) {
    x.expect_operands(3, "d, a, b");
    DecodedInstruction& d = x.d();
    d.exec = select_convert_pair(to);
    d.n_dst = 1;
    d.dst[0] = x.write(x.operand(0));
    d.n_src = 2;
    d.src[0] = x.read(x.operand(1), from);
    d.src[1] = x.read(x.operand(2), from);
    x.classify(Unit::fp16, EnergyClass::fp16_op);
    return;
  }
  if (to == PtxType::f16x2 || to == PtxType::bf16x2 || from == PtxType::f16x2 || from == PtxType::bf16x2)
    x.unsupported("packed conversions other than cvt.rn.{f16x2,bf16x2}.f32 are not modelled");
  if (to == PtxType::pred || from == PtxType::pred || to == PtxType::b128 || from == PtxType::b128)
    x.fail("integer or float types");
  x.expect_operands(2, "d, a");
  DecodedInstruction& d = x.d();
  const PtxType reg = x.register_type(x.operand(0));
  d.aux = reg == PtxType::none ? type_mask(to) : type_mask(reg);
  d.exec = select_convert(to, from, rounding, sat, reg != PtxType::none && type_bits(reg) > type_bits(to));
  d.type = to;
  d.type2 = from;
  d.mode = static_cast<uint8_t>(rounding);
  if (sat) d.flags |= DecodedInstruction::kFlagSaturate;
  d.n_dst = 1;
  d.dst[0] = x.write(x.operand(0));
  d.n_src = 1;
  d.src[0] = x.read(x.operand(1), from);
  if (to == PtxType::f64 || from == PtxType::f64) x.classify(Unit::fp64, EnergyClass::fp64_op);
  else if (is_half_type(to) || is_half_type(from)) x.classify(Unit::fp16, EnergyClass::fp16_op);
  else if (is_float_type(to) || is_float_type(from)) x.classify(Unit::fp32, EnergyClass::fp32_op);
  else x.classify(Unit::int_alu, EnergyClass::int_op);
}

// cvta.space.size d, a (to generic) and cvta.to.space.size d, a (from generic).
void decode_cvta(D& x) {
  const Opcode& op = x.opcode();
  bool to_space = false;
  std::string space;
  for (const std::string& m : op.mods) {
    if (m == "to") to_space = true;
    else if (space.empty() && (m == "global" || m == "shared" || m == "local" || m == "const" || m == "param"))
      space = m;
    else x.unsupported("modifier '." + m + "' is not modelled");
  }
  if (space.empty()) x.fail("a state space (cvta.global, cvta.to.shared, ...)");
  int64_t window = 0;
  if (space == "shared") window = static_cast<int64_t>(kSharedWindow);
  else if (space == "local") window = static_cast<int64_t>(kLocalWindow);
  else if (space != "global") x.unsupported("generic addresses of ." + space + " space are not modelled");
  const PtxType t = x.one_type();
  if (t != PtxType::u32 && t != PtxType::u64) x.fail("cvta of size .u32 or .u64");
  x.expect_operands(2, "d, a");
  DecodedInstruction& d = x.d();
  d.exec = add_offset_handler();
  d.offset = to_space ? -window : window;
  d.aux = type_mask(t);
  d.n_dst = 1;
  d.dst[0] = x.write(x.operand(0));
  d.n_src = 1;
  d.src[0] = x.read(x.operand(1), t);
  x.classify(Unit::int_alu, EnergyClass::int_op);
}

}  // namespace

const std::map<std::string, OpcodeDecoder, std::less<>>& move_decoders() {
  static const std::map<std::string, OpcodeDecoder, std::less<>> table{
      {"setp", decode_setp}, {"testp", decode_testp}, {"selp", decode_selp}, {"slct", decode_slct},
      {"mov", decode_mov},   {"cvt", decode_cvt},     {"cvta", decode_cvta},
  };
  return table;
}

}  // namespace loom::simt
