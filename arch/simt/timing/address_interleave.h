// Address interleaving of L2 slices and DRAM channels. Consecutive lines go to consecutive
// units (a stream spreads evenly over all of them), and each block of `units` lines is
// rotated by a hash of the block number, so power-of-two strides do not pile onto one unit
// (a cheap stand-in for the XOR/IPOLY hashes of real GPUs).
#pragma once

#include <cstdint>

namespace loom::simt {

inline int interleave(uint64_t line, int units) {
  if (units <= 1) return 0;
  const uint64_t block = line / static_cast<uint64_t>(units);
  const uint64_t rotate = block ^ (block >> 5) ^ (block >> 11) ^ (block >> 17);
  return static_cast<int>((line + rotate) % static_cast<uint64_t>(units));
}

}  // namespace loom::simt
