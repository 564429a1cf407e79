// cvt: every integer and float type to every other, with PTX's rounding modifiers and .sat.
// Common conversions get their own tight handlers; the rest go through one generic path
// that reads the source exactly into long double (which holds every 64-bit integer and every
// double) and rounds once into the destination.
#include <cmath>
#include <limits>

#include "arch/simt/ptx/exec_context.h"
#include "arch/simt/ptx/exec_handlers.h"

namespace loom::simt {

namespace {

long double source_value(uint64_t bits, PtxType src, bool& is_signed_int, int64_t& as_signed, uint64_t& as_unsigned) {
  is_signed_int = false;
  switch (type_class(src)) {
    case TypeClass::signed_int: {
      const int shift = 64 - type_bits(src);
      as_signed = static_cast<int64_t>(bits << shift) >> shift;
      as_unsigned = static_cast<uint64_t>(as_signed);
      is_signed_int = true;
      return static_cast<long double>(as_signed);
    }
    case TypeClass::unsigned_int:
    case TypeClass::bits:
      as_unsigned = bits & type_mask(src);
      as_signed = static_cast<int64_t>(as_unsigned);
      return static_cast<long double>(as_unsigned);
    default:
      break;
  }
  as_signed = 0;
  as_unsigned = 0;
  switch (src) {
    case PtxType::f16: return half_to_float(static_cast<uint16_t>(bits));
    case PtxType::bf16: return bfloat_to_float(static_cast<uint16_t>(bits));
    case PtxType::f64: return std::bit_cast<double>(bits);
    default: return std::bit_cast<float>(static_cast<uint32_t>(bits));  // f32, tf32
  }
}

long double round_integral(long double x, CvtRounding r) {
  switch (r) {
    case CvtRounding::rni: return std::nearbyint(x);
    case CvtRounding::rmi: return std::floor(x);
    case CvtRounding::rpi: return std::ceil(x);
    default: return std::trunc(x);  // rzi, or no modifier (C semantics)
  }
}

RoundingMode fraction_mode(CvtRounding r) {
  switch (r) {
    case CvtRounding::rz: return RoundingMode::toward_zero;
    case CvtRounding::rm: return RoundingMode::toward_minus_inf;
    case CvtRounding::rp: return RoundingMode::toward_plus_inf;
    default: return RoundingMode::nearest_even;
  }
}

uint64_t convert_one(uint64_t bits, PtxType dst, PtxType src, CvtRounding r, bool sat) {
  bool src_signed = false;
  int64_t si = 0;
  uint64_t ui = 0;
  long double x = source_value(bits, src, src_signed, si, ui);
  const bool src_is_int = is_integer_type(src);
  if (is_integer_type(dst)) {
    const int db = type_bits(dst);
    const bool dst_signed = is_signed_type(dst);
    const long double lo = dst_signed ? -std::ldexp(1.0L, db - 1) : 0.0L;
    const long double hi = dst_signed ? std::ldexp(1.0L, db - 1) - 1 : std::ldexp(1.0L, db) - 1;
    if (src_is_int) {
      if (!sat) return ui;  // truncation keeps the low bits (masked by the caller)
      if (x < lo) return static_cast<uint64_t>(static_cast<int64_t>(lo));
      if (x > hi) return dst_signed ? static_cast<uint64_t>(static_cast<int64_t>(hi)) : static_cast<uint64_t>(hi);
      return ui;
    }
    // Float to integer always saturates; NaN gives 0.
    if (std::isnan(x)) return 0;
    x = round_integral(x, r);
    if (x <= lo) return dst_signed ? static_cast<uint64_t>(static_cast<int64_t>(lo)) : 0;
    if (x >= hi) return dst_signed ? static_cast<uint64_t>(static_cast<int64_t>(hi)) : static_cast<uint64_t>(hi);
    return dst_signed ? static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x);
  }
  RoundingMode mode = fraction_mode(r);
  if (r == CvtRounding::rni || r == CvtRounding::rzi || r == CvtRounding::rmi || r == CvtRounding::rpi) {
    x = round_integral(x, r);
    mode = RoundingMode::nearest_even;
  }
  if (sat) x = std::isnan(x) ? 0.0L : (x > 1 ? 1.0L : (x > 0 ? x : 0.0L));
  switch (dst) {
    case PtxType::f16: return to_half(x, mode);
    case PtxType::bf16: return to_bfloat(x, mode);
    case PtxType::f64: return std::bit_cast<uint64_t>(to_double(x, mode));
    case PtxType::tf32: return float_to_tf32(to_float(x, mode), mode);
    default: return std::bit_cast<uint32_t>(to_float(x, mode));
  }
}

// Signed results narrower than their register are sign-extended into it (aux = register mask).
void generic(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t* a = c.src(i.src[0]);
  const auto r = static_cast<CvtRounding>(i.mode);
  const bool sat = i.flags & DecodedInstruction::kFlagSaturate;
  const int shift = 64 - type_bits(i.type);
  const bool extend = is_signed_type(i.type);
  for_each_lane(mask, [&](int l) {
    uint64_t v = convert_one(a[l], i.type, i.type2, r, sat);
    if (extend) v = static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift);
    d[l] = v & i.aux;
  });
}

