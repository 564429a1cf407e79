#include "arch/simt/ptx/warp_addresses.h"

#include <cstddef>
#include <cstring>

#include "sim/host_cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LOOM_WARP_ADDRESSES_AVX2 1
#endif

namespace loom::simt {

// A segment is written as two 8-byte words, address and (bytes | lane << 32); the three
// padding bytes become 0.
static_assert(sizeof(MemorySegment) == 16 && offsetof(MemorySegment, address) == 0 &&
              offsetof(MemorySegment, bytes) == 8 && offsetof(MemorySegment, lane) == 12);

namespace {

// B: the address register's lanes, uint64_t or uint32_t (a narrow slot, zero-extended).
template <class B>
void addresses_portable(const B* base, uint64_t offset, uint32_t bytes, MemorySegment* segments, WarpAddresses& out) {
  auto* words = reinterpret_cast<uint8_t*>(segments);
  uint64_t lo = ~uint64_t{0}, hi = 0;
  for (int l = 0; l < 32; ++l) {
    const uint64_t at = uint64_t{base[l]} + offset;
    const uint64_t tail = uint64_t{bytes} | uint64_t(l) << 32;
    out.at[l] = at;
    std::memcpy(words + 16 * l, &at, 8);
    std::memcpy(words + 16 * l + 8, &tail, 8);
    lo = at < lo ? at : lo;
    hi = at > hi ? at : hi;
  }
  out.lo = lo;
  out.hi = hi;
}

}  // namespace

void whole_warp_addresses_portable(const uint64_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                   WarpAddresses& out) {
  addresses_portable(base, offset, bytes, segments, out);
}
void whole_warp_addresses32_portable(const uint32_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                     WarpAddresses& out) {
  addresses_portable(base, offset, bytes, segments, out);
}

namespace {

// d[l] = the 4 bytes at first + (at[l] - lo) & width: At, the addresses' width (64-bit, or
// the lane form's 32); D, the destination register's lanes, uint64_t (zero-extended) or
// uint32_t (narrow).
template <class At, class D>
void load4_portable(const uint8_t* first, const At* at, At lo, D width, D* d) {
  for (int l = 0; l < 32; ++l) {
    uint32_t v;
    std::memcpy(&v, first + (at[l] - lo), 4);
    d[l] = v & width;
  }
}

}  // namespace

void whole_warp_load4_portable(const uint8_t* first, const WarpAddresses& a, uint64_t width, uint64_t* d) {
  load4_portable(first, a.at, a.lo, width, d);
}
void whole_warp_load4_narrow_portable(const uint8_t* first, const WarpAddresses& a, uint32_t width, uint32_t* d) {
  load4_portable(first, a.at, a.lo, width, d);
}

namespace {

// Lanes of base values in [lo32, hi32]: their 64-bit addresses (v + offset, mod 2^64) are
// their 32-bit sums exactly when all are below 2^32. None or all of the sums wrap mod
// 2^64 when lo and hi's are in order, and then every one lies between theirs.
bool range_of_sums(uint32_t lo32, uint32_t hi32, uint64_t offset, uint64_t& lo, uint64_t& hi) {
  const uint64_t l = uint64_t{lo32} + offset, h = uint64_t{hi32} + offset;
  if (l > h || h > 0xffffffffu) return false;
  lo = l;
  hi = h;
  return true;
}

}  // namespace

bool lane_addresses32_portable(const uint32_t* base, uint64_t offset, uint32_t* at, uint64_t& lo, uint64_t& hi) {
  uint32_t lo32 = ~uint32_t{0}, hi32 = 0;
  for (int l = 0; l < 32; ++l) {
    at[l] = base[l] + static_cast<uint32_t>(offset);
    lo32 = base[l] < lo32 ? base[l] : lo32;
    hi32 = base[l] > hi32 ? base[l] : hi32;
  }
  return range_of_sums(lo32, hi32, offset, lo, hi);
}
void lane_load4_portable(const uint8_t* first, const uint32_t* at, uint32_t lo, uint64_t width, uint64_t* d) {
  load4_portable(first, at, lo, width, d);
}
void lane_load4_narrow_portable(const uint8_t* first, const uint32_t* at, uint32_t lo, uint32_t width, uint32_t* d) {
  load4_portable(first, at, lo, width, d);
}

#ifdef LOOM_WARP_ADDRESSES_AVX2
namespace {

// A gather of eight lanes is microcoded and slow on current x86 cores (on this project's
// AMD EPYC host, lane_load4_narrow's gathers were most of its 9% of the tiled GEMM's wall
// time), while most warps' loads read eight consecutive words (a row of a tile, a
// coalesced load) or one word for all eight (a broadcast of a tile's element). Those two
// patterns take one plain load; any other takes the gather. Which lanes read which bytes
// is the same either way.
//
// Eight lanes' 4-byte values, lane 0's at `lane0`: one load when the lanes read consecutive
// words (`consecutive`: their offsets from lane 0 are 0, 4, ..., 28) or all the same one
// (`same`); `gather()` otherwise.
template <class Gather>
__attribute__((target("avx2"))) inline __m256i eight_words(const uint8_t* lane0, bool consecutive, bool same,
                                                           Gather&& gather) {
  if (consecutive) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(lane0));
  if (same) {
    int v;
    std::memcpy(&v, lane0, 4);
    return _mm256_set1_epi32(v);
  }
  return gather();
}

// Eight loaded values into eight lanes of d, masked to `width`: zero-extended into a wide
// register's 64-bit lanes, or as they are into a narrow one's 32-bit lanes.
template <class D>
__attribute__((target("avx2"))) inline void store_eight(__m256i v, D width, D* d) {
  if constexpr (sizeof(D) == 8) {
    const __m256i mask = _mm256_set1_epi64x(static_cast<int64_t>(width));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_and_si256(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)), mask));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 4),
                        _mm256_and_si256(_mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)), mask));
  } else {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d), _mm256_and_si256(v, _mm256_set1_epi32(static_cast<int>(width))));
  }
}

