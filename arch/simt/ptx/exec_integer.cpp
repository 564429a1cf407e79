// Integer and bitwise handlers. Arithmetic wraps (done in the unsigned type, so signed
// overflow is defined); division by zero gives all ones and INT_MIN / -1 gives INT_MIN, as
// the hardware does, rather than trapping the simulator.
#include <algorithm>
#include <bit>
#include <limits>

#include "arch/simt/ptx/exec_context.h"
#include "arch/simt/ptx/exec_handlers.h"

namespace loom::simt {

namespace {

template <class T> using U = std::make_unsigned_t<T>;
// Products of 16-bit values promote to int and could overflow it: multiply as uint32_t.
template <class T> using Arith = std::conditional_t<(sizeof(T) < 4), uint32_t, U<T>>;
template <class T> struct Wider;
template <> struct Wider<uint16_t> { using type = uint32_t; };
template <> struct Wider<int16_t> { using type = int32_t; };
template <> struct Wider<uint32_t> { using type = uint64_t; };
template <> struct Wider<int32_t> { using type = int64_t; };
template <> struct Wider<uint64_t> { using type = unsigned __int128; };
template <> struct Wider<int64_t> { using type = __int128; };
template <class T> using W = typename Wider<T>::type;
template <class T> constexpr int kBits = 8 * sizeof(T);

template <class T> T mul_hi(T a, T b) { return static_cast<T>((static_cast<W<T>>(a) * static_cast<W<T>>(b)) >> kBits<T>); }

// ---- lane kernels: Op names its operand and result types and a static f ----------------
// L: the register lanes, uint64_t (wide) or uint32_t (the narrow twin, register_slots.h).
template <class Op, class L = uint64_t>
void run1(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  L* d = c.dst_as<L>(i.dst[0]);
  const L* a = c.src_as<L>(i.src[0]);
  for_each_lane(mask, [&](int l) { d[l] = static_cast<L>(Repr<typename Op::R>::store(Op::f(Repr<typename Op::A>::load(a[l])))); });
}
// Ld: the result's lanes where they differ from the sources' (mul.wide's twin: narrow
// sources, a wide result).
template <class Op, class L = uint64_t, class Ld = L>
void run2(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  Ld* d = c.dst_as<Ld>(i.dst[0]);
  const L *a = c.src_as<L>(i.src[0]), *b = c.src_as<L>(i.src[1]);
  for_each_lane(mask, [&](int l) {
    d[l] = static_cast<Ld>(
        Repr<typename Op::R>::store(Op::f(Repr<typename Op::A>::load(a[l]), Repr<typename Op::B>::load(b[l]))));
  });
}
// A shift by an immediate (address arithmetic's usual case) shifts every lane by one count:
// a loop the compiler vectorises, where per-lane counts (run2's loop) are a scalar shift and
// a range check per lane on baseline x86-64.
template <class Op, class L = uint64_t>
void run_shift(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  if (!(i.src[1] & kConstantFlag)) return run2<Op, L>(c, i, mask);
  L* d = c.dst_as<L>(i.dst[0]);
  const L* a = c.src_as<L>(i.src[0]);
  const auto n = Repr<typename Op::B>::load(c.src_as<L>(i.src[1])[0]);
  for_each_lane(mask, [&](int l) {
    d[l] = static_cast<L>(Repr<typename Op::R>::store(Op::f(Repr<typename Op::A>::load(a[l]), n)));
  });
}
template <class Op, class L = uint64_t>
void run3(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  L* d = c.dst_as<L>(i.dst[0]);
  const L *a = c.src_as<L>(i.src[0]), *b = c.src_as<L>(i.src[1]), *cc = c.src_as<L>(i.src[2]);
  for_each_lane(mask, [&](int l) {
    d[l] = static_cast<L>(Repr<typename Op::R>::store(Op::f(Repr<typename Op::A>::load(a[l]), Repr<typename Op::B>::load(b[l]),
                                                            Repr<typename Op::C>::load(cc[l]))));
  });
}

template <class T> struct Same2 { using R = T; using A = T; using B = T; };
template <class T> struct Same3 { using R = T; using A = T; using B = T; using C = T; };
template <class T> struct Shift { using R = T; using A = T; using B = uint32_t; };

template <class T> struct Add : Same2<T> { static T f(T a, T b) { return static_cast<T>(U<T>(a) + U<T>(b)); } };
template <class T> struct Sub : Same2<T> { static T f(T a, T b) { return static_cast<T>(U<T>(a) - U<T>(b)); } };
template <class T> struct MulLo : Same2<T> { static T f(T a, T b) { return static_cast<T>(Arith<T>(U<T>(a)) * Arith<T>(U<T>(b))); } };
template <class T> struct MulHi : Same2<T> { static T f(T a, T b) { return mul_hi(a, b); } };
template <class T> struct MulWide {
  using R = W<T>; using A = T; using B = T;
  static R f(T a, T b) { return static_cast<R>(static_cast<R>(a) * static_cast<R>(b)); }
};
// mul24 multiplies the low 24 bits (sign-extended for s32) into a 48-bit product.
template <class T> int64_t low24(T a) {
  if constexpr (std::is_signed_v<T>) return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(a) << 8) >> 8);
  else return static_cast<int64_t>(a & 0xffffffu);
}
template <class T> struct Mul24Lo : Same2<T> { static T f(T a, T b) { return static_cast<T>(low24(a) * low24(b)); } };
template <class T> struct Mul24Hi : Same2<T> { static T f(T a, T b) { return static_cast<T>((low24(a) * low24(b)) >> 16); } };
template <class T> struct Mad24Lo : Same3<T> { static T f(T a, T b, T c) { return static_cast<T>(U<T>(low24(a) * low24(b)) + U<T>(c)); } };
template <class T> struct Min : Same2<T> { static T f(T a, T b) { return std::min(a, b); } };
template <class T> struct Max : Same2<T> { static T f(T a, T b) { return std::max(a, b); } };
template <class T> struct Div : Same2<T> {
  static T f(T a, T b) {
    if (b == 0) return static_cast<T>(~U<T>(0));
    if constexpr (std::is_signed_v<T>)
      if (a == std::numeric_limits<T>::min() && b == -1) return a;
    return static_cast<T>(a / b);
  }
};
template <class T> struct Rem : Same2<T> {
  static T f(T a, T b) {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>)
      if (b == -1) return 0;
    return static_cast<T>(a % b);
  }
};
template <class T> struct And : Same2<T> { static T f(T a, T b) { return a & b; } };
template <class T> struct Or : Same2<T> { static T f(T a, T b) { return a | b; } };
template <class T> struct Xor : Same2<T> { static T f(T a, T b) { return a ^ b; } };
template <class T> struct Shl : Shift<T> {
  static T f(T a, uint32_t n) { return n >= kBits<T> ? T(0) : static_cast<T>(U<T>(a) << n); }
};
template <class T> struct Shr : Shift<T> {
  static T f(T a, uint32_t n) {
    if constexpr (std::is_signed_v<T>) return static_cast<T>(a >> std::min<uint32_t>(n, kBits<T> - 1));
    else return n >= kBits<T> ? T(0) : static_cast<T>(a >> n);
  }
};
template <class T> struct AddSat : Same2<T> {
  static T f(T a, T b) { return static_cast<T>(std::clamp<int64_t>(int64_t{a} + b, std::numeric_limits<T>::min(), std::numeric_limits<T>::max())); }
};
template <class T> struct SubSat : Same2<T> {
  static T f(T a, T b) { return static_cast<T>(std::clamp<int64_t>(int64_t{a} - b, std::numeric_limits<T>::min(), std::numeric_limits<T>::max())); }
};

