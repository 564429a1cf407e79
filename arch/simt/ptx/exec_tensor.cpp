// Warp-level matrix instructions: wmma.load/store/mma for m16n16k16 and mma.sync m16n8k16.
//
// WMMA fragment layout (implementation-defined in PTX; this is loom's, and load -> mma ->
// store and element-wise operations on fragments all agree with it). Tiles are 16x16,
// indexed in row-major order of the logical matrix (A: M x K, B: K x N, C/D: M x N),
// whatever the memory layout (.row/.col) was:
//   * accumulators (c, d): lane l holds elements 8l .. 8l+7 (row l/2, columns 8(l%2) ..
//     8(l%2)+7). f32: register k holds element 8l+k. f16: register r holds elements 8l+2r
//     (low half) and 8l+2r+1 (high half).
//   * a and b (f16/bf16, 8 registers = 16 halves): lane l holds row (l mod 16): register r
//     holds columns 2r (low half) and 2r+1 (high half). Lanes 16-31 repeat lanes 0-15, as
//     on Volta each element lives in more than one lane.
// mma.sync m16n8k16 uses the layout the PTX ISA specifies for that shape.
#include <array>
#include <cstring>

#include "arch/simt/ptx/exec_handlers.h"
#include "arch/simt/ptx/memory_access.h"
#include "arch/simt/ptx/warp_fragment_load.h"
#include "arch/simt/ptx/warp_mma.h"

