// A full warp's wmma.load of an f16/bf16 a or b fragment (m16n16k16) from memory into its 8
// registers, once one check has put the whole tile inside readable memory (exec_tensor.cpp,
// load_operand_fragment). The tile is 16 lines of 32 bytes, `pitch` bytes apart: rows
// (.row) or columns (.col). In loom's fragment layout (exec_tensor.cpp) lane l holds row
// l % 16, register r its columns 2r (low half) and 2r + 1 (high half), and lanes 16-31
// repeat lanes 0-15. From rows that is a transpose of 16 x 8 words; from columns, register r
// interleaves the halves of columns 2r and 2r + 1. The AVX2 version does either in vector
// shuffles (8 words at a time) where the portable one moves a word at a time; both write
// the same bits (tests/test_simt_fragment_load.cpp).
#pragma once

#include <cstdint>

namespace loom::simt {

// first: the tile's first byte; columns: .col (else .row); regs: the 8 destination
// registers, 32 lanes of L each (uint64_t, wide and zero-extended, or uint32_t, narrow).
template <class L>
using LoadFragmentFn = void (*)(const uint8_t* first, uint64_t pitch, bool columns, L* const* regs);

template <class L>
void load_fragment_portable(const uint8_t* first, uint64_t pitch, bool columns, L* const* regs);
// The AVX2 version; nullptr where the host has no AVX2.
template <class L>
LoadFragmentFn<L> load_fragment_avx2();

// The AVX2 version where the host has it, else the portable one; chosen once.
template <class L>
LoadFragmentFn<L> load_fragment();

}  // namespace loom::simt