// 64-bit addresses: the same two patterns, tested on eight lanes' 64-bit offsets; any other
// takes two four-lane gathers.
template <class D>
__attribute__((target("avx2"))) void load4_avx2(const uint8_t* first, const WarpAddresses& a, D width, D* d) {
  const __m256i lo = _mm256_set1_epi64x(static_cast<int64_t>(a.lo));
  const auto* words = reinterpret_cast<const int*>(first);
  for (int l = 0; l < 32; l += 8) {
    const __m256i low4 = _mm256_sub_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.at + l)), lo);
    const __m256i high4 = _mm256_sub_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.at + l + 4)), lo);
    const __m256i lane0 = _mm256_broadcastq_epi64(_mm256_castsi256_si128(low4));
    const __m256i low_from = _mm256_sub_epi64(low4, lane0), high_from = _mm256_sub_epi64(high4, lane0);
    const auto* at0 = first + static_cast<uint64_t>(_mm_cvtsi128_si64(_mm256_castsi256_si128(low4)));
    const __m256i consecutive = _mm256_and_si256(_mm256_cmpeq_epi64(low_from, _mm256_setr_epi64x(0, 4, 8, 12)),
                                                 _mm256_cmpeq_epi64(high_from, _mm256_setr_epi64x(16, 20, 24, 28)));
    const __m256i from = _mm256_or_si256(low_from, high_from);
    const __m256i v = eight_words(at0, _mm256_movemask_epi8(consecutive) == -1, _mm256_testz_si256(from, from),
                                  [&]() __attribute__((target("avx2"))) {
      return _mm256_setr_m128i(_mm256_i64gather_epi32(words, low4, 1), _mm256_i64gather_epi32(words, high4, 1));
    });
    store_eight(v, width, d + l);
  }
}

}  // namespace

__attribute__((target("avx2"))) void whole_warp_load4_avx2(const uint8_t* first, const WarpAddresses& a, uint64_t width,
                                                           uint64_t* d) {
  load4_avx2(first, a, width, d);
}
__attribute__((target("avx2"))) void whole_warp_load4_narrow_avx2(const uint8_t* first, const WarpAddresses& a,
                                                                  uint32_t width, uint32_t* d) {
  load4_avx2(first, a, width, d);
}

namespace {

template <class B>
__attribute__((target("avx2"))) inline __m256i four_lanes(const B* base) {
  if constexpr (sizeof(B) == 8) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base));
  else return _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(base)));
}