template <class T> struct Unary { using R = T; using A = T; };
template <class T> struct CountOp { using R = uint32_t; using A = T; };
template <class T> struct Neg : Unary<T> { static T f(T a) { return static_cast<T>(U<T>(0) - U<T>(a)); } };
template <class T> struct Abs : Unary<T> { static T f(T a) { return a < 0 ? static_cast<T>(U<T>(0) - U<T>(a)) : a; } };
template <class T> struct Not : Unary<T> { static T f(T a) { return static_cast<T>(~a); } };
template <class T> struct Cnot : Unary<T> { static T f(T a) { return a == 0 ? T(1) : T(0); } };
template <class T> struct Popc : CountOp<T> { static uint32_t f(T a) { return static_cast<uint32_t>(std::popcount(U<T>(a))); } };
template <class T> struct Clz : CountOp<T> { static uint32_t f(T a) { return static_cast<uint32_t>(std::countl_zero(U<T>(a))); } };
template <class T> struct Brev : Unary<T> {
  static T f(T a) {
    U<T> v = U<T>(a), r = 0;
    for (int b = 0; b < kBits<T>; ++b) r = static_cast<U<T>>(r | (((v >> b) & 1u) << (kBits<T> - 1 - b)));
    return static_cast<T>(r);
  }
};
// bfind: the bit position of the most significant non-sign bit; 0xffffffff when none.
template <class T> struct Bfind : CountOp<T> {
  static uint32_t f(T a) {
    U<T> v = U<T>(a);
    if constexpr (std::is_signed_v<T>)
      if (a < 0) v = static_cast<U<T>>(~v);
    return v == 0 ? 0xffffffffu : static_cast<uint32_t>(kBits<T> - 1 - std::countl_zero(v));
  }
};

