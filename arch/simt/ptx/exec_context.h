// What an instruction handler sees: the executing warp's registers, the kernel's constant
// table, the CTA and launch it belongs to, and the ExecutedInstruction to report into; plus
// the lane-loop and register-representation helpers every handler shares.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "arch/simt/ptx/functional_state.h"
#include "arch/simt/ptx/half_float.h"

namespace loom::simt {

struct WarpContext {
  uint64_t* regs = nullptr;  // the warp's register storage, in 128-byte units (ptx_program.h)
  const uint64_t* constants = nullptr;
  const uint32_t* constants32 = nullptr;
  LaunchState* launch = nullptr;
  CtaState* cta = nullptr;
  WarpState* warp = nullptr;
  uint32_t warp_index = 0;
  ExecutedInstruction* out = nullptr;

  // A wide operand's 32 lanes of 64 bits.
  const uint64_t* src(uint32_t operand) const {
    return operand & kConstantFlag ? constants + size_t{operand & ~kConstantFlag} * 32 : regs + size_t{operand} * 16;
  }
  uint64_t* dst(uint32_t slot) const { return regs + size_t{slot} * 16; }
  // An operand's lanes as L: uint64_t (wide) or uint32_t (narrow, in a handler's narrow
  // twin). Narrow units are only ever accessed as uint32_t, wide ones as uint64_t.
  template <class L>
  const L* src_as(uint32_t operand) const {
    if constexpr (sizeof(L) == 8) {
      return src(operand);
    } else {
      static_assert(sizeof(L) == 4);
      return operand & kConstantFlag ? constants32 + size_t{operand & ~kConstantFlag} * 32
                                     : reinterpret_cast<const uint32_t*>(regs + size_t{operand} * 16);
    }
  }
  template <class L>
  L* dst_as(uint32_t slot) const {
    if constexpr (sizeof(L) == 8) return dst(slot);
    else return reinterpret_cast<uint32_t*>(regs + size_t{slot} * 16);
  }
  void add_segment(uint64_t address, uint32_t bytes, int lane) const {
    MemorySegment& s = out->segments[out->n_segments++];
    s.address = address;
    s.bytes = bytes;
    s.lane = static_cast<uint8_t>(lane);
  }
};

inline constexpr uint32_t kFullMask = 0xffffffffu;

// A full warp takes a plain loop the compiler can unroll and vectorise; partial masks
// visit only their set bits.
template <class F>
inline void for_each_lane(uint32_t mask, F&& f) {
  if (mask == kFullMask) {
    for (int lane = 0; lane < 32; ++lane) f(lane);
  } else {
    while (mask) {
      f(std::countr_zero(mask));
      mask &= mask - 1;
    }
  }
}

inline uint32_t first_lane(uint32_t mask) { return static_cast<uint32_t>(std::countr_zero(mask)); }

// Register representation: every register slot is 64 bits holding the value zero-extended
// from its type's width. Repr<T> loads and stores one type; F16/BF16 compute in float and
// round to nearest even when stored.
struct F16 {};
struct BF16 {};

template <class T>
struct Repr {
  static_assert(std::is_integral_v<T>);
  using compute = T;
  static T load(uint64_t bits) { return static_cast<T>(bits); }
  static uint64_t store(T v) { return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v)); }
};
template <>
struct Repr<float> {
  using compute = float;
  static float load(uint64_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }
  static uint64_t store(float v) { return std::bit_cast<uint32_t>(v); }
};
template <>
struct Repr<double> {
  using compute = double;
  static double load(uint64_t bits) { return std::bit_cast<double>(bits); }
  static uint64_t store(double v) { return std::bit_cast<uint64_t>(v); }
};
template <>
struct Repr<F16> {
  using compute = float;
  static float load(uint64_t bits) { return half_to_float(static_cast<uint16_t>(bits)); }
  static uint64_t store(float v) { return float_to_half(v); }
};
template <>
struct Repr<BF16> {
  using compute = float;
  static float load(uint64_t bits) { return bfloat_to_float(static_cast<uint16_t>(bits)); }
  static uint64_t store(float v) { return float_to_bfloat(v); }
};

// Bits of the guard predicate: lanes whose predicate (or its negation) is true; P is the
// predicate's lanes (uint64_t, or uint32_t in a narrow slot).
// Every guarded instruction asks (a loop's branch at least once an iteration), so on x86-64
// bit 0 of each lane is moved to its sign bit and the sign bits gathered four or two lanes
// at a time (SSE2, which every x86-64 host has) rather than lane by lane.
template <class P>
inline uint32_t predicate_mask(const P* pred, bool negated) {
  uint32_t m = 0;
#if defined(__SSE2__)
  for (int lane = 0; lane < 32; lane += 16 / static_cast<int>(sizeof(P))) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(pred + lane));
    if constexpr (sizeof(P) == 4)
      m |= static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_slli_epi32(v, 31)))) << lane;
    else
      m |= static_cast<uint32_t>(_mm_movemask_pd(_mm_castsi128_pd(_mm_slli_epi64(v, 63)))) << lane;
  }
#else
  for (int lane = 0; lane < 32; ++lane) m |= static_cast<uint32_t>(pred[lane] & 1) << lane;
#endif
  return negated ? ~m : m;
}

}  // namespace loom::simt