template <class D, class S>
void int_to_int(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t* a = c.src(i.src[0]);
  for_each_lane(mask, [&](int l) { d[l] = Repr<D>::store(static_cast<D>(Repr<S>::load(a[l]))); });
}
template <class D, class S>
void int_to_float(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t* a = c.src(i.src[0]);
  for_each_lane(mask, [&](int l) { d[l] = Repr<D>::store(static_cast<D>(Repr<S>::load(a[l]))); });
}
template <class D, class S, CvtRounding R>
void float_to_int(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t* a = c.src(i.src[0]);
  for_each_lane(mask, [&](int l) {
    S x = Repr<S>::load(a[l]);
    if constexpr (R == CvtRounding::rni) x = std::nearbyint(x);
    else if constexpr (R == CvtRounding::rmi) x = std::floor(x);
    else if constexpr (R == CvtRounding::rpi) x = std::ceil(x);
    else x = std::trunc(x);
    constexpr S lo = static_cast<S>(std::numeric_limits<D>::min());
    constexpr S hi = static_cast<S>(std::numeric_limits<D>::max());  // may round up to 2^bits
    D v;
    if (std::isnan(x)) v = 0;
    else if (x <= lo) v = std::numeric_limits<D>::min();
    else if (x >= hi) v = std::numeric_limits<D>::max();
    else v = static_cast<D>(x);
    d[l] = Repr<D>::store(v);
  });
}
template <class D, class S>
void float_to_float(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {  // round to nearest even
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t* a = c.src(i.src[0]);
  for_each_lane(mask, [&](int l) { d[l] = Repr<D>::store(static_cast<typename Repr<D>::compute>(Repr<S>::load(a[l]))); });
}
template <CvtRounding R>
void round_f32(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t* a = c.src(i.src[0]);
  for_each_lane(mask, [&](int l) {
    const float x = Repr<float>::load(a[l]);
    float v;
    if constexpr (R == CvtRounding::rni) v = std::nearbyint(x);
    else if constexpr (R == CvtRounding::rmi) v = std::floor(x);
    else if constexpr (R == CvtRounding::rpi) v = std::ceil(x);
    else v = std::trunc(x);
    d[l] = Repr<float>::store(v);
  });
}

template <class T> constexpr bool kIsInt = std::is_integral_v<T>;

// The fast handler for (dst, src) or nullptr.
template <class D, class S>
ExecFn fast_for(CvtRounding r) {
  if constexpr (kIsInt<D> && kIsInt<S>) {
    return r == CvtRounding::none ? &int_to_int<D, S> : nullptr;
  } else if constexpr (!kIsInt<D> && kIsInt<S>) {
    return r == CvtRounding::rn || r == CvtRounding::none ? &int_to_float<D, S> : nullptr;
  } else if constexpr (kIsInt<D> && !kIsInt<S>) {
    switch (r) {
      case CvtRounding::rni: return &float_to_int<D, S, CvtRounding::rni>;
      case CvtRounding::rzi: return &float_to_int<D, S, CvtRounding::rzi>;
      case CvtRounding::rmi: return &float_to_int<D, S, CvtRounding::rmi>;
      case CvtRounding::rpi: return &float_to_int<D, S, CvtRounding::rpi>;
      default: return nullptr;
    }
  } else {
    return nullptr;
  }
}

template <class D>
ExecFn fast_from(PtxType src, CvtRounding r) {
  switch (src) {
    case PtxType::u16: return fast_for<D, uint16_t>(r);
    case PtxType::s16: return fast_for<D, int16_t>(r);
    case PtxType::u32: return fast_for<D, uint32_t>(r);
    case PtxType::s32: return fast_for<D, int32_t>(r);
    case PtxType::u64: return fast_for<D, uint64_t>(r);
    case PtxType::s64: return fast_for<D, int64_t>(r);
    case PtxType::f32: return fast_for<D, float>(r);
    case PtxType::f64: return fast_for<D, double>(r);
    default: return nullptr;
  }
}

ExecFn fast(PtxType dst, PtxType src, CvtRounding r) {
  const bool widening_or_rn = r == CvtRounding::none || r == CvtRounding::rn;
  if (dst == PtxType::f64 && src == PtxType::f32 && r == CvtRounding::none) return &float_to_float<double, float>;
  if (dst == PtxType::f32 && src == PtxType::f64 && widening_or_rn) return &float_to_float<float, double>;
  if (dst == PtxType::f16 && src == PtxType::f32 && widening_or_rn) return &float_to_float<F16, float>;
  if (dst == PtxType::bf16 && src == PtxType::f32 && widening_or_rn) return &float_to_float<BF16, float>;
  if (dst == PtxType::f32 && src == PtxType::f16 && r == CvtRounding::none) return &float_to_float<float, F16>;
  if (dst == PtxType::f32 && src == PtxType::bf16 && r == CvtRounding::none) return &float_to_float<float, BF16>;
  if (dst == PtxType::f32 && src == PtxType::f32) {
    switch (r) {
      case CvtRounding::rni: return &round_f32<CvtRounding::rni>;
      case CvtRounding::rzi: return &round_f32<CvtRounding::rzi>;
      case CvtRounding::rmi: return &round_f32<CvtRounding::rmi>;
      case CvtRounding::rpi: return &round_f32<CvtRounding::rpi>;
      default: return nullptr;
    }
  }
  switch (dst) {
    case PtxType::u16: return fast_from<uint16_t>(src, r);
    case PtxType::s16: return fast_from<int16_t>(src, r);
    case PtxType::u32: return fast_from<uint32_t>(src, r);
    case PtxType::s32: return fast_from<int32_t>(src, r);
    case PtxType::u64: return fast_from<uint64_t>(src, r);
    case PtxType::s64: return fast_from<int64_t>(src, r);
    case PtxType::f32: return fast_from<float>(src, r);
    case PtxType::f64: return fast_from<double>(src, r);
    default: return nullptr;
  }
}

PtxType canonical(PtxType t) {  // b-types convert like the unsigned ones
  switch (t) {
    case PtxType::b8: return PtxType::u8;
    case PtxType::b16: return PtxType::u16;
    case PtxType::b32: return PtxType::u32;
    case PtxType::b64: return PtxType::u64;
    default: return t;
  }
}

// cvt.rn.{f16x2,bf16x2}.f32 d, a, b: a rounds into the upper half, b into the lower.
template <class Half>
void pack_pair(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  uint64_t* d = c.dst(i.dst[0]);
  const uint64_t *a = c.src(i.src[0]), *b = c.src(i.src[1]);
  for_each_lane(mask, [&](int l) {
    d[l] = Repr<Half>::store(Repr<float>::load(a[l])) << 16 | Repr<Half>::store(Repr<float>::load(b[l]));
  });
}

}  // namespace

ExecFn select_convert_pair(PtxType dst) {
  if (dst == PtxType::f16x2) return &pack_pair<F16>;
  if (dst == PtxType::bf16x2) return &pack_pair<BF16>;
  return nullptr;
}

ExecFn select_convert(PtxType dst, PtxType src, CvtRounding rounding, bool saturate, bool register_wider) {
  if (!saturate && !(register_wider && is_signed_type(dst)))
    if (ExecFn f = fast(canonical(dst), canonical(src), rounding)) return f;
  return &generic;
}

}  // namespace loom::simt
