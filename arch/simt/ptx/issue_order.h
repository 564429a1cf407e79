// The order in which a warp issues a kernel's instructions. loom executes PTX, but a GPU
// executes the SASS that ptxas makes of it, and ptxas schedules each basic block: it starts
// long-latency loads as early as their operands allow, so that several are in flight before
// the arithmetic that consumes them. nvcc's PTX interleaves them with that arithmetic as
// the source does (the naive GEMM's loop is `ld, ld, fma` four times), and a warp that issues
// in order would wait on each load in turn. This pass reorders each block the way a list
// scheduler does, by the longest latency path to the block's end, and changes no result:
//  * an instruction never moves past one it shares a register with (read after write,
//    write after read or write), guards and address registers included;
//  * control flow (branches, exits, bar.sync, fences, votes and shuffles), stores, atomics,
//    %clock reads and tensor-core instructions stay where they are, and nothing moves
//    across them (MMAs, because the H200 measurement shows the GPU does not start the next
//    k-step's fragment loads before the current MMA: docs/simt-model.md);
//  * loads keep their order among themselves (volatile or not);
//  * block boundaries, and so every branch target and reconvergence point, are unchanged.
// Latencies are only priorities here (global loads first, then shared loads, SFU and FP64
// operations, the rest); the timing model charges the configured ones.
#pragma once

#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

// Reorders kernel.code and kernel.statics within each basic block, on PTX register ids (before
// the register slots are packed). Leaves the kernel as written when its register operands
// are not fully known (collect_register_access).
void schedule_issue_order(PtxKernel& kernel);

}  // namespace loom::simt