template <class B>
__attribute__((target("avx2"))) void addresses_avx2(const B* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                                    WarpAddresses& out) {
  // Unsigned order through signed compares: flip the top bit of both sides.
  const __m256i flip = _mm256_set1_epi64x(static_cast<int64_t>(uint64_t{1} << 63));
  const __m256i add = _mm256_set1_epi64x(static_cast<int64_t>(offset));
  const __m256i step = _mm256_set1_epi64x(int64_t{4} << 32);
  __m256i tail = _mm256_setr_epi64x(static_cast<int64_t>(bytes), static_cast<int64_t>(uint64_t{bytes} | uint64_t{1} << 32),
                                    static_cast<int64_t>(uint64_t{bytes} | uint64_t{2} << 32),
                                    static_cast<int64_t>(uint64_t{bytes} | uint64_t{3} << 32));
  __m256i lo = _mm256_set1_epi64x(-1 ^ static_cast<int64_t>(uint64_t{1} << 63));  // ~0, flipped
  __m256i hi = _mm256_set1_epi64x(static_cast<int64_t>(uint64_t{1} << 63));         // 0, flipped
  auto* words = reinterpret_cast<__m256i*>(segments);
  for (int l = 0; l < 32; l += 4) {
    const __m256i at = _mm256_add_epi64(four_lanes(base + l), add);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out.at + l), at);
    const __m256i key = _mm256_xor_si256(at, flip);
    lo = _mm256_blendv_epi8(lo, key, _mm256_cmpgt_epi64(lo, key));
    hi = _mm256_blendv_epi8(hi, key, _mm256_cmpgt_epi64(key, hi));
    // [a0 t0 | a2 t2] and [a1 t1 | a3 t3] -> a0 t0 a1 t1, a2 t2 a3 t3.
    const __m256i even = _mm256_unpacklo_epi64(at, tail), odd = _mm256_unpackhi_epi64(at, tail);
    _mm256_storeu_si256(words + l / 2, _mm256_permute2x128_si256(even, odd, 0x20));
    _mm256_storeu_si256(words + l / 2 + 1, _mm256_permute2x128_si256(even, odd, 0x31));
    tail = _mm256_add_epi64(tail, step);
  }
  alignas(32) uint64_t lows[4], highs[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lows), _mm256_xor_si256(lo, flip));
  _mm256_store_si256(reinterpret_cast<__m256i*>(highs), _mm256_xor_si256(hi, flip));
  uint64_t l0 = lows[0], h0 = highs[0];
  for (int k = 1; k < 4; ++k) {
    l0 = lows[k] < l0 ? lows[k] : l0;
    h0 = highs[k] > h0 ? highs[k] : h0;
  }
  out.lo = l0;
  out.hi = h0;
}

}  // namespace

__attribute__((target("avx2"))) void whole_warp_addresses_avx2(const uint64_t* base, uint64_t offset, uint32_t bytes,
                                                               MemorySegment* segments, WarpAddresses& out) {
  addresses_avx2(base, offset, bytes, segments, out);
}
__attribute__((target("avx2"))) void whole_warp_addresses32_avx2(const uint32_t* base, uint64_t offset, uint32_t bytes,
                                                                 MemorySegment* segments, WarpAddresses& out) {
  addresses_avx2(base, offset, bytes, segments, out);
}
namespace {

// The lowest and highest unsigned 32-bit lane of eight.
__attribute__((target("avx2"))) inline uint32_t lowest_lane(__m256i v) {
  __m128i m = _mm_min_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0x4e));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_min_epu32(m, _mm_shuffle_epi32(m, 0xb1))));
}
__attribute__((target("avx2"))) inline uint32_t highest_lane(__m256i v) {
  __m128i m = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0x4e));
  return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_max_epu32(m, _mm_shuffle_epi32(m, 0xb1))));
}

// Eight lanes per step: the indices are 32-bit (signed, so below 2^31).
template <class D>
__attribute__((target("avx2"))) void lane_load4_avx2_of(const uint8_t* first, const uint32_t* at, uint32_t lo, D width,
                                                        D* d) {
  const __m256i low = _mm256_set1_epi32(static_cast<int>(lo));
  for (int l = 0; l < 32; l += 8) {
    const __m256i index = _mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + l)), low);
    const __m256i from_first = _mm256_sub_epi32(index, _mm256_broadcastd_epi32(_mm256_castsi256_si128(index)));
    const auto* lane0 = first + static_cast<uint32_t>(_mm_cvtsi128_si32(_mm256_castsi256_si128(index)));
    const bool consecutive =
        _mm256_movemask_epi8(_mm256_cmpeq_epi32(from_first, _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28))) == -1;
    const __m256i v = eight_words(lane0, consecutive, _mm256_testz_si256(from_first, from_first),
                                  [&]() __attribute__((target("avx2"))) {
      return _mm256_i32gather_epi32(reinterpret_cast<const int*>(lane0), from_first, 1);
    });
    store_eight(v, width, d + l);
  }
}

}  // namespace

