// Bit tricks for the per-instruction paths. loom is built for baseline x86-64 (no POPCNT),
// where std::popcount becomes a call into libgcc; and line, sector and bank sizes are
// almost always powers of two, where a shift beats a 64-bit division by a runtime value.
#pragma once

#include <bit>
#include <cstdint>

#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

// std::has_single_bit is a popcount, so also a libgcc call on baseline x86-64.
constexpr bool is_power_of_two(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

inline int bit_count(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return static_cast<int>((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

// bit_count of a line's sector mask, which has at most kMaxSectorsPerLine (4) bits
// (check_timing_config): nibble m of the constant holds the count of m. Every L1 and L2
// access counts its sectors two or three times.
inline int sector_count(uint32_t mask) {
  static_assert(kMaxSectorsPerLine <= 4);
  return static_cast<int>((0x4332322132212110ull >> (4 * mask)) & 0xf);
}

// Division and remainder by a divisor fixed at configuration time.
class Divider {
 public:
  Divider() = default;
  explicit Divider(uint64_t d) : d_(d), shift_(is_power_of_two(d) ? std::countr_zero(d) : -1) {}
  uint64_t quotient(uint64_t x) const { return shift_ >= 0 ? x >> shift_ : x / d_; }
  uint64_t remainder(uint64_t x) const { return shift_ >= 0 ? x & (d_ - 1) : x % d_; }

 private:
  uint64_t d_ = 1;
  int shift_ = 0;
};

}  // namespace loom::simt
