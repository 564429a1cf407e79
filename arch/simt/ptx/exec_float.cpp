// Floating-point handlers for f32, f64 and the half formats. Halves compute in fp32 and
// round once to fp16/bf16: fp32 has at least 2p+2 bits for p-bit halves, so add, sub, mul
// and div rounded twice equal rounding once (Figueroa); fma, whose exact result can need
// more bits, goes through an exact double sum and round-to-odd instead.
#include <cmath>
#include <limits>

#include "arch/simt/ptx/exec_context.h"
#include "arch/simt/ptx/exec_handlers.h"
#include "sim/host_cpu.h"

namespace loom::simt {

namespace {

// PTX min/max: a NaN operand yields the other operand; -0 orders below +0.
template <class T> T ptx_min(T a, T b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class T> T ptx_max(T a, T b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

template <class T> struct FAdd { static T f(T a, T b) { return a + b; } };
template <class T> struct FSub { static T f(T a, T b) { return a - b; } };
template <class T> struct FMul { static T f(T a, T b) { return a * b; } };
template <class T> struct FDiv { static T f(T a, T b) { return a / b; } };
template <class T> struct FMin { static T f(T a, T b) { return ptx_min(a, b); } };
template <class T> struct FMax { static T f(T a, T b) { return ptx_max(a, b); } };
template <class T> struct FMinNaN {
  static T f(T a, T b) { return std::isnan(a) || std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : ptx_min(a, b); }
};
template <class T> struct FMaxNaN {
  static T f(T a, T b) { return std::isnan(a) || std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : ptx_max(a, b); }
};
template <class T> struct FCopysign { static T f(T a, T b) { return std::copysign(b, a); } };  // sign of a, value of b
template <class T> struct FFma { static T f(T a, T b, T c) { return std::fma(a, b, c); } };
template <class T> struct FNeg { static T f(T a) { return -a; } };
template <class T> struct FAbs { static T f(T a) { return std::fabs(a); } };
template <class T> struct FSqrt { static T f(T a) { return std::sqrt(a); } };
template <class T> struct FRcp { static T f(T a) { return T(1) / a; } };
template <class T> struct FRsqrt { static T f(T a) { return T(1) / std::sqrt(a); } };
template <class T> struct FSin { static T f(T a) { return std::sin(a); } };
template <class T> struct FCos { static T f(T a) { return std::cos(a); } };
template <class T> struct FEx2 { static T f(T a) { return std::exp2(a); } };
template <class T> struct FLg2 { static T f(T a) { return std::log2(a); } };
template <class T> struct FTanh { static T f(T a) { return std::tanh(a); } };

// The float nearest the exact value s + e that has an odd last bit when inexact
// (round-to-odd): rounding it to a format of at most 22 bits is then a single rounding.
float round_to_odd(double s, double e) {
  const float f = static_cast<float>(s);
  const double d = static_cast<double>(f) - s;
  const int above = d != 0 ? (d > 0 ? 1 : -1) : (e != 0 ? (e > 0 ? -1 : 1) : 0);  // sign of f - exact
  if (above == 0 || (std::bit_cast<uint32_t>(f) & 1u) || !std::isfinite(f)) return f;
  return std::nextafter(f, above > 0 ? -INFINITY : INFINITY);
}
// fma for fp16/bf16 inputs: the product is exact in double; TwoSum makes the sum exact.
struct NarrowFma {
  static float f(float a, float b, float c) {
    const double p = static_cast<double>(a) * static_cast<double>(b), q = c;
    const double s = p + q;
    const double bb = s - p;
    const double e = (p - (s - bb)) + (q - bb);
    return round_to_odd(s, e);
  }
};

template <class T> T saturate(T v) { return v > T(1) ? T(1) : (v > T(0) ? v : T(0)); }  // NaN -> 0

// L: the register lanes, uint64_t (wide) or uint32_t (the narrow twin, register_slots.h).
template <class Tag, class Op, int Arity, bool Sat, class L = uint64_t>
void frun(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  using R = Repr<Tag>;
  L* d = c.dst_as<L>(i.dst[0]);
  const L* a = c.src_as<L>(i.src[0]);
  const L* b = Arity >= 2 ? c.src_as<L>(i.src[1]) : nullptr;
  const L* cc = Arity >= 3 ? c.src_as<L>(i.src[2]) : nullptr;
  for_each_lane(mask, [&](int l) {
    typename R::compute v;
    if constexpr (Arity == 1) v = Op::f(R::load(a[l]));
    else if constexpr (Arity == 2) v = Op::f(R::load(a[l]), R::load(b[l]));
    else v = Op::f(R::load(a[l]), R::load(b[l]), R::load(cc[l]));
    if constexpr (Sat) v = saturate(v);
    d[l] = static_cast<L>(R::store(v));
  });
}

// Packed pairs (f16x2, bf16x2): the same operation on the low and the high half.
template <class Tag, class Op, int Arity, bool Sat, class L = uint64_t>
void frun_x2(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  using R = Repr<Tag>;
  L* d = c.dst_as<L>(i.dst[0]);
  const L* a = c.src_as<L>(i.src[0]);
  const L* b = Arity >= 2 ? c.src_as<L>(i.src[1]) : nullptr;
  const L* cc = Arity >= 3 ? c.src_as<L>(i.src[2]) : nullptr;
  for_each_lane(mask, [&](int l) {
    uint64_t out = 0;
    for (int h = 0; h < 2; ++h) {
      const int s = 16 * h;
      float v;
      if constexpr (Arity == 1) v = Op::f(R::load(a[l] >> s & 0xffff));
      else if constexpr (Arity == 2) v = Op::f(R::load(a[l] >> s & 0xffff), R::load(b[l] >> s & 0xffff));
      else v = Op::f(R::load(a[l] >> s & 0xffff), R::load(b[l] >> s & 0xffff), R::load(cc[l] >> s & 0xffff));
      if constexpr (Sat) v = saturate(v);
      out |= R::store(v) << s;
    }
    d[l] = static_cast<L>(out);
  });
}

// fma.rn.f32, the inner loop of every SIMT GEMM. Built for baseline x86-64, std::fma is a
// call into libm per lane; on a host with FMA the same correctly rounded result comes from
// one instruction, so this copy of the lane loop is compiled for it and chosen at run time.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LOOM_HOST_FMA_DISPATCH 1
template <class L>
__attribute__((target("fma"))) void ffma32_host_fma(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  L* d = c.dst_as<L>(i.dst[0]);
  const L *a = c.src_as<L>(i.src[0]), *b = c.src_as<L>(i.src[1]), *cc = c.src_as<L>(i.src[2]);
  for_each_lane(mask, [&](int l) {
    const float v = __builtin_fmaf(Repr<float>::load(a[l]), Repr<float>::load(b[l]), Repr<float>::load(cc[l]));
    d[l] = static_cast<L>(Repr<float>::store(v));
  });
}
#endif

template <class Tag, class Op, int Arity, bool Packed, class L>
ExecFn with_sat(bool sat) {
  if constexpr (Packed) return sat ? &frun_x2<Tag, Op, Arity, true, L> : &frun_x2<Tag, Op, Arity, false, L>;
  else return sat ? &frun<Tag, Op, Arity, true, L> : &frun<Tag, Op, Arity, false, L>;
}

// The narrow twin exists for every type but f64, whose values need 64-bit lanes.
template <class L, template <class> class Op, int Arity, class HalfOp = Op<float>>
ExecFn pick(PtxType t, bool sat) {
  switch (t) {
    case PtxType::f32: return with_sat<float, Op<float>, Arity, false, L>(sat);
    case PtxType::f64:
      if constexpr (sizeof(L) == 8) return with_sat<double, Op<double>, Arity, false, L>(sat);
      else return nullptr;
    case PtxType::f16: return with_sat<F16, HalfOp, Arity, false, L>(sat);
    case PtxType::bf16: return with_sat<BF16, HalfOp, Arity, false, L>(sat);
    case PtxType::f16x2: return with_sat<F16, HalfOp, Arity, true, L>(sat);
    case PtxType::bf16x2: return with_sat<BF16, HalfOp, Arity, true, L>(sat);
    default: return nullptr;
  }
}

template <class L>
ExecFn select_float_lanes(FloatOp op, PtxType type, bool sat) {
  switch (op) {
    case FloatOp::add: return pick<L, FAdd, 2>(type, sat);
    case FloatOp::sub: return pick<L, FSub, 2>(type, sat);
    case FloatOp::mul: return pick<L, FMul, 2>(type, sat);
    case FloatOp::div: return pick<L, FDiv, 2>(type, sat);
    case FloatOp::min: return pick<L, FMin, 2>(type, false);
    case FloatOp::max: return pick<L, FMax, 2>(type, false);
    case FloatOp::min_nan: return pick<L, FMinNaN, 2>(type, false);
    case FloatOp::max_nan: return pick<L, FMaxNaN, 2>(type, false);
    case FloatOp::copysign: return pick<L, FCopysign, 2>(type, false);
    case FloatOp::fma:
#ifdef LOOM_HOST_FMA_DISPATCH
      if (type == PtxType::f32 && !sat && host_has_fma()) return &ffma32_host_fma<L>;
#endif
      return pick<L, FFma, 3, NarrowFma>(type, sat);
    case FloatOp::neg: return pick<L, FNeg, 1>(type, false);
    case FloatOp::abs: return pick<L, FAbs, 1>(type, false);
    case FloatOp::sqrt: return pick<L, FSqrt, 1>(type, false);
    case FloatOp::rcp: return pick<L, FRcp, 1>(type, false);
    case FloatOp::rsqrt: return pick<L, FRsqrt, 1>(type, false);
    case FloatOp::sin: return pick<L, FSin, 1>(type, false);
    case FloatOp::cos: return pick<L, FCos, 1>(type, false);
    case FloatOp::ex2: return pick<L, FEx2, 1>(type, sat);
    case FloatOp::lg2: return pick<L, FLg2, 1>(type, false);
    case FloatOp::tanh: return pick<L, FTanh, 1>(type, false);
  }
  return nullptr;
}

}  // namespace

ExecFn select_float_op(FloatOp op, PtxType type, bool sat) { return select_float_lanes<uint64_t>(op, type, sat); }
ExecFn select_float_op_narrow(FloatOp op, PtxType type, bool sat) { return select_float_lanes<uint32_t>(op, type, sat); }

}  // namespace loom::simt
