// Shared-memory bank conflicts: `banks` banks of `bank_bytes` bytes; the 4-byte word at
// address a is in bank (a / bank_bytes) % banks. A warp's request is served in wavefronts,
// each reading at most one distinct word per bank (all lanes reading one word share it: a
// broadcast), so it needs as many wavefronts as the busiest bank has distinct words.
// Stride-1 floats: 1; stride 2: 2; stride 32: 32; every lane the same word: 1. Wide
// accesses fall out of the same rule (32 lanes x 16 bytes = 4 wavefronts).
#pragma once

#include "arch/simt/warp_instruction.h"

namespace loom::simt {

// Wavefronts needed by the segments of `executed` (>= 1).
int shared_wavefronts(const ExecutedInstruction& executed, int banks, int bank_bytes);

// Whether `executed` is one wavefront by its span alone, with banks of 2^word_shift bytes
// (`banks` a power of two too): words fewer than `banks` apart are in different banks, so
// an access whose span holds at most `banks` words (unit stride, broadcasts, two rows of
// 16 floats) cannot conflict. Inline, ahead of shared_wavefronts, for the usual access.
inline bool one_wavefront_by_span(const ExecutedInstruction& executed, int word_shift, int banks) {
  return executed.span_end > executed.span_begin &&
         ((executed.span_end - 1) >> word_shift) - (executed.span_begin >> word_shift) < static_cast<uint64_t>(banks);
}

}  // namespace loom::simt
