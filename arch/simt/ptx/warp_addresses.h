// The addresses of a full warp's ld/st (every lane active, the usual case): each lane's
// address, the lowest and highest of them (one range check then covers every lane), and the
// instruction's memory segments {address, bytes, lane}. The memory handlers run this for
// every full-warp access, so it has a vector version (AVX2, four lanes per operation) chosen
// at run time where the host has it; both give the same bytes (tests/test_simt_warp_addresses.cpp).
#pragma once

#include <cstdint>

#include "arch/simt/warp_instruction.h"

namespace loom::simt {

struct WarpAddresses {
  uint64_t at[32];
  uint64_t lo, hi;
};

// at[l] = base[l] + offset (wrapping), and segments[l] = {at[l], bytes, l} for l = 0..31.
using WholeWarpAddressesFn = void (*)(const uint64_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                      WarpAddresses& out);
extern const WholeWarpAddressesFn whole_warp_addresses;
// The same from a narrow address register (32-bit lanes, register_slots.h).
using WholeWarpAddresses32Fn = void (*)(const uint32_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                        WarpAddresses& out);
extern const WholeWarpAddresses32Fn whole_warp_addresses32;

// d[l] = the 4 bytes at first + (at[l] - lo), zero-extended, & width, for l = 0..31: a
// full warp's 32-bit loads once its range is known to be inside the memory `first` points
// into (a.hi - a.lo < 2^40).
using WholeWarpLoad4Fn = void (*)(const uint8_t* first, const WarpAddresses& a, uint64_t width, uint64_t* d);
extern const WholeWarpLoad4Fn whole_warp_load4;
// The same into a narrow register (32-bit lanes, register_slots.h).
using WholeWarpLoad4NarrowFn = void (*)(const uint8_t* first, const WarpAddresses& a, uint32_t width, uint32_t* d);
extern const WholeWarpLoad4NarrowFn whole_warp_load4_narrow;

// The lane form of a full warp's 4-byte shared access (ExecutedInstruction::lane_bytes),
// from a narrow address register: at[l] = base[l] + offset in 32 bits, and lo and hi the
// lowest and highest of them. False (at[] unspecified) where a lane's 64-bit address
// base[l] + offset is not its 32-bit sum (the sum wraps), for the general path to take.
using LaneAddresses32Fn = bool (*)(const uint32_t* base, uint64_t offset, uint32_t* at, uint64_t& lo, uint64_t& hi);
extern const LaneAddresses32Fn lane_addresses32;
// d[l] = the 4 bytes at first + (at[l] - lo), zero-extended, & width, for l = 0..31, once
// every at[l] - lo is known to be below 2^31 and inside the memory `first` points into.
using LaneLoad4Fn = void (*)(const uint8_t* first, const uint32_t* at, uint32_t lo, uint64_t width, uint64_t* d);
extern const LaneLoad4Fn lane_load4;
// The same into a narrow register (32-bit lanes, register_slots.h).
using LaneLoad4NarrowFn = void (*)(const uint8_t* first, const uint32_t* at, uint32_t lo, uint32_t width, uint32_t* d);
extern const LaneLoad4NarrowFn lane_load4_narrow;

// The two versions of each, for tests; the AVX2 ones only where loom::host_has_avx2().
void whole_warp_load4_portable(const uint8_t* first, const WarpAddresses& a, uint64_t width, uint64_t* d);
void whole_warp_load4_avx2(const uint8_t* first, const WarpAddresses& a, uint64_t width, uint64_t* d);
void whole_warp_load4_narrow_portable(const uint8_t* first, const WarpAddresses& a, uint32_t width, uint32_t* d);
void whole_warp_load4_narrow_avx2(const uint8_t* first, const WarpAddresses& a, uint32_t width, uint32_t* d);
void whole_warp_addresses_portable(const uint64_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                   WarpAddresses& out);
void whole_warp_addresses_avx2(const uint64_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                               WarpAddresses& out);
void whole_warp_addresses32_portable(const uint32_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                     WarpAddresses& out);
void whole_warp_addresses32_avx2(const uint32_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                 WarpAddresses& out);

bool lane_addresses32_portable(const uint32_t* base, uint64_t offset, uint32_t* at, uint64_t& lo, uint64_t& hi);
bool lane_addresses32_avx2(const uint32_t* base, uint64_t offset, uint32_t* at, uint64_t& lo, uint64_t& hi);
void lane_load4_portable(const uint8_t* first, const uint32_t* at, uint32_t lo, uint64_t width, uint64_t* d);
void lane_load4_avx2(const uint8_t* first, const uint32_t* at, uint32_t lo, uint64_t width, uint64_t* d);
void lane_load4_narrow_portable(const uint8_t* first, const uint32_t* at, uint32_t lo, uint32_t width, uint32_t* d);
void lane_load4_narrow_avx2(const uint8_t* first, const uint32_t* at, uint32_t lo, uint32_t width, uint32_t* d);

}  // namespace loom::simt
