// A full warp's addresses and segments (arch/simt/ptx/warp_addresses.h): the portable and
// the AVX2 versions against a plain reference, on random and extreme addresses, from wide
// and narrow registers and into both.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <vector>

#include "arch/simt/ptx/warp_addresses.h"
#include "sim/host_cpu.h"

using namespace loom::simt;

namespace {

// B: the address register's lanes, uint64_t (wide) or uint32_t (narrow, zero-extended).
template <class B, class F>
void check_against_reference(const B* base, uint64_t offset, uint32_t bytes, F f) {
  std::array<MemorySegment, 32> segments;
  std::memset(segments.data(), 0xab, sizeof segments);  // garbage, as a reused buffer holds
  WarpAddresses a{};
  f(base, offset, bytes, segments.data(), a);
  uint64_t lo = ~uint64_t{0}, hi = 0;
  for (int l = 0; l < 32; ++l) {
    const uint64_t at = uint64_t{base[l]} + offset;
    lo = std::min(lo, at);
    hi = std::max(hi, at);
    CHECK(a.at[l] == at);
    CHECK(segments[static_cast<size_t>(l)].address == at);
    CHECK(segments[static_cast<size_t>(l)].bytes == bytes);
    CHECK(segments[static_cast<size_t>(l)].lane == l);
  }
  CHECK(a.lo == lo);
  CHECK(a.hi == hi);
}

}  // namespace

TEST_CASE("simt functional: a full warp's addresses, their range and its segments") {
  std::mt19937_64 rng(11);
  std::array<uint64_t, 32> base;
  int avx2_checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int kind = trial % 4;
    for (int l = 0; l < 32; ++l) {
      const uint64_t r = rng();
      // Strided shared addresses, random 64-bit values (the top bit set half the time, where
      // a signed compare would order them wrongly), and values that wrap when offset.
      base[static_cast<size_t>(l)] = kind == 0 ? 4 * static_cast<uint64_t>(l) + (r % 64)
                                     : kind == 1 ? r
                                     : kind == 2 ? ~uint64_t{0} - (r % 100)
                                                 : (uint64_t{1} << 63) + (r % 1000) - 500;
    }
    const uint64_t offset = kind == 2 ? 50 : rng() % 4096;
    const uint32_t bytes = uint32_t{1} << (rng() % 5);
    check_against_reference(base.data(), offset, bytes, &whole_warp_addresses_portable);
    check_against_reference(base.data(), offset, bytes, whole_warp_addresses);
    // The same lanes' low 32 bits in a narrow register (shared addresses are 32-bit).
    std::array<uint32_t, 32> narrow;
    for (int l = 0; l < 32; ++l) narrow[static_cast<size_t>(l)] = static_cast<uint32_t>(base[static_cast<size_t>(l)]);
    check_against_reference(narrow.data(), offset, bytes, &whole_warp_addresses32_portable);
    check_against_reference(narrow.data(), offset, bytes, whole_warp_addresses32);
    if (loom::host_has_avx2()) {
      check_against_reference(base.data(), offset, bytes, &whole_warp_addresses_avx2);
      check_against_reference(narrow.data(), offset, bytes, &whole_warp_addresses32_avx2);
      ++avx2_checked;
    }
  }
  MESSAGE("AVX2 version checked in " << avx2_checked << " of 3000 trials (0 where the host has no AVX2)");
}