template <class T> struct MadLo : Same3<T> {
  static T f(T a, T b, T c) { return static_cast<T>(Arith<T>(U<T>(a)) * Arith<T>(U<T>(b)) + Arith<T>(U<T>(c))); }
};
template <class T> struct MadHi : Same3<T> { static T f(T a, T b, T c) { return static_cast<T>(U<T>(mul_hi(a, b)) + U<T>(c)); } };
template <class T> struct MadWide {
  using R = W<T>; using A = T; using B = T; using C = W<T>;
  static R f(T a, T b, R c) { return static_cast<R>(static_cast<U<R>>(static_cast<R>(a) * static_cast<R>(b)) + static_cast<U<R>>(c)); }
};
template <class T> struct Sad {
  using R = T; using A = T; using B = T; using C = T;
  static T f(T a, T b, T c) { return static_cast<T>(U<T>(c) + (a > b ? U<T>(a) - U<T>(b) : U<T>(b) - U<T>(a))); }
};
// bfe d, a, pos, len: the field a[pos .. pos+len-1], sign-extended for signed types.
template <class T> struct Bfe {
  using R = T; using A = T; using B = uint32_t; using C = uint32_t;
  static T f(T a, uint32_t b, uint32_t c) {
    const uint32_t pos = b & 0xff, len = c & 0xff;
    const U<T> v = U<T>(a);
    U<T> r = 0;
    bool sign = false;
    if constexpr (std::is_signed_v<T>) sign = len != 0 && ((v >> std::min<uint32_t>(pos + len - 1, kBits<T> - 1)) & 1u);
    for (uint32_t i = 0; i < static_cast<uint32_t>(kBits<T>); ++i) {
      const bool bit = i < len && pos + i < static_cast<uint32_t>(kBits<T>) ? ((v >> (pos + i)) & 1u) : (i >= len && sign);
      if (bit) r = static_cast<U<T>>(r | (U<T>(1) << i));
    }
    return static_cast<T>(r);
  }
};
// prmt.b32 default mode: byte i of d is byte (c >> 4i) & 7 of {b, a}, or its sign if bit 3 is set.
struct Prmt {
  using R = uint32_t; using A = uint32_t; using B = uint32_t; using C = uint32_t;
  static uint32_t f(uint32_t a, uint32_t b, uint32_t c) {
    const uint64_t bytes = (uint64_t{b} << 32) | a;
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
      const uint32_t sel = (c >> (4 * i)) & 0xf;
      uint32_t byte = static_cast<uint32_t>(bytes >> (8 * (sel & 7))) & 0xff;
      if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    return r;
  }
};
template <bool Left, bool Wrap> struct Shf {
  using R = uint32_t; using A = uint32_t; using B = uint32_t; using C = uint32_t;
  static uint32_t f(uint32_t a, uint32_t b, uint32_t c) {
    const uint32_t n = Wrap ? (c & 31) : std::min<uint32_t>(c, 32);
    const uint64_t both = (uint64_t{b} << 32) | a;
    return Left ? static_cast<uint32_t>((both << n) >> 32) : static_cast<uint32_t>(both >> n);
  }
};

