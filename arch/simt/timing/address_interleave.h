// Address interleaving of L2 slices and DRAM channels. Consecutive lines go to consecutive
// units (a stream spreads evenly over all of them), and each block of `units` lines is
// rotated by a hash of the block number, so power-of-two strides do not pile onto one unit
// (a cheap stand-in for the XOR/IPOLY hashes of real GPUs).
#pragma once

#include <cstdint>

#include "arch/simt/timing/bit_ops.h"

namespace loom::simt {

// The unit of `line` among `units`, with the division by `units` worked out once: every L1
// miss asks for its L2 slice, and every DRAM access for its channel, and a 64-bit division
// by a run-time value is tens of cycles where a power of two is a shift. One unit (or
// fewer) is a remainder by 1: always unit 0.
class Interleave {
 public:
  explicit Interleave(int units = 1) : by_units_(static_cast<uint64_t>(units > 1 ? units : 1)) {}
  int unit_of(uint64_t line) const {
    const uint64_t block = by_units_.quotient(line);
    const uint64_t rotate = block ^ (block >> 5) ^ (block >> 11) ^ (block >> 17);
    return static_cast<int>(by_units_.remainder(line + rotate));
  }

 private:
  Divider by_units_;
};

inline int interleave(uint64_t line, int units) { return Interleave(units).unit_of(line); }

}  // namespace loom::simt