TEST_CASE("simt functional: a full warp's 32-bit loads from its checked range") {
  std::mt19937_64 rng(12);
  std::vector<uint8_t> memory(4096);
  for (uint8_t& b : memory) b = static_cast<uint8_t>(rng());
  for (int trial = 0; trial < 2000; ++trial) {
    WarpAddresses a{};
    const uint64_t origin = (uint64_t{1} << 40) + rng() % 1000;  // device addresses, not offsets
    a.lo = ~uint64_t{0};
    a.hi = 0;
    for (int l = 0; l < 32; ++l) {
      // Unaligned, repeated (broadcast) and scattered addresses, all inside `memory`.
      const uint64_t at = origin + (trial % 3 == 0 ? 4 * static_cast<uint64_t>(l) : trial % 3 == 1 ? 8 : rng() % 4000);
      a.at[l] = at;
      a.lo = std::min(a.lo, at);
      a.hi = std::max(a.hi, at);
    }
    const uint8_t* first = memory.data() + (a.lo - origin);
    const uint64_t width = trial % 2 ? 0xffffffffull : 0xffffull;
    std::array<uint64_t, 32> want, portable, chosen, avx2;
    for (int l = 0; l < 32; ++l) {
      uint32_t v;
      std::memcpy(&v, memory.data() + (a.at[l] - origin), 4);
      want[static_cast<size_t>(l)] = v & width;
    }
    whole_warp_load4_portable(first, a, width, portable.data());
    whole_warp_load4(first, a, width, chosen.data());
    CHECK(portable == want);
    CHECK(chosen == want);
    if (loom::host_has_avx2()) {
      whole_warp_load4_avx2(first, a, width, avx2.data());
      CHECK(avx2 == want);
    }
    // Into a narrow register: the same values in 32-bit lanes.
    std::array<uint32_t, 32> narrow_want, narrow_portable, narrow_chosen, narrow_avx2;
    for (int l = 0; l < 32; ++l) narrow_want[static_cast<size_t>(l)] = static_cast<uint32_t>(want[static_cast<size_t>(l)]);
    whole_warp_load4_narrow_portable(first, a, static_cast<uint32_t>(width), narrow_portable.data());
    whole_warp_load4_narrow(first, a, static_cast<uint32_t>(width), narrow_chosen.data());
    CHECK(narrow_portable == narrow_want);
    CHECK(narrow_chosen == narrow_want);
    if (loom::host_has_avx2()) {
      whole_warp_load4_narrow_avx2(first, a, static_cast<uint32_t>(width), narrow_avx2.data());
      CHECK(narrow_avx2 == narrow_want);
    }
  }
}

namespace {

// The lane form's addresses against 64-bit arithmetic: true exactly when every lane's
// 64-bit address is below 2^32, and then at[], lo and hi are those addresses.
void check_lane_addresses(const uint32_t* base, uint64_t offset, LaneAddresses32Fn f, int& taken) {
  uint64_t lo64 = ~uint64_t{0}, hi64 = 0;
  bool fits = true;
  for (int l = 0; l < 32; ++l) {
    const uint64_t at = uint64_t{base[l]} + offset;
    fits = fits && at <= 0xffffffffu;
    lo64 = std::min(lo64, at);
    hi64 = std::max(hi64, at);
  }
  std::array<uint32_t, 32> at;
  uint64_t lo = 0, hi = 0;
  const bool ok = f(base, offset, at.data(), lo, hi);
  REQUIRE(ok == fits);
  if (!ok) return;
  ++taken;
  CHECK(lo == lo64);
  CHECK(hi == hi64);
  for (int l = 0; l < 32; ++l) CHECK(at[static_cast<size_t>(l)] == uint64_t{base[l]} + offset);
}

}  // namespace

