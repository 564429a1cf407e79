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

}  // namespace loom::simt
