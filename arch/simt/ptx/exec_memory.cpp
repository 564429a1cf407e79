// ld and st for every state space, scalar and .v2/.v4, and the memory-fault message.
#include <algorithm>
#include <cstdio>

#include "arch/simt/ptx/exec_handlers.h"
#include "arch/simt/ptx/memory_access.h"
#include "arch/simt/ptx/warp_addresses.h"
#include "sim/error.h"

namespace loom::simt {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

const char* space_name(MemorySpace s) {
  switch (s) {
    case MemorySpace::global: return "global";
    case MemorySpace::shared: return "shared";
    case MemorySpace::local: return "local";
    case MemorySpace::param: return "param";
    case MemorySpace::constant: return "const";
    default: return "generic";
  }
}

// Shared accesses (and generic ones, which may resolve to shared) report the bytes their
// lanes span (ExecutedInstruction::span_begin/end) for the bank-conflict pass; nothing
// reads the span of other spaces, so they skip the per-lane cost.
template <MemorySpace S>
constexpr bool kSpan = S == MemorySpace::shared || S == MemorySpace::none;

// A full warp in global or shared memory with an address register (the usual case) is
// checked once for the whole range its lanes touch, [lowest, highest + Total): when that
// lies inside one allocation (global) or the CTA's shared memory, so does every lane, and
// the data moves in one pass without a check per lane (warp_addresses.h has the addresses
// and segments). Otherwise (a fault, a warp spread over two allocations, a partial warp) the
// lane loop runs, which checks lane by lane, rewrites the segments and names the first bad
// lane.
template <MemorySpace S>
constexpr bool kWholeWarpPath = S == MemorySpace::global || S == MemorySpace::shared;

// The addresses of a full warp from a wide or a narrow address register.
inline void whole_warp_addresses_of(const uint64_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                    WarpAddresses& out) {
  whole_warp_addresses(base, offset, bytes, segments, out);
}
inline void whole_warp_addresses_of(const uint32_t* base, uint64_t offset, uint32_t bytes, MemorySegment* segments,
                                    WarpAddresses& out) {
  whole_warp_addresses32(base, offset, bytes, segments, out);
}

// Host pointer to `a.lo`, or nullptr when [a.lo, a.hi + Total) is not inside one window.
template <MemorySpace S, uint32_t Total>
uint8_t* whole_warp_range(const WarpContext& c, const WarpAddresses& a) {
  if (a.hi - a.lo > (uint64_t{1} << 40)) return nullptr;  // not one window; keeps the sum below from wrapping
  return range_at<S>(c, a.lo, a.hi - a.lo + Total);
}

template <MemorySpace S, uint32_t Total>
void record_whole_warp(WarpContext& c, const WarpAddresses& a) {
  c.out->n_segments = 32;
  c.out->space = S;
  if constexpr (kSpan<S>) {
    c.out->span_begin = a.lo;
    c.out->span_end = a.hi + Total;
  }
}

// A full warp's 4-byte shared ld/st from a narrow address register (the tiled GEMM's
// inner loop) reports the lane form (ExecutedInstruction::lane_bytes): 32-bit addresses
// and no segments.
template <MemorySpace S, int Bytes, int Vec, class A>
constexpr bool kLaneForm = S == MemorySpace::shared && Bytes == 4 && Vec == 1 && sizeof(A) == 4;

// Records the lane form of such an access and returns the host pointer to its lowest
// address; nullptr, with nothing recorded, where the addresses wrap or leave the CTA's
// shared memory (the general path then runs, and names a faulting lane).
template <uint32_t Total>
[[gnu::always_inline]] inline uint8_t* record_lane_form(WarpContext& c, const uint32_t* base, uint64_t offset) {
  uint64_t lo, hi;
  if (!lane_addresses32(base, offset, c.out->lane_address.data(), lo, hi)) return nullptr;
  uint8_t* first = range_at<MemorySpace::shared>(c, lo, hi - lo + Total);
  if (!first || hi - lo >= (uint64_t{1} << 31)) return nullptr;  // the gather's indices are signed 32-bit
  c.out->lane_bytes = Total;
  c.out->space = MemorySpace::shared;
  c.out->span_begin = lo;
  c.out->span_end = hi + Total;
  return first;
}

// The lane loop of ld and st: each active lane's address is checked (a fault names the
// lane), recorded as a segment, and handed with its host pointer to `move(p, lane)`, which
// moves the data; then the instruction's segment count, space and (shared) span are set.
template <MemorySpace S, uint32_t Total, class A, class Move>
inline void access_lane_by_lane(WarpContext& c, const A* base, uint64_t offset, uint32_t mask, Move&& move) {
  MemorySpace space = S;
  SpaceWindow<S> window(c);
  MemorySegment* segments = c.out->segments.data();
  int n = 0;
  uint64_t lo = ~uint64_t{0}, hi = 0;
  for_each_lane(mask, [&](int l) {
    uint64_t where;
    uint8_t* p = window.at((base ? uint64_t{base[l]} : 0) + offset, Total, l, where, space);
    segments[n] = {where, Total, static_cast<uint8_t>(l)};
    ++n;
    if constexpr (kSpan<S>) {
      lo = std::min(lo, where);
      hi = std::max(hi, where);
    }
    move(p, l);
  });
  c.out->n_segments = static_cast<uint16_t>(n);
  c.out->space = space;
  if (kSpan<S> && n > 0) {
    c.out->span_begin = lo;
    c.out->span_end = hi + Total;
  }
}

// Loads Vec elements of Bytes each; narrower signed values sign-extend into the register
// (kFlagSigned), and aux masks the result to the register's width. Everything the lane loop
// needs is in locals (see SpaceWindow). L and A: the value and address registers' lanes,
// uint64_t (wide) or uint32_t (narrow twins, register_slots.h).
template <MemorySpace S, int Bytes, int Vec, class L = uint64_t, class A = uint64_t>
void load(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  const A* base = i.address != kNoOperand ? c.src_as<A>(i.address) : nullptr;
  constexpr uint32_t kTotal = Bytes * Vec;
  L* d[Vec];
  for (int k = 0; k < Vec; ++k) d[k] = c.dst_as<L>(i.dst[k]);
  const bool sign = (i.flags & DecodedInstruction::kFlagSigned) && Bytes < 8;
  constexpr int kShift = 64 - 8 * Bytes;
  const uint64_t width = i.aux, offset = static_cast<uint64_t>(i.offset);
  if constexpr (kLaneForm<S, Bytes, Vec, A>) {
    if (mask == kFullMask && base && !sign)
      if (const uint8_t* first = record_lane_form<kTotal>(c, base, offset)) {
        const auto lo = static_cast<uint32_t>(c.out->span_begin);
        if constexpr (sizeof(L) == 8) lane_load4(first, c.out->lane_address.data(), lo, width, d[0]);
        else lane_load4_narrow(first, c.out->lane_address.data(), lo, static_cast<uint32_t>(width), d[0]);
        return;
      }
  }
  if constexpr (kWholeWarpPath<S>) {
    WarpAddresses a;
    if (mask == kFullMask && base) {
      whole_warp_addresses_of(base, offset, kTotal, c.out->segments.data(), a);
      if (const uint8_t* first = whole_warp_range<S, kTotal>(c, a)) {
        if constexpr (Bytes == 4 && Vec == 1) {
          if (!sign) {  // the usual 32-bit load: one gather, no sign to extend
            if constexpr (sizeof(L) == 8) whole_warp_load4(first, a, width, d[0]);
            else whole_warp_load4_narrow(first, a, static_cast<uint32_t>(width), d[0]);
            record_whole_warp<S, kTotal>(c, a);
            return;
          }
        }
        for (int l = 0; l < 32; ++l)
          for (int k = 0; k < Vec; ++k) {
            uint64_t v = read_le<Bytes>(first + (a.at[l] - a.lo) + k * Bytes);
            if (sign) v = static_cast<uint64_t>(static_cast<int64_t>(v << kShift) >> kShift);
            d[k][l] = static_cast<L>(v & width);
          }
        record_whole_warp<S, kTotal>(c, a);
        return;
      }
    }
  }
  access_lane_by_lane<S, kTotal>(c, base, offset, mask, [&](const uint8_t* p, int l) {
    for (int k = 0; k < Vec; ++k) {
      uint64_t v = read_le<Bytes>(p + k * Bytes);
      if (sign) v = static_cast<uint64_t>(static_cast<int64_t>(v << kShift) >> kShift);
      d[k][l] = static_cast<L>(v & width);
    }
  });
}

template <MemorySpace S, int Bytes, int Vec, class L = uint64_t, class A = uint64_t>
void store(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  const A* base = i.address != kNoOperand ? c.src_as<A>(i.address) : nullptr;
  constexpr uint32_t kTotal = Bytes * Vec;
  const L* s[Vec];
  for (int k = 0; k < Vec; ++k) s[k] = c.src_as<L>(i.src[k]);
  const uint64_t offset = static_cast<uint64_t>(i.offset);
  if constexpr (kLaneForm<S, Bytes, Vec, A>) {
    if (mask == kFullMask && base)
      if (uint8_t* first = record_lane_form<kTotal>(c, base, offset)) {
        const uint32_t* at = c.out->lane_address.data();
        const auto lo = static_cast<uint32_t>(c.out->span_begin);
        for (int l = 0; l < 32; ++l) write_le<Bytes>(first + (at[l] - lo), s[0][l]);  // in lane order, as below
        return;
      }
  }
  if constexpr (kWholeWarpPath<S>) {
    WarpAddresses a;
    if (mask == kFullMask && base) {
      whole_warp_addresses_of(base, offset, kTotal, c.out->segments.data(), a);
      if (uint8_t* first = whole_warp_range<S, kTotal>(c, a)) {
        for (int l = 0; l < 32; ++l)  // in lane order: the highest lane's write to a shared address wins
          for (int k = 0; k < Vec; ++k) write_le<Bytes>(first + (a.at[l] - a.lo) + k * Bytes, s[k][l]);
        record_whole_warp<S, kTotal>(c, a);
        return;
      }
    }
  }
  access_lane_by_lane<S, kTotal>(c, base, offset, mask, [&](uint8_t* p, int l) {
    for (int k = 0; k < Vec; ++k) write_le<Bytes>(p + k * Bytes, s[k][l]);
  });
}

template <MemorySpace S, int Bytes, class L, class A>
ExecFn load_vec(int vec) {
  return vec == 4 ? &load<S, Bytes, 4, L, A> : vec == 2 ? &load<S, Bytes, 2, L, A> : &load<S, Bytes, 1, L, A>;
}
template <MemorySpace S, int Bytes, class L, class A>
ExecFn store_vec(int vec) {
  return vec == 4 ? &store<S, Bytes, 4, L, A> : vec == 2 ? &store<S, Bytes, 2, L, A> : &store<S, Bytes, 1, L, A>;
}

// The narrow twins (L = uint32_t) exist for elements of at most 4 bytes.
template <MemorySpace S, class L, class A>
ExecFn load_for(int bytes, int vec) {
  switch (bytes) {
    case 1: return load_vec<S, 1, L, A>(vec);
    case 2: return load_vec<S, 2, L, A>(vec);
    case 4: return load_vec<S, 4, L, A>(vec);
    case 8:
      if constexpr (sizeof(L) == 8) return load_vec<S, 8, L, A>(vec);
      else return nullptr;
    default: return nullptr;
  }
}
template <MemorySpace S, class L, class A>
ExecFn store_for(int bytes, int vec) {
  switch (bytes) {
    case 1: return store_vec<S, 1, L, A>(vec);
    case 2: return store_vec<S, 2, L, A>(vec);
    case 4: return store_vec<S, 4, L, A>(vec);
    case 8:
      if constexpr (sizeof(L) == 8) return store_vec<S, 8, L, A>(vec);
      else return nullptr;
    default: return nullptr;
  }
}

template <class L, class A>
ExecFn load_lanes(MemorySpace space, int bytes, int vec) {
  switch (space) {
    case MemorySpace::global: return load_for<MemorySpace::global, L, A>(bytes, vec);
    case MemorySpace::shared: return load_for<MemorySpace::shared, L, A>(bytes, vec);
    case MemorySpace::local: return load_for<MemorySpace::local, L, A>(bytes, vec);
    case MemorySpace::param: return load_for<MemorySpace::param, L, A>(bytes, vec);
    case MemorySpace::constant: return load_for<MemorySpace::constant, L, A>(bytes, vec);
    default: return load_for<MemorySpace::none, L, A>(bytes, vec);
  }
}

template <class L, class A>
ExecFn store_lanes(MemorySpace space, int bytes, int vec) {
  switch (space) {
    case MemorySpace::global: return store_for<MemorySpace::global, L, A>(bytes, vec);
    case MemorySpace::shared: return store_for<MemorySpace::shared, L, A>(bytes, vec);
    case MemorySpace::local: return store_for<MemorySpace::local, L, A>(bytes, vec);
    case MemorySpace::none: return store_for<MemorySpace::none, L, A>(bytes, vec);
    default: return nullptr;
  }
}

}  // namespace