TEST_CASE("simt functional: a full warp's lane form (32-bit shared addresses) and its loads") {
  std::mt19937_64 rng(13);
  std::vector<uint8_t> memory(8192);
  for (uint8_t& b : memory) b = static_cast<uint8_t>(rng());
  int taken = 0, avx2_checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int kind = trial % 5;
    std::array<uint32_t, 32> base;
    for (int l = 0; l < 32; ++l) {
      const uint32_t r = static_cast<uint32_t>(rng());
      // Strided shared addresses, broadcasts, scattered ones, and lanes near 2^32 whose
      // sums cross it for some lanes only (or all: a negative offset brings them back).
      base[static_cast<size_t>(l)] = kind == 0 ? 4 * static_cast<uint32_t>(l) + (r % 64)
                                     : kind == 1 ? 64
                                     : kind == 2 ? r % 4000
                                     : kind == 3 ? 0xffffffffu - (r % 4000)
                                                 : r;
    }
    // Positive offsets, negative ones (as PTX's [%r - 8]) and ones past 2^32.
    const uint64_t offsets[] = {rng() % 4096, ~uint64_t{0} - rng() % 64, uint64_t{1} << 32, 0 - uint64_t{0xffffff00u}};
    for (const uint64_t offset : offsets) {
      check_lane_addresses(base.data(), offset, &lane_addresses32_portable, taken);
      check_lane_addresses(base.data(), offset, lane_addresses32, taken);
      if (loom::host_has_avx2()) {
        check_lane_addresses(base.data(), offset, &lane_addresses32_avx2, taken);
        ++avx2_checked;
      }
    }
    if (kind > 2) continue;
    // Loads through the lane form, wide and narrow, against byte-by-byte reads.
    std::array<uint32_t, 32> at;
    uint64_t lo = 0, hi = 0;
    REQUIRE(lane_addresses32_portable(base.data(), 3, at.data(), lo, hi));
    const uint64_t width = trial % 2 ? 0xffffffffull : 0xffffull;
    std::array<uint64_t, 32> want, got;
    std::array<uint32_t, 32> narrow_want, narrow_got;
    for (int l = 0; l < 32; ++l) {
      uint32_t v;
      std::memcpy(&v, memory.data() + at[static_cast<size_t>(l)], 4);
      want[static_cast<size_t>(l)] = v & width;
      narrow_want[static_cast<size_t>(l)] = static_cast<uint32_t>(v & width);
    }
    const uint8_t* first = memory.data() + lo;
    for (LaneLoad4Fn f : {&lane_load4_portable, lane_load4, loom::host_has_avx2() ? &lane_load4_avx2 : lane_load4}) {
      got.fill(0);
      f(first, at.data(), static_cast<uint32_t>(lo), width, got.data());
      CHECK(got == want);
    }
    for (LaneLoad4NarrowFn f : {&lane_load4_narrow_portable, lane_load4_narrow,
                                loom::host_has_avx2() ? &lane_load4_narrow_avx2 : lane_load4_narrow}) {
      narrow_got.fill(0);
      f(first, at.data(), static_cast<uint32_t>(lo), static_cast<uint32_t>(width), narrow_got.data());
      CHECK(narrow_got == narrow_want);
    }
  }
  CHECK(taken > 3000);  // the lane form was taken often, and refused where sums cross 2^32
  MESSAGE("AVX2 version checked in " << avx2_checked << " cases (0 where the host has no AVX2)");
}

namespace {

// Lane l's byte offset in a warp whose eight-lane groups each take one pattern: consecutive
// words, one word for all, either of those with one lane moved (a near miss the one-load
// paths must not take), or scattered. Groups start at unrelated offsets.
std::array<uint32_t, 32> patterned_offsets(std::mt19937_64& rng, uint32_t span) {
  std::array<uint32_t, 32> off{};
  for (int g = 0; g < 4; ++g) {
    const int kind = static_cast<int>(rng() % 5);
    const uint32_t start = 16 + static_cast<uint32_t>(rng() % (span - 64));  // room for a lane moved down
    for (int i = 0; i < 8; ++i) {
      const auto l = static_cast<size_t>(8 * g + i);
      off[l] = kind == 0 || kind == 2 ? start + 4 * static_cast<uint32_t>(i)
               : kind == 1 || kind == 3 ? start
                                        : 8 + static_cast<uint32_t>(rng() % (span - 16));
    }
    if (kind == 2 || kind == 3) {  // one lane (lane 0 included) moved by a few bytes or words
      const auto l = static_cast<size_t>(8 * g) + rng() % 8;
      const uint32_t by = (rng() % 2 ? 4u : 1u) * (1 + static_cast<uint32_t>(rng() % 3));
      off[l] = rng() % 2 ? off[l] + by : off[l] - by;
    }
  }
  return off;
}

}  // namespace

