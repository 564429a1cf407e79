// setp and testp: comparisons into predicates (stored as 0/1). Ordered float comparisons
// are false when either side is NaN; the u-suffixed ones are true then.
#include <cmath>

#include "arch/simt/ptx/exec_context.h"
#include "arch/simt/ptx/exec_handlers.h"

namespace loom::simt {

namespace {

template <class T> bool unordered(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(a) || std::isnan(b);
  else return false;
}
template <class T> struct Eq { static bool f(T a, T b) { return a == b; } };
template <class T> struct Ne { static bool f(T a, T b) { return a != b && !unordered(a, b); } };
template <class T> struct Lt { static bool f(T a, T b) { return a < b; } };
template <class T> struct Le { static bool f(T a, T b) { return a <= b; } };
template <class T> struct Gt { static bool f(T a, T b) { return a > b; } };
template <class T> struct Ge { static bool f(T a, T b) { return a >= b; } };
template <class T> struct Equ { static bool f(T a, T b) { return unordered(a, b) || a == b; } };
template <class T> struct Neu { static bool f(T a, T b) { return unordered(a, b) || a != b; } };
template <class T> struct Ltu { static bool f(T a, T b) { return unordered(a, b) || a < b; } };
template <class T> struct Leu { static bool f(T a, T b) { return unordered(a, b) || a <= b; } };
template <class T> struct Gtu { static bool f(T a, T b) { return unordered(a, b) || a > b; } };
template <class T> struct Geu { static bool f(T a, T b) { return unordered(a, b) || a >= b; } };
template <class T> struct Num { static bool f(T a, T b) { return !unordered(a, b); } };
template <class T> struct Nan { static bool f(T a, T b) { return unordered(a, b); } };

inline bool combine(uint8_t op, bool r, bool c) {
  switch (static_cast<BoolOp>(op)) {
    case BoolOp::and_: return r && c;
    case BoolOp::or_: return r || c;
    case BoolOp::xor_: return r != c;
    default: return r;
  }
}

// L: the register lanes, uint64_t (wide) or uint32_t (the narrow twin, register_slots.h);
// the predicates are narrow in the twin too.
template <class Tag, class Cmp, class L = uint64_t>
void setp(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  using R = Repr<Tag>;
  L* d = c.dst_as<L>(i.dst[0]);
  const L *a = c.src_as<L>(i.src[0]), *b = c.src_as<L>(i.src[1]);
  if (i.op == 0 && !(i.flags & DecodedInstruction::kFlagSecondDst)) {
    for_each_lane(mask, [&](int l) { d[l] = Cmp::f(R::load(a[l]), R::load(b[l])) ? 1 : 0; });
    return;
  }
  const L* p = i.op != 0 ? c.src_as<L>(i.src[2]) : nullptr;
  const bool negate_c = i.flags & DecodedInstruction::kFlagNegateC;
  L* d2 = (i.flags & DecodedInstruction::kFlagSecondDst) ? c.dst_as<L>(i.dst[1]) : nullptr;
  for_each_lane(mask, [&](int l) {
    const bool r = Cmp::f(R::load(a[l]), R::load(b[l]));
    const bool cv = p ? ((p[l] & 1) != 0) != negate_c : false;
    d[l] = combine(i.op, r, cv) ? 1 : 0;
    if (d2) d2[l] = combine(i.op, !r, cv) ? 1 : 0;
  });
}

// The narrow twin (L = uint32_t) exists for operands of at most 32 bits.
template <template <class> class Cmp, class L = uint64_t>
ExecFn pick(PtxType t) {
  constexpr bool wide = sizeof(L) == 8;
  switch (t) {
    case PtxType::b16: case PtxType::u16: return &setp<uint16_t, Cmp<uint16_t>, L>;
    case PtxType::s16: return &setp<int16_t, Cmp<int16_t>, L>;
    case PtxType::b32: case PtxType::u32: return &setp<uint32_t, Cmp<uint32_t>, L>;
    case PtxType::s32: return &setp<int32_t, Cmp<int32_t>, L>;
    case PtxType::b64: case PtxType::u64: return wide ? &setp<uint64_t, Cmp<uint64_t>, L> : nullptr;
    case PtxType::s64: return wide ? &setp<int64_t, Cmp<int64_t>, L> : nullptr;
    case PtxType::f32: return &setp<float, Cmp<float>, L>;
    case PtxType::f64: return wide ? &setp<double, Cmp<double>, L> : nullptr;
    case PtxType::f16: return &setp<F16, Cmp<float>, L>;
    case PtxType::bf16: return &setp<BF16, Cmp<float>, L>;
    default: return nullptr;
  }
}
PtxType as_unsigned(PtxType t) {
  switch (t) {
    case PtxType::s16: case PtxType::b16: return PtxType::u16;
    case PtxType::s32: case PtxType::b32: return PtxType::u32;
    case PtxType::s64: case PtxType::b64: return PtxType::u64;
    default: return t;
  }
}

template <class T, TestOp Test>
void testp(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t* a = c.src(i.src[0]);
  for_each_lane(mask, [&](int l) {
    const T v = Repr<T>::load(a[l]);
    bool r = false;
    switch (Test) {
      case TestOp::finite: r = std::isfinite(v); break;
      case TestOp::infinite: r = std::isinf(v); break;
      case TestOp::number: r = !std::isnan(v); break;
      case TestOp::notanumber: r = std::isnan(v); break;
      case TestOp::normal: r = std::isnormal(v); break;
      case TestOp::subnormal: r = std::fpclassify(v) == FP_SUBNORMAL; break;
    }
    d[l] = r ? 1 : 0;
  });
}
template <class T>
ExecFn testp_for(TestOp t) {
  switch (t) {
    case TestOp::finite: return &testp<T, TestOp::finite>;
    case TestOp::infinite: return &testp<T, TestOp::infinite>;
    case TestOp::number: return &testp<T, TestOp::number>;
    case TestOp::notanumber: return &testp<T, TestOp::notanumber>;
    case TestOp::normal: return &testp<T, TestOp::normal>;
    case TestOp::subnormal: return &testp<T, TestOp::subnormal>;
  }
  return nullptr;
}

template <class L>
ExecFn select_setp_lanes(CompareOp cmp, PtxType type) {
  const bool is_float = is_float_type(type) || is_half_type(type);
  const bool is_bits = type_class(type) == TypeClass::bits;
  switch (cmp) {
    case CompareOp::eq: return pick<Eq, L>(type);
    case CompareOp::ne: return pick<Ne, L>(type);
    case CompareOp::lt: return is_bits ? nullptr : pick<Lt, L>(type);
    case CompareOp::le: return is_bits ? nullptr : pick<Le, L>(type);
    case CompareOp::gt: return is_bits ? nullptr : pick<Gt, L>(type);
    case CompareOp::ge: return is_bits ? nullptr : pick<Ge, L>(type);
    case CompareOp::lo: return is_float ? nullptr : pick<Lt, L>(as_unsigned(type));
    case CompareOp::ls: return is_float ? nullptr : pick<Le, L>(as_unsigned(type));
    case CompareOp::hi: return is_float ? nullptr : pick<Gt, L>(as_unsigned(type));
    case CompareOp::hs: return is_float ? nullptr : pick<Ge, L>(as_unsigned(type));
    case CompareOp::equ: return is_float ? pick<Equ, L>(type) : nullptr;
    case CompareOp::neu: return is_float ? pick<Neu, L>(type) : nullptr;
    case CompareOp::ltu: return is_float ? pick<Ltu, L>(type) : nullptr;
    case CompareOp::leu: return is_float ? pick<Leu, L>(type) : nullptr;
    case CompareOp::gtu: return is_float ? pick<Gtu, L>(type) : nullptr;
    case CompareOp::geu: return is_float ? pick<Geu, L>(type) : nullptr;
    case CompareOp::num: return is_float ? pick<Num, L>(type) : nullptr;
    case CompareOp::nan: return is_float ? pick<Nan, L>(type) : nullptr;
  }
  return nullptr;
}

}  // namespace

ExecFn select_setp(CompareOp cmp, PtxType type) { return select_setp_lanes<uint64_t>(cmp, type); }
ExecFn select_setp_narrow(CompareOp cmp, PtxType type) { return select_setp_lanes<uint32_t>(cmp, type); }

ExecFn select_testp(TestOp test, PtxType type) {
  if (type == PtxType::f32) return testp_for<float>(test);
  if (type == PtxType::f64) return testp_for<double>(test);
  return nullptr;
}

}  // namespace loom::simt