void memory_fault(const WarpContext& c, MemorySpace space, uint64_t address, uint32_t bytes, int lane) {
  const Dim3& block = c.launch->block;
  const uint32_t t = c.warp_index * 32 + static_cast<uint32_t>(lane);
  const uint32_t tx = t % block.x, ty = (t / block.x) % block.y, tz = t / (block.x * block.y);
  const Dim3& cta = c.cta->ctaid;
  const StaticInstruction& inst = *c.out->inst;
  std::string where;
  switch (space) {
    case MemorySpace::global: where = "global address " + c.launch->memory->describe(address); break;
    case MemorySpace::shared:
      where = "shared address " + hex(address) + " (the CTA has " + std::to_string(c.cta->shared.size()) + " bytes of shared memory)";
      break;
    case MemorySpace::local:
      where = "local address " + hex(address) + " (each thread has " + std::to_string(c.launch->kernel->local_bytes) + " bytes of local memory)";
      break;
    case MemorySpace::param:
      where = "parameter offset " + hex(address) + " (the kernel has " + std::to_string(c.launch->params.size()) + " bytes of parameters)";
      break;
    default:
      where = "constant address " + hex(address) + " (the module has " + std::to_string(c.launch->kernel->constant_bank.size()) + " bytes of .const data)";
      break;
  }
  throw InputError(c.launch->kernel->source_name, "line " + std::to_string(inst.line),
                   "out-of-bounds " + std::string(space_name(space)) + " access by thread (ctaid " + std::to_string(cta.x) + "," +
                       std::to_string(cta.y) + "," + std::to_string(cta.z) + "; tid " + std::to_string(tx) + "," +
                       std::to_string(ty) + "," + std::to_string(tz) + ") of kernel '" + c.launch->kernel->name + "': " +
                       std::to_string(bytes) + " bytes at " + where + " in '" + inst.text +
                       "'; expected every access inside memory the launch provides (check sizes and launch dimensions)");
}

MemoryHandlers select_load(MemorySpace space, int bytes, int vec) {
  return {load_lanes<uint64_t, uint64_t>(space, bytes, vec), load_lanes<uint32_t, uint64_t>(space, bytes, vec),
          load_lanes<uint64_t, uint32_t>(space, bytes, vec), load_lanes<uint32_t, uint32_t>(space, bytes, vec)};
}
MemoryHandlers select_store(MemorySpace space, int bytes, int vec) {
  return {store_lanes<uint64_t, uint64_t>(space, bytes, vec), store_lanes<uint32_t, uint64_t>(space, bytes, vec),
          store_lanes<uint64_t, uint32_t>(space, bytes, vec), store_lanes<uint32_t, uint32_t>(space, bytes, vec)};
}

}  // namespace loom::simt
