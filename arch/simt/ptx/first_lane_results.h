// Results that are only ever read at the first active lane, computed for that lane alone.
//
// A wmma.load or wmma.store reads its address and stride at the first active lane (PTX
// requires them to be warp-uniform), and nvcc computes them just before, in chains of
// integer instructions (cvt, add, shl, add) on 64-bit registers that nothing else reads:
// 31 of the 50 instructions of the WMMA GEMM's unrolled loop. Run for all 32 lanes, each
// link reads and writes four host cache lines per 64-bit register where one would do.
// (The prefetch hints still ask for all of them: hinting only the first line made the
// WMMA GEMM slower, docs/performance.md, thirtieth round.)
//
// This pass flags (DecodedInstruction::kFlagFirstLaneOnly) every instruction whose result
// is read only at the first active lane, and the executor runs its handler for that lane
// alone. The results stay exactly the same, because the pass takes an instruction only when:
//  * its handler is lane-local (each lane from its own operands, DecodedInstruction::
//    lane_local) and it is unguarded, with one register result that no other instruction
//    writes;
//  * every read of that register is in the same basic block, after it, and is either the
//    address or stride of an unguarded instruction that reads them at the first active lane
//    (first_lane_address), or a source of another flagged instruction.
// Within a basic block every unguarded instruction runs under the same active mask M, so
// every such read is at lane first(M), and the flagged chain computes that lane exactly as
// the full one would. (The wmma handlers' full-warp path reads lane 0, which is first(M)
// for a full mask.) The other lanes, left unwritten, are read by nobody: the result is dead
// after the block, and no instruction but the chain reads it. The register slots are
// packed by liveness afterwards, as before; the timing model sees the same instructions,
// active masks and addresses.
#pragma once

#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

// Sets kFlagFirstLaneOnly on the instructions above. Operands must still be register ids
// (before pack_register_slots).
void mark_first_lane_results(PtxKernel& kernel);

}  // namespace loom::simt
