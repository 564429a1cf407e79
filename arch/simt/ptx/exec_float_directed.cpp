// Float arithmetic with directed rounding (.rz, .rm, .rp), which nvcc emits for roundf()
// and the __f*_r{z,d,u} intrinsics. Each operation computes its round-to-nearest result and
// the exact sign of the rounding error (TwoSum for sums, an fma residual for products,
// quotients and roots); the directed result is then that value or its neighbour. For fp32
// the nearest value is computed in double and rounded once into float by the mode.
#include <cmath>

#include "arch/simt/ptx/exec_context.h"
#include "arch/simt/ptx/exec_handlers.h"

namespace loom::simt {

namespace {

struct Exact {
  double value;  // round-to-nearest double of the exact result
  double error;  // exact result - value (only its sign matters)
};

Exact two_sum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

Exact compute(FloatOp op, double a, double b, double c) {
  switch (op) {
    case FloatOp::add: return two_sum(a, b);
    case FloatOp::sub: return two_sum(a, -b);
    case FloatOp::mul: {
      const double p = a * b;
      return {p, std::fma(a, b, -p)};
    }
    case FloatOp::div: {
      const double q = a / b;
      const double residual = std::fma(-q, b, a);  // a - q*b, exact
      return {q, std::signbit(b) ? -residual : residual};
    }
    case FloatOp::rcp: {
      const double q = 1.0 / a;
      const double residual = std::fma(-q, a, 1.0);
      return {q, std::signbit(a) ? -residual : residual};
    }
    case FloatOp::sqrt: {
      const double r = std::sqrt(a);
      return {r, std::fma(-r, r, a)};
    }
    default: {  // fma on fp32 inputs: the product is exact in double
      const Exact s = two_sum(a * b, c);
      return s;
    }
  }
}

// Steps `v` (a representable value of T equal to the rounded nearest) one ulp in the
// direction the mode requires, given the sign of the exact error.
template <class T>
T adjust(T v, double error, RoundingMode mode) {
  if (error == 0 || std::isnan(v)) return v;
  switch (mode) {
    case RoundingMode::toward_minus_inf: return error < 0 ? std::nextafter(v, T(-INFINITY)) : v;
    case RoundingMode::toward_plus_inf: return error > 0 ? std::nextafter(v, T(INFINITY)) : v;
    default:  // toward zero: step back when the nearest value overshot in magnitude
      if ((v > 0 && error < 0) || (v < 0 && error > 0)) return std::nextafter(v, T(0));
      return v;
  }
}

template <class T>
T directed(FloatOp op, RoundingMode mode, T a, T b, T c) {
  const Exact e = compute(op, a, b, c);
  if constexpr (std::is_same_v<T, double>) {
    return adjust<double>(e.value, e.error, mode);
  } else {
    const float f = to_float(e.value, mode);
    // e.value itself a float: the exact result lies beyond it by e.error.
    return static_cast<double>(f) == e.value ? adjust<float>(f, e.error, mode) : f;
  }
}

template <class T, FloatOp Op, RoundingMode Mode, int Arity, bool Sat>
void run(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  using R = Repr<T>;
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t* a = c.src(i.src[0]);
  const uint64_t* b = Arity >= 2 ? c.src(i.src[1]) : a;
  const uint64_t* cc = Arity >= 3 ? c.src(i.src[2]) : a;
  for_each_lane(mask, [&](int l) {
    T v = directed<T>(Op, Mode, R::load(a[l]), R::load(b[l]), R::load(cc[l]));
    if constexpr (Sat) v = v > T(1) ? T(1) : (v > T(0) ? v : T(0));
    d[l] = R::store(v);
  });
}

template <class T, FloatOp Op, int Arity>
ExecFn pick(RoundingMode mode, bool sat) {
  switch (mode) {
    case RoundingMode::toward_zero:
      return sat ? &run<T, Op, RoundingMode::toward_zero, Arity, true> : &run<T, Op, RoundingMode::toward_zero, Arity, false>;
    case RoundingMode::toward_minus_inf:
      return sat ? &run<T, Op, RoundingMode::toward_minus_inf, Arity, true> : &run<T, Op, RoundingMode::toward_minus_inf, Arity, false>;
    case RoundingMode::toward_plus_inf:
      return sat ? &run<T, Op, RoundingMode::toward_plus_inf, Arity, true> : &run<T, Op, RoundingMode::toward_plus_inf, Arity, false>;
    default: return nullptr;
  }
}

template <class T>
ExecFn pick_type(FloatOp op, RoundingMode mode, bool sat) {
  switch (op) {
    case FloatOp::add: return pick<T, FloatOp::add, 2>(mode, sat);
    case FloatOp::sub: return pick<T, FloatOp::sub, 2>(mode, sat);
    case FloatOp::mul: return pick<T, FloatOp::mul, 2>(mode, sat);
    case FloatOp::div: return pick<T, FloatOp::div, 2>(mode, sat);
    case FloatOp::rcp: return pick<T, FloatOp::rcp, 1>(mode, sat);
    case FloatOp::sqrt: return pick<T, FloatOp::sqrt, 1>(mode, sat);
    case FloatOp::fma:  // an f64 fma's exact error is not available in double arithmetic
      return std::is_same_v<T, float> ? pick<T, FloatOp::fma, 3>(mode, sat) : nullptr;
    default: return nullptr;
  }
}

}  // namespace

ExecFn select_float_directed(FloatOp op, PtxType type, RoundingMode mode, bool saturate) {
  if (type == PtxType::f32) return pick_type<float>(op, mode, saturate);
  if (type == PtxType::f64) return pick_type<double>(op, mode, saturate);
  return nullptr;
}

}  // namespace loom::simt
