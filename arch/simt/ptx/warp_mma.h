// A full warp's wmma.mma m16n16k16 with fp32 accumulators (C and D f32, A and B f16 or bf16)
// in AVX-512 (warp_mma_avx512.cpp) or AVX2 (warp_mma_avx2.cpp), on fragments in loom's
// layout (exec_tensor.cpp). It computes what the portable loop there does: every D element
// is C plus its sixteen products in k order, each product a (from A) times b (from B),
// rounded, then added; so every result that is not a NaN has the same bits. (The AVX-512
// version fuses an fp16 product into its add: that product is exact in fp32, so the same.)
// Where two NaNs meet, which payload the result carries depends on the operand order the
// compiler picked for the host's add or multiply, in these versions as in the portable one
// and every float handler; it is a NaN in all. Sixteen (AVX-512) or eight (AVX2) rows of one
// D column at a time; the portable loop does four columns of one row.
#pragma once

#include <cstdint>

namespace loom::simt {

// a, b, c: the 8 fragment registers of each operand (32 lanes of L each: uint64_t, wide, or
// uint32_t, narrow, register_slots.h); d: the 8 destination registers, written in every
// lane. Every source is read in full before d is written, so d may name any of them.
template <class L>
using WholeWarpMmaFn = void (*)(const L* const* a, const L* const* b, const L* const* c, L* const* d);

// Each version for f16 (bf16 false) or bf16 inputs, on its own (the tests check each);
// nullptr where the host lacks AVX-512F, or AVX2 and F16C (fp16 to fp32, eight at a time).
template <class L>
WholeWarpMmaFn<L> whole_warp_mma_f32_avx512(bool bf16);
template <class L>
WholeWarpMmaFn<L> whole_warp_mma_f32_avx2(bool bf16);

// The widest version the host has, or nullptr (then the portable loop runs). AVX-512 takes
// a quarter of AVX2's instructions for the product: on a Zen 5 host the MMA went from 6.6%
// to 4.6% of the WMMA GEMM's simulation time (docs/performance.md, twenty-second round).
template <class L>
WholeWarpMmaFn<L> whole_warp_mma_f32(bool bf16) {
  if (const WholeWarpMmaFn<L> widest = whole_warp_mma_f32_avx512<L>(bf16)) return widest;
  return whole_warp_mma_f32_avx2<L>(bf16);
}

}  // namespace loom::simt