__attribute__((target("avx2"))) bool lane_addresses32_avx2(const uint32_t* base, uint64_t offset, uint32_t* at,
                                                           uint64_t& lo, uint64_t& hi) {
  const __m256i add = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(offset)));
  __m256i lows = _mm256_set1_epi32(-1), highs = _mm256_setzero_si256();
  for (int l = 0; l < 32; l += 8) {
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base + l));
    lows = _mm256_min_epu32(lows, b);
    highs = _mm256_max_epu32(highs, b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(at + l), _mm256_add_epi32(b, add));
  }
  return range_of_sums(lowest_lane(lows), highest_lane(highs), offset, lo, hi);
}
__attribute__((target("avx2"))) void lane_load4_avx2(const uint8_t* first, const uint32_t* at, uint32_t lo,
                                                     uint64_t width, uint64_t* d) {
  lane_load4_avx2_of(first, at, lo, width, d);
}
__attribute__((target("avx2"))) void lane_load4_narrow_avx2(const uint8_t* first, const uint32_t* at, uint32_t lo,
                                                            uint32_t width, uint32_t* d) {
  lane_load4_avx2_of(first, at, lo, width, d);
}
#else
void whole_warp_load4_avx2(const uint8_t* first, const WarpAddresses& a, uint64_t width, uint64_t* d) {
  whole_warp_load4_portable(first, a, width, d);
}
void whole_warp_load4_narrow_avx2(const uint8_t* first, const WarpAddresses& a, uint32_t width, uint32_t* d) {
  whole_warp_load4_narrow_portable(first, a, width, d);
}
void whole_warp_addresses_avx2(const uint64_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                               WarpAddresses& out) {
  whole_warp_addresses_portable(base, offset, bytes, segments, out);
}
void whole_warp_addresses32_avx2(const uint32_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                 WarpAddresses& out) {
  whole_warp_addresses32_portable(base, offset, bytes, segments, out);
}
bool lane_addresses32_avx2(const uint32_t* base, uint64_t offset, uint32_t* at, uint64_t& lo, uint64_t& hi) {
  return lane_addresses32_portable(base, offset, at, lo, hi);
}
void lane_load4_avx2(const uint8_t* first, const uint32_t* at, uint32_t lo, uint64_t width, uint64_t* d) {
  lane_load4_portable(first, at, lo, width, d);
}
void lane_load4_narrow_avx2(const uint8_t* first, const uint32_t* at, uint32_t lo, uint32_t width, uint32_t* d) {
  lane_load4_narrow_portable(first, at, lo, width, d);
}
#endif

// Chosen once, so each call is one indirect jump and no check.
const WholeWarpAddressesFn whole_warp_addresses =
    host_has_avx2() ? &whole_warp_addresses_avx2 : &whole_warp_addresses_portable;
const WholeWarpAddresses32Fn whole_warp_addresses32 =
    host_has_avx2() ? &whole_warp_addresses32_avx2 : &whole_warp_addresses32_portable;
const WholeWarpLoad4Fn whole_warp_load4 = host_has_avx2() ? &whole_warp_load4_avx2 : &whole_warp_load4_portable;
const WholeWarpLoad4NarrowFn whole_warp_load4_narrow =
    host_has_avx2() ? &whole_warp_load4_narrow_avx2 : &whole_warp_load4_narrow_portable;

const LaneAddresses32Fn lane_addresses32 = host_has_avx2() ? &lane_addresses32_avx2 : &lane_addresses32_portable;
const LaneLoad4Fn lane_load4 = host_has_avx2() ? &lane_load4_avx2 : &lane_load4_portable;
const LaneLoad4NarrowFn lane_load4_narrow = host_has_avx2() ? &lane_load4_narrow_avx2 : &lane_load4_narrow_portable;

}  // namespace loom::simt
