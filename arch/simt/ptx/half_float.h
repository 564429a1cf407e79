// IEEE binary16 (fp16) and bfloat16 in software, plus directed rounding to any of the
// narrower float formats. The host has no native half type we can rely on, and the
// functional model must round exactly as the GPU does (round-to-nearest-even unless the
// instruction names another mode), so every conversion here is exact bit manipulation.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace loom::simt {

enum class RoundingMode : uint8_t { nearest_even, toward_zero, toward_minus_inf, toward_plus_inf };

inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // Subnormal halves are normal floats: m * 2^-24 is exact in fp32.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// Four lanes of host SIMD (GCC/Clang vector extensions: SSE2 on x86-64, NEON on ARM).
using Floats4 = float __attribute__((vector_size(16)));
using Ints4 = int32_t __attribute__((vector_size(16)));

// half_to_float on four bit patterns (one per 32-bit element, upper halves zero), bit for
// bit the same, without branches: the exponent is rebiased by adding 112 (twice for inf and
// NaN); a subnormal gets exponent 2^-14 added to its mantissa, then 2^-14 is subtracted,
// which is exact. The subtraction's result is selected by bits, not added as 0 elsewhere:
// x - 0 would quiet a signalling NaN.
inline Floats4 half_to_float4(Ints4 h) {
  constexpr int32_t kExponent = 0x7c00 << 13, kRebias = 112 << 23;
  Ints4 o = (h & 0x7fff) << 13;
  const Ints4 exponent = o & kExponent;
  const Ints4 special = exponent == kExponent, subnormal = exponent == 0;  // -1 where true
  o += kRebias + (special & kRebias) + (subnormal & (1 << 23));
  const Floats4 shifted = reinterpret_cast<Floats4>(o) - reinterpret_cast<Floats4>(Ints4{} + (113 << 23));
  o = (reinterpret_cast<Ints4>(shifted) & subnormal) | (o & ~subnormal);
  return reinterpret_cast<Floats4>(o | ((h & 0x8000) << 16));
}
inline Floats4 bfloat_to_float4(Ints4 b) { return reinterpret_cast<Floats4>(b << 16); }

// x >> bits (1 <= bits <= 31), rounded to nearest, ties to even, without a branch (the
// dropped bits are random in the inputs loom makes up, so a branch on them mispredicts
// half the time): adding half less one, plus one where the kept part is odd, carries into
// the kept part exactly when the dropped bits are over half, or half with it odd. x plus
// 2^(bits-1) must fit in 32 bits.
inline uint32_t shift_right_nearest_even(uint32_t x, int bits) {
  return (x + ((1u << (bits - 1)) - 1) + ((x >> bits) & 1u)) >> bits;
}

// fp32 -> fp16, round to nearest, ties to even; overflow to infinity; NaN stays NaN.
inline uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t magnitude = x & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (magnitude < 0x38800000u) {                                                // below 2^-14: subnormal
    if (magnitude <= 0x33000000u) return static_cast<uint16_t>(sign);            // <= 2^-25 ties to 0
    const uint32_t exponent = magnitude >> 23;
    const uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    return static_cast<uint16_t>(sign | shift_right_nearest_even(significand, static_cast<int>(126 - exponent)));
  }
  // Rebias 127 -> 15; a carry of the rounding into the exponent is correct.
  return static_cast<uint16_t>(sign | shift_right_nearest_even(magnitude - 0x38000000u, 13));
}

inline float bfloat_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline uint16_t float_to_bfloat(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>(shift_right_nearest_even(x, 16));
}

// Rounds x to a binary format with `fraction_bits` stored mantissa bits, normal exponents
// emin..emax (subnormals below), in the given mode. Returns the rounded value, exactly
// representable in the target format (or +-inf on overflow). F is double or long double:
// long double holds every 64-bit integer exactly, so int64 -> float directed rounding is exact.
template <class F>
F round_to_format(F x, int fraction_bits, int emin, int emax, RoundingMode mode) {
  if (!std::isfinite(x) || x == 0) return x;
  int e = 0;
  std::frexp(x, &e);  // |x| = f * 2^e with f in [0.5, 1): the leading bit is 2^(e-1)
  const int lead = e - 1 < emin ? emin : e - 1;
  const F quantum = std::ldexp(F(1), lead - fraction_bits);
  const F scaled = x / quantum;  // exact: a power-of-two scale
  F r;
  switch (mode) {
    case RoundingMode::nearest_even: r = std::nearbyint(scaled); break;  // default FE mode: ties to even
    case RoundingMode::toward_zero: r = std::trunc(scaled); break;
    case RoundingMode::toward_minus_inf: r = std::floor(scaled); break;
    default: r = std::ceil(scaled); break;
  }
  const F result = r * quantum;
  const F max_finite = std::ldexp(F(2) - std::ldexp(F(1), -fraction_bits), emax);
  if (std::fabs(result) <= max_finite) return result;
  const bool negative = result < 0;
  const F inf = negative ? -INFINITY : INFINITY, max = negative ? -max_finite : max_finite;
  switch (mode) {
    case RoundingMode::nearest_even: return inf;
    case RoundingMode::toward_zero: return max;
    case RoundingMode::toward_minus_inf: return negative ? inf : max;
    default: return negative ? max : inf;
  }
}

template <class F>
uint16_t to_half(F x, RoundingMode mode) {
  if (std::isnan(x)) return 0x7fff;
  return float_to_half(static_cast<float>(round_to_format<F>(x, 10, -14, 15, mode)));
}
template <class F>
uint16_t to_bfloat(F x, RoundingMode mode) {
  if (std::isnan(x)) return 0x7fff;
  return float_to_bfloat(static_cast<float>(round_to_format<F>(x, 7, -126, 127, mode)));
}
template <class F>
float to_float(F x, RoundingMode mode) {
  if (mode == RoundingMode::nearest_even) return static_cast<float>(x);
  return static_cast<float>(round_to_format<F>(x, 23, -126, 127, mode));
}
template <class F>
double to_double(F x, RoundingMode mode) {
  if (mode == RoundingMode::nearest_even) return static_cast<double>(x);
  return static_cast<double>(round_to_format<F>(x, 52, -1022, 1023, mode));
}
// TF32 keeps fp32's range with a 10-bit mantissa; stored in 32 bits with the low 13 zero.
inline uint32_t float_to_tf32(float x, RoundingMode mode) {
  if (std::isnan(x)) return 0x7fffffffu;
  return std::bit_cast<uint32_t>(static_cast<float>(round_to_format<double>(x, 10, -126, 127, mode)));
}

}  // namespace loom::simt