namespace loom::simt {

namespace {

constexpr int kTile = 16;
using Tile = std::array<uint64_t, kTile * kTile>;  // element bits, row-major

// Every row (.row) or column (.col) of the tile in memory is 16 contiguous elements.
template <MemorySpace S>
uint8_t* line_at(WarpContext& c, uint64_t address, uint32_t bytes, int lane, int index, MemorySpace& space) {
  uint64_t where;
  uint8_t* p = resolve<S>(c, address, bytes, lane, where, space);
  c.add_segment(where, bytes, index);
  return p;
}

// The leading dimension in elements (aux: its operand, or kNoOperand for the default 16),
// read from the first active lane: PTX requires it to be warp-uniform. The address too is
// read at the first active lane only, in every path below: first_lane_results.h counts on
// both (DecodedInstruction::first_lane_address).
uint64_t stride_of(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  if (i.aux == kNoOperand) return kTile;
  if (i.flags & DecodedInstruction::kFlagAuxNarrow) return c.src_as<uint32_t>(static_cast<uint32_t>(i.aux))[first_lane(mask)];
  return c.src(static_cast<uint32_t>(i.aux))[first_lane(mask)] & 0xffffffffu;
}

// The element bits of logical (r, col) from memory laid out row- or column-major; elements
// of Bytes each.
template <MemorySpace S, int Bytes>
void load_tile(WarpContext& c, const DecodedInstruction& i, uint32_t mask, Tile& tile) {
  const int lane = static_cast<int>(first_lane(mask));
  const uint64_t base = (i.address != kNoOperand ? c.src(i.address)[lane] : 0) + static_cast<uint64_t>(i.offset);
  const uint64_t stride = stride_of(c, i, mask);
  const bool col_major = i.mode == 1;
  MemorySpace space = S;
  for (int line = 0; line < kTile; ++line) {
    const uint8_t* p = line_at<S>(c, base + line * stride * Bytes, kTile * Bytes, lane, line, space);
    for (int e = 0; e < kTile; ++e) tile[col_major ? e * kTile + line : line * kTile + e] = read_le<Bytes>(p + e * Bytes);
  }
  c.out->space = space;
}

template <MemorySpace S>
void store_tile(WarpContext& c, const DecodedInstruction& i, uint32_t mask, const Tile& tile) {
  const int lane = static_cast<int>(first_lane(mask));
  const uint64_t base = (i.address != kNoOperand ? c.src(i.address)[lane] : 0) + static_cast<uint64_t>(i.offset);
  const uint64_t stride = stride_of(c, i, mask);
  const int esize = type_bytes(i.type);
  const bool col_major = i.mode == 1;
  MemorySpace space = S;
  for (int line = 0; line < kTile; ++line) {
    uint8_t* p = line_at<S>(c, base + line * stride * esize, kTile * esize, lane, line, space);
    for (int e = 0; e < kTile; ++e) std::memcpy(p + e * esize, &tile[col_major ? e * kTile + line : line * kTile + e], esize);
  }
  c.out->space = space;
}

bool is_accumulator(const DecodedInstruction& i) { return i.op == 2; }

// Fragment registers <-> tile elements, per the layout above. L: the fragment registers'
// lanes, uint64_t (wide) or uint32_t (the narrow twins, register_slots.h).
template <class L>
void tile_to_fragment(WarpContext& c, const DecodedInstruction& i, uint32_t mask, const Tile& tile, bool accumulator,
                      PtxType type) {
  for_each_lane(mask, [&](int l) {
    if (accumulator && type == PtxType::f32) {
      for (int k = 0; k < 8; ++k) c.dst_as<L>(i.dst[k])[l] = static_cast<L>(tile[8 * l + k]);
    } else if (accumulator) {
      for (int r = 0; r < 4; ++r)
        c.dst_as<L>(i.dst[r])[l] = static_cast<L>(tile[8 * l + 2 * r] | tile[8 * l + 2 * r + 1] << 16);
    } else {
      const int row = l % kTile;
      for (int r = 0; r < 8; ++r)
        c.dst_as<L>(i.dst[r])[l] = static_cast<L>(tile[row * kTile + 2 * r] | tile[row * kTile + 2 * r + 1] << 16);
    }
  });
}

// The accumulator tile as fp32 values, from registers src[first .. ].
template <class L>
void accumulator_from_fragment(WarpContext& c, const DecodedInstruction& i, int first, PtxType type, std::array<float, 256>& out) {
  for (int l = 0; l < 32; ++l) {
    if (type == PtxType::f32) {
      for (int k = 0; k < 8; ++k) out[8 * l + k] = Repr<float>::load(c.src_as<L>(i.src[first + k])[l]);
    } else {
      for (int r = 0; r < 4; ++r) {
        const uint64_t v = c.src_as<L>(i.src[first + r])[l];
        out[8 * l + 2 * r] = half_to_float(static_cast<uint16_t>(v));
        out[8 * l + 2 * r + 1] = half_to_float(static_cast<uint16_t>(v >> 16));
      }
    }
  }
}

// A full warp's f16/bf16 a or b fragment read straight into its registers, once one check
// has put all 16 rows (or columns) inside one allocation or the shared memory; false (and
// nothing written) otherwise, and the line-by-line path names the fault. With rows in
// memory (.row), lane l's register r is the r-th 32-bit word of row l % 16; with columns
// (.col), the low half is element l % 16 of column 2r and the high half that of column 2r + 1.
template <MemorySpace S, class L>
bool load_operand_fragment(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  if constexpr (S != MemorySpace::global && S != MemorySpace::shared) {
    return false;
  } else {
    if (mask != kFullMask || is_accumulator(i) || type_bytes(i.type) != 2) return false;
    const uint64_t base = (i.address != kNoOperand ? c.src(i.address)[0] : 0) + static_cast<uint64_t>(i.offset);
    const uint64_t pitch = stride_of(c, i, mask) * 2;  // below 2^33: the span cannot wrap
    const uint64_t span = (kTile - 1) * pitch + 2 * kTile;
    const uint8_t* first = range_at<S>(c, base, span);
    if (!first) return false;
    for (int line = 0; line < kTile; ++line) c.add_segment(base + static_cast<uint64_t>(line) * pitch, 2 * kTile, line);
    c.out->space = S;
    L* regs[8];
    for (int r = 0; r < 8; ++r) regs[r] = c.dst_as<L>(i.dst[static_cast<size_t>(r)]);
    load_fragment<L>()(first, pitch, i.mode == 1, regs);  // mode 1: .col
    return true;
  }
}

template <MemorySpace S, class L = uint64_t>
void wmma_load(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  if (load_operand_fragment<S, L>(c, i, mask)) return;
  Tile tile;
  if (type_bytes(i.type) == 2) load_tile<S, 2>(c, i, mask, tile);
  else load_tile<S, 4>(c, i, mask, tile);
  tile_to_fragment<L>(c, i, mask, tile, is_accumulator(i), i.type);
}

template <MemorySpace S, class L = uint64_t>
void wmma_store(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  std::array<float, 256> values;
  accumulator_from_fragment<L>(c, i, 0, i.type, values);
  Tile tile;
  if (i.type == PtxType::f32) {
    for (int e = 0; e < 256; ++e) tile[e] = Repr<float>::store(values[e]);
  } else {
    for (int l = 0; l < 32; ++l)  // f16: copy the halves' bits without a round trip
      for (int r = 0; r < 4; ++r) {
        const uint64_t v = c.src_as<L>(i.src[r])[l];
        tile[8 * l + 2 * r] = v & 0xffff;
        tile[8 * l + 2 * r + 1] = (v >> 16) & 0xffff;
      }
  }
  store_tile<S>(c, i, mask, tile);
}

float input_value(uint64_t bits, bool bf16) {
  return bf16 ? bfloat_to_float(static_cast<uint16_t>(bits)) : half_to_float(static_cast<uint16_t>(bits));
}

// Rows 0-15 of an a or b fragment (8 registers, lanes 0-15: row = lane, register r holds
// columns 2r and 2r+1) as a 16x16 fp32 tile.
template <bool Bf16, class L>
inline void widen_operand(const WarpContext& c, const uint32_t* regs, float (&tile)[kTile][kTile]) {
  for (int r = 0; r < 8; ++r) {
    const L* p = c.src_as<L>(regs[r]);
    for (int row = 0; row < kTile; row += 2) {
      const Ints4 bits = {static_cast<int32_t>(p[row] & 0xffff), static_cast<int32_t>(p[row] >> 16 & 0xffff),
                          static_cast<int32_t>(p[row + 1] & 0xffff), static_cast<int32_t>(p[row + 1] >> 16 & 0xffff)};
      const Floats4 v = Bf16 ? bfloat_to_float4(bits) : half_to_float4(bits);
      tile[row][2 * r] = v[0];
      tile[row][2 * r + 1] = v[1];
      tile[row + 1][2 * r] = v[2];
      tile[row + 1][2 * r + 1] = v[3];
    }
  }
}

// D = A * B + C with fp32 accumulation in k order (products of halves are exact in fp32).
template <bool Bf16, class L = uint64_t>
void wmma_mma(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  // With thousands of warps resident, a warp's fragments have usually left the host's
  // caches by the time its MMA issues (the loads feeding it took hundreds of cycles). Ask
  // for all their lines at once so the misses overlap instead of arriving one by one: lanes
  // 0-15 of the a and b registers, all lanes of the accumulators.
  for (int r = 0; r < 24; ++r) {
    const auto* p = reinterpret_cast<const char*>(c.src_as<L>(i.src[r]));
    const size_t bytes = (r < 16 ? 16 : 32) * sizeof(L);
    for (size_t at = 0; at < bytes; at += 64) __builtin_prefetch(p + at);
    __builtin_prefetch(p + bytes - 1);  // rows need not start on a line
  }
  if (mask == kFullMask && i.type == PtxType::f32 && i.type2 == PtxType::f32) {
    static const auto vector = whole_warp_mma_f32<L>(Bf16);
    if (vector) {
      const L* sources[24];
      for (int r = 0; r < 24; ++r) sources[r] = c.src_as<L>(i.src[static_cast<size_t>(r)]);
      L* out[8];
      for (int k = 0; k < 8; ++k) out[k] = c.dst_as<L>(i.dst[static_cast<size_t>(k)]);
      vector(sources, sources + 8, sources + 16, out);
      return;
    }
  }
  alignas(16) float a[kTile][kTile], b[kTile][kTile];
  widen_operand<Bf16, L>(c, i.src.data(), a);
  widen_operand<Bf16, L>(c, i.src.data() + 8, b);
  alignas(16) std::array<float, 256> d;
  accumulator_from_fragment<L>(c, i, 16, i.type2, d);
  // Every d[m][n] adds its products in k order, one multiply and one add each (exactly
  // what the scalar loop did); four columns at a time.
  for (int m = 0; m < kTile; ++m) {
    Floats4 row[4];
    std::memcpy(row, &d[static_cast<size_t>(m * kTile)], sizeof row);
    for (int k = 0; k < kTile; ++k) {
      const float am = a[m][k];
      const Floats4 splat = {am, am, am, am};
      for (int q = 0; q < 4; ++q) {
        Floats4 bq;
        std::memcpy(&bq, &b[k][4 * q], sizeof bq);
        row[q] += splat * bq;
      }
    }
    std::memcpy(&d[static_cast<size_t>(m * kTile)], row, sizeof row);
  }
  if (i.type == PtxType::f32) {
    L* out[8];
    for (int k = 0; k < 8; ++k) out[k] = c.dst_as<L>(i.dst[k]);
    for_each_lane(mask, [&](int l) {
      for (int k = 0; k < 8; ++k) out[k][l] = static_cast<L>(Repr<float>::store(d[static_cast<size_t>(8 * l + k)]));
    });
  } else {
    for_each_lane(mask, [&](int l) {
      for (int r = 0; r < 4; ++r)
        c.dst_as<L>(i.dst[r])[l] =
            static_cast<L>(uint32_t{float_to_half(d[8 * l + 2 * r])} | uint32_t{float_to_half(d[8 * l + 2 * r + 1])} << 16);
    });
  }
}

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32: PTX ISA fragment layout.
void mma_m16n8k16(WarpContext& c, const DecodedInstruction& i, uint32_t mask) {
  const bool bf16 = i.op == 1;
  float a[16][16], b[16][8], acc[16][8];
  for (int l = 0; l < 32; ++l) {
    const int group = l >> 2, tig = l & 3;
    for (int e = 0; e < 8; ++e) {
      const uint64_t v = c.src(i.src[e / 2])[l] >> (16 * (e & 1));
      const int row = group + ((e & 2) ? 8 : 0), col = tig * 2 + (e & 1) + (e >= 4 ? 8 : 0);
      a[row][col] = input_value(v & 0xffff, bf16);
    }
    for (int e = 0; e < 4; ++e) {
      const uint64_t v = c.src(i.src[4 + e / 2])[l] >> (16 * (e & 1));
      b[tig * 2 + (e & 1) + (e >= 2 ? 8 : 0)][group] = input_value(v & 0xffff, bf16);
    }
    for (int e = 0; e < 4; ++e) acc[group + (e >= 2 ? 8 : 0)][tig * 2 + (e & 1)] = Repr<float>::load(c.src(i.src[6 + e])[l]);
  }
  float d[16][8];
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      float sum = acc[m][n];
      for (int k = 0; k < 16; ++k) sum += a[m][k] * b[k][n];
      d[m][n] = sum;
    }
  for_each_lane(mask, [&](int l) {
    const int group = l >> 2, tig = l & 3;
    for (int e = 0; e < 4; ++e) c.dst(i.dst[e])[l] = Repr<float>::store(d[group + (e >= 2 ? 8 : 0)][tig * 2 + (e & 1)]);
  });
}

template <class L>
ExecFn wmma_load_lanes(MemorySpace space) {
  switch (space) {
    case MemorySpace::global: return &wmma_load<MemorySpace::global, L>;
    case MemorySpace::shared: return &wmma_load<MemorySpace::shared, L>;
    default: return &wmma_load<MemorySpace::none, L>;
  }
}
template <class L>
ExecFn wmma_store_lanes(MemorySpace space) {
  switch (space) {
    case MemorySpace::global: return &wmma_store<MemorySpace::global, L>;
    case MemorySpace::shared: return &wmma_store<MemorySpace::shared, L>;
    default: return &wmma_store<MemorySpace::none, L>;
  }
}

}  // namespace

ExecFn wmma_load_handler_for(MemorySpace space) { return wmma_load_lanes<uint64_t>(space); }
ExecFn wmma_store_handler_for(MemorySpace space) { return wmma_store_lanes<uint64_t>(space); }
ExecFn wmma_load_handler_narrow(MemorySpace space) { return wmma_load_lanes<uint32_t>(space); }
ExecFn wmma_store_handler_narrow(MemorySpace space) { return wmma_store_lanes<uint32_t>(space); }
// The input type is chosen at decode, so the lane loops are compiled for it.
ExecFn wmma_mma_handler(bool bf16) { return bf16 ? &wmma_mma<true> : &wmma_mma<false>; }
ExecFn wmma_mma_handler_narrow(bool bf16) { return bf16 ? &wmma_mma<true, uint32_t> : &wmma_mma<false, uint32_t>; }
ExecFn mma_m16n8k16_handler() { return &mma_m16n8k16; }

}  // namespace loom::simt