void lop3(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t *a = c.src(i.src[0]), *b = c.src(i.src[1]), *cc = c.src(i.src[2]);
  const uint32_t lut = static_cast<uint32_t>(i.aux);
  for_each_lane(mask, [&](int l) {
    const uint32_t x = static_cast<uint32_t>(a[l]), y = static_cast<uint32_t>(b[l]), z = static_cast<uint32_t>(cc[l]);
    uint32_t r = 0;
    for (int t = 0; t < 8; ++t)
      if ((lut >> t) & 1) r |= ((t & 4) ? x : ~x) & ((t & 2) ? y : ~y) & ((t & 1) ? z : ~z);
    d[l] = r;
  });
}

// bfi d, a, b, pos, len: b with the field b[pos .. pos+len-1] replaced by a's low bits.
template <class T>
void bfi(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t *a = c.src(i.src[0]), *b = c.src(i.src[1]), *p = c.src(i.src[2]), *n = c.src(i.src[3]);
  for_each_lane(mask, [&](int l) {
    const uint32_t pos = p[l] & 0xff, len = n[l] & 0xff;
    T r = static_cast<T>(b[l]);
    for (uint32_t k = 0; k < len && pos + k < static_cast<uint32_t>(kBits<T>); ++k) {
      const T bit = T(1) << (pos + k);
      r = ((a[l] >> k) & 1) ? (r | bit) : (r & ~bit);
    }
    d[l] = r;
  });
}

// ---- selection ------------------------------------------------------------------------
enum class Width { w16, w32, w64 };
struct IntType {
  Width width;
  bool is_signed;
};
bool int_type(PtxType t, IntType& out) {
  switch (t) {
    case PtxType::b16: case PtxType::u16: out = {Width::w16, false}; return true;
    case PtxType::s16: out = {Width::w16, true}; return true;
    case PtxType::b32: case PtxType::u32: out = {Width::w32, false}; return true;
    case PtxType::s32: out = {Width::w32, true}; return true;
    case PtxType::b64: case PtxType::u64: out = {Width::w64, false}; return true;
    case PtxType::s64: out = {Width::w64, true}; return true;
    default: return false;
  }
}

// The narrow twins (L = uint32_t) exist where every operand and the result have at most 32
// bits (mul.wide's narrows its sources only): not for 64-bit types, mad.wide, lop3 or bfi.
template <class L>
constexpr bool kNarrow = sizeof(L) == 4;

// ByImmediate: a shift, whose count is often one immediate for every lane (run_shift).
template <template <class> class Op, int Arity, class L, bool ByImmediate = false>
ExecFn pick(IntType t) {
  auto one = [](auto tag) -> ExecFn {
    using T = decltype(tag);
    if constexpr (kNarrow<L> && sizeof(T) > 4) return nullptr;
    else if constexpr (Arity == 1) return &run1<Op<T>, L>;
    else if constexpr (Arity == 2 && ByImmediate) return &run_shift<Op<T>, L>;
    else if constexpr (Arity == 2) return &run2<Op<T>, L>;
    else return &run3<Op<T>, L>;
  };
  switch (t.width) {
    case Width::w16: return t.is_signed ? one(int16_t{}) : one(uint16_t{});
    case Width::w32: return t.is_signed ? one(int32_t{}) : one(uint32_t{});
    default: return t.is_signed ? one(int64_t{}) : one(uint64_t{});
  }
}
template <template <class> class Op, int Arity, class T, class L = uint64_t>
ExecFn run_for() {
  if constexpr (Arity == 2) return &run2<Op<T>, L>;
  else return &run3<Op<T>, L>;
}
// 16/32-bit only (results twice as wide). Sources: the sources' lanes (the result is wide).
template <template <class> class Op, int Arity, class Sources = uint64_t>
ExecFn pick_narrow(IntType t) {
  auto one = [](auto tag) -> ExecFn {
    using T = decltype(tag);
    if constexpr (Arity == 2) return &run2<Op<T>, Sources, uint64_t>;
    else return &run3<Op<T>>;
  };
  switch (t.width) {
    case Width::w16: return t.is_signed ? one(int16_t{}) : one(uint16_t{});
    case Width::w32: return t.is_signed ? one(int32_t{}) : one(uint32_t{});
    default: return nullptr;
  }
}
template <template <class> class Op, int Arity, class L>
ExecFn pick32(IntType t) {  // 32-bit only
  if (t.width != Width::w32) return nullptr;
  return t.is_signed ? run_for<Op, Arity, int32_t, L>() : run_for<Op, Arity, uint32_t, L>();
}