TEST_CASE("simt functional: loads whose eight-lane groups read consecutive words, one word, or nearly so") {
  // The AVX2 loads read a group of eight consecutive or identical words with one plain load;
  // a group that misses either pattern by one lane must still be gathered lane by lane.
  std::mt19937_64 rng(14);
  const uint32_t span = 1024;
  std::vector<uint8_t> memory(span + 64);
  for (uint8_t& b : memory) b = static_cast<uint8_t>(rng());
  for (int trial = 0; trial < 4000; ++trial) {
    const std::array<uint32_t, 32> off = patterned_offsets(rng, span);
    const uint32_t width = trial % 2 ? 0xffffffffu : 0xffffu;
    std::array<uint32_t, 32> want;
    for (int l = 0; l < 32; ++l) {
      uint32_t v;
      std::memcpy(&v, memory.data() + off[static_cast<size_t>(l)], 4);
      want[static_cast<size_t>(l)] = v & width;
    }
    // The lane form (32-bit shared addresses): base registers plus an offset.
    std::array<uint32_t, 32> base, at;
    for (int l = 0; l < 32; ++l) base[static_cast<size_t>(l)] = off[static_cast<size_t>(l)] - 3;
    uint64_t lo = 0, hi = 0;
    REQUIRE(lane_addresses32(base.data(), 3, at.data(), lo, hi));
    const uint8_t* first = memory.data() + lo;
    for (LaneLoad4NarrowFn f : {&lane_load4_narrow_portable, lane_load4_narrow,
                                loom::host_has_avx2() ? &lane_load4_narrow_avx2 : lane_load4_narrow}) {
      std::array<uint32_t, 32> got{};
      f(first, at.data(), static_cast<uint32_t>(lo), width, got.data());
      CHECK(got == want);
    }
    for (LaneLoad4Fn f : {&lane_load4_portable, lane_load4, loom::host_has_avx2() ? &lane_load4_avx2 : lane_load4}) {
      std::array<uint64_t, 32> got{};
      f(first, at.data(), static_cast<uint32_t>(lo), width, got.data());
      for (int l = 0; l < 32; ++l) CHECK(got[static_cast<size_t>(l)] == want[static_cast<size_t>(l)]);
    }
    // The 64-bit form (global addresses), from a device address far above 2^32.
    const uint64_t origin = uint64_t{1} << 40;
    WarpAddresses a{};
    a.lo = ~uint64_t{0};
    a.hi = 0;
    for (int l = 0; l < 32; ++l) {
      a.at[l] = origin + off[static_cast<size_t>(l)];
      a.lo = std::min(a.lo, a.at[l]);
      a.hi = std::max(a.hi, a.at[l]);
    }
    const uint8_t* wide_first = memory.data() + (a.lo - origin);
    std::array<uint32_t, 32> narrow{}, narrow_avx2{};
    std::array<uint64_t, 32> wide{}, wide_avx2{};
    whole_warp_load4_narrow(wide_first, a, width, narrow.data());
    whole_warp_load4(wide_first, a, width, wide.data());
    CHECK(narrow == want);
    for (int l = 0; l < 32; ++l) CHECK(wide[static_cast<size_t>(l)] == want[static_cast<size_t>(l)]);
    if (loom::host_has_avx2()) {
      whole_warp_load4_narrow_avx2(wide_first, a, width, narrow_avx2.data());
      whole_warp_load4_avx2(wide_first, a, width, wide_avx2.data());
      CHECK(narrow_avx2 == want);
      CHECK(wide_avx2 == wide);
    }
  }
}
