#include "arch/simt/timing/ready_scan.h"

#include <algorithm>

#include "sim/host_cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define LOOM_READY_SCAN_AVX2 1
#endif

namespace loom::simt {

ReadyScan scan_ready_portable(const int64_t* ready_at, size_t count, int64_t now, int64_t never) {
  // Four independent minima, so the loop is not one long chain of dependent compares.
  uint64_t ready = 0;
  int64_t s0 = never, s1 = never, s2 = never, s3 = never;
  auto visit = [&](size_t i, int64_t& soon) {
    const int64_t r = ready_at[i];
    ready |= static_cast<uint64_t>(r <= now) << i;
    soon = std::min(soon, r > now ? r : never);
  };
  size_t i = 0;
  for (; i + 4 <= count; i += 4) {
    visit(i, s0);
    visit(i + 1, s1);
    visit(i + 2, s2);
    visit(i + 3, s3);
  }
  for (; i < count; ++i) visit(i, s0);
  return {ready, std::min(std::min(s0, s1), std::min(s2, s3))};
}

uint64_t scan_waking_portable(const int64_t* ready_at, size_t count, int64_t from, int64_t last) {
  uint64_t waking = 0;
  for (size_t i = 0; i < count; ++i)
    waking |= static_cast<uint64_t>(ready_at[i] > from && ready_at[i] <= last) << i;
  return waking;
}

#ifdef LOOM_READY_SCAN_AVX2
namespace {
// Four warps: their `later` bits (ready_at > now) and the running per-lane minimum of those
// later cycles (the others count as `never`).
__attribute__((target("avx2"))) inline void scan4(__m256i r, __m256i t, __m256i none, __m256i& soon, uint64_t& later,
                                                  size_t at) {
  const __m256i after = _mm256_cmpgt_epi64(r, t);
  later |= static_cast<uint64_t>(_mm256_movemask_pd(_mm256_castsi256_pd(after))) << at;
  const __m256i candidate = _mm256_blendv_epi8(none, r, after);
  soon = _mm256_blendv_epi8(soon, candidate, _mm256_cmpgt_epi64(soon, candidate));
}
__attribute__((target("avx2"))) inline __m256i load4(const int64_t* ready_at) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ready_at));
}
// The last 1-3 warps of a scan (n < 4); lanes past `n` load as 0, and nothing past the end
// is read.
__attribute__((target("avx2"))) inline __m256i load_tail(const int64_t* ready_at, size_t n) {
  alignas(32) static const int64_t kTailMasks[4][4] = {{0, 0, 0, 0}, {-1, 0, 0, 0}, {-1, -1, 0, 0}, {-1, -1, -1, 0}};
  const __m256i lanes = _mm256_load_si256(reinterpret_cast<const __m256i*>(kTailMasks[n]));
  return _mm256_maskload_epi64(reinterpret_cast<const long long*>(ready_at), lanes);
}
// Four warps' bits: ready after `lo` and not after `hi`.
__attribute__((target("avx2"))) inline uint64_t waking4(__m256i r, __m256i lo, __m256i hi) {
  const __m256i in = _mm256_andnot_si256(_mm256_cmpgt_epi64(r, hi), _mm256_cmpgt_epi64(r, lo));
  return static_cast<uint64_t>(_mm256_movemask_pd(_mm256_castsi256_pd(in)));
}
}  // namespace

__attribute__((target("avx2"))) ReadyScan scan_ready_avx2(const int64_t* ready_at, size_t count, int64_t now,
                                                           int64_t never) {
  const __m256i t = _mm256_set1_epi64x(now);
  const __m256i none = _mm256_set1_epi64x(never);
  __m256i soon = none;
  uint64_t later = 0;  // bit i: ready_at[i] > now
  size_t i = 0;
  for (; i + 4 <= count; i += 4) scan4(load4(ready_at + i), t, none, soon, later, i);
  // The last 1-3 warps; lanes past the end load as 0, which is never after `now`, so it adds
  // no `later` bit and no candidate (and `all` below drops its ready bit).
  if (i < count) scan4(load_tail(ready_at + i, count - i), t, none, soon, later, i);
  // The least of the four lanes, without leaving the registers.
  const __m256i halves = _mm256_permute4x64_epi64(soon, 0x4e);
  soon = _mm256_blendv_epi8(soon, halves, _mm256_cmpgt_epi64(soon, halves));
  const __m256i pairs = _mm256_shuffle_epi32(soon, 0x4e);
  soon = _mm256_blendv_epi8(soon, pairs, _mm256_cmpgt_epi64(soon, pairs));
  const uint64_t all = count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
  return {~later & all, _mm_cvtsi128_si64(_mm256_castsi256_si128(soon))};
}
__attribute__((target("avx2"))) uint64_t scan_waking_avx2(const int64_t* ready_at, size_t count, int64_t from,
                                                           int64_t last) {
  const __m256i lo = _mm256_set1_epi64x(from), hi = _mm256_set1_epi64x(last);
  uint64_t waking = 0;
  size_t i = 0;
  for (; i + 4 <= count; i += 4) waking |= waking4(load4(ready_at + i), lo, hi) << i;
  // The last 1-3 warps; lanes past the end load as 0, which is not after `from` (>= 0).
  if (i < count) waking |= waking4(load_tail(ready_at + i, count - i), lo, hi) << i;
  return waking;
}
#else
uint64_t scan_waking_avx2(const int64_t* ready_at, size_t count, int64_t from, int64_t last) {
  return scan_waking_portable(ready_at, count, from, last);
}
ReadyScan scan_ready_avx2(const int64_t* ready_at, size_t count, int64_t now, int64_t never) {
  return scan_ready_portable(ready_at, count, now, never);
}
#endif

// Chosen once, so each call is one indirect jump and no check.
const ScanReadyFn scan_ready = host_has_avx2() ? &scan_ready_avx2 : &scan_ready_portable;
const ScanWakingFn scan_waking = host_has_avx2() ? &scan_waking_avx2 : &scan_waking_portable;

}  // namespace loom::simt