template <class L>
ExecFn select_integer_lanes(IntOp op, PtxType type) {
  IntType t{};
  if (!int_type(type, t)) return nullptr;
  const bool bits = type_class(type) == TypeClass::bits;
  switch (op) {
    case IntOp::add: return pick<Add, 2, L>(t);
    case IntOp::sub: return pick<Sub, 2, L>(t);
    case IntOp::mul_lo: return pick<MulLo, 2, L>(t);
    case IntOp::mul_hi: return pick<MulHi, 2, L>(t);
    case IntOp::mul_wide: return pick_narrow<MulWide, 2, L>(t);  // narrow: the sources only
    case IntOp::mul24_lo: return pick32<Mul24Lo, 2, L>(t);
    case IntOp::mul24_hi: return pick32<Mul24Hi, 2, L>(t);
    case IntOp::mad24_lo: return pick32<Mad24Lo, 3, L>(t);
    case IntOp::min: return bits ? nullptr : pick<Min, 2, L>(t);
    case IntOp::max: return bits ? nullptr : pick<Max, 2, L>(t);
    case IntOp::div: return bits ? nullptr : pick<Div, 2, L>(t);
    case IntOp::rem: return bits ? nullptr : pick<Rem, 2, L>(t);
    case IntOp::and_: return pick<And, 2, L>(t);
    case IntOp::or_: return pick<Or, 2, L>(t);
    case IntOp::xor_: return pick<Xor, 2, L>(t);
    case IntOp::shl: return pick<Shl, 2, L, true>(t);
    case IntOp::shr: return pick<Shr, 2, L, true>(t);
    case IntOp::add_sat: return type == PtxType::s32 ? &run2<AddSat<int32_t>, L> : nullptr;
    case IntOp::sub_sat: return type == PtxType::s32 ? &run2<SubSat<int32_t>, L> : nullptr;
    case IntOp::neg: return t.is_signed ? pick<Neg, 1, L>(t) : nullptr;
    case IntOp::abs: return t.is_signed ? pick<Abs, 1, L>(t) : nullptr;
    case IntOp::not_: return pick<Not, 1, L>(t);
    case IntOp::cnot: return pick<Cnot, 1, L>(t);
    case IntOp::popc: return t.width == Width::w16 ? nullptr : pick<Popc, 1, L>(t);
    case IntOp::clz: return t.width == Width::w16 ? nullptr : pick<Clz, 1, L>(t);
    case IntOp::brev: return t.width == Width::w16 ? nullptr : pick<Brev, 1, L>(t);
    case IntOp::bfind: return t.width == Width::w16 ? nullptr : pick<Bfind, 1, L>(t);
    case IntOp::mad_lo: return pick<MadLo, 3, L>(t);
    case IntOp::mad_hi: return pick<MadHi, 3, L>(t);
    case IntOp::mad_wide: return kNarrow<L> ? nullptr : pick_narrow<MadWide, 3>(t);
    case IntOp::sad: return pick<Sad, 3, L>(t);
    case IntOp::bfe: return t.width == Width::w16 ? nullptr : pick<Bfe, 3, L>(t);
    case IntOp::prmt: return type == PtxType::b32 ? &run3<Prmt, L> : nullptr;
    case IntOp::lop3: return type == PtxType::b32 && !kNarrow<L> ? &lop3 : nullptr;
    case IntOp::shf_l_wrap: return type == PtxType::b32 ? &run3<Shf<true, true>, L> : nullptr;
    case IntOp::shf_l_clamp: return type == PtxType::b32 ? &run3<Shf<true, false>, L> : nullptr;
    case IntOp::shf_r_wrap: return type == PtxType::b32 ? &run3<Shf<false, true>, L> : nullptr;
    case IntOp::shf_r_clamp: return type == PtxType::b32 ? &run3<Shf<false, false>, L> : nullptr;
    case IntOp::bfi:
      if (kNarrow<L>) return nullptr;
      if (type == PtxType::b32) return &bfi<uint32_t>;
      if (type == PtxType::b64) return &bfi<uint64_t>;
      return nullptr;
  }
  return nullptr;
}

}  // namespace

ExecFn select_integer_op(IntOp op, PtxType type) { return select_integer_lanes<uint64_t>(op, type); }
ExecFn select_integer_op_narrow(IntOp op, PtxType type) { return select_integer_lanes<uint32_t>(op, type); }

}  // namespace loom::simt
