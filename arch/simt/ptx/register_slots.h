// Packs a kernel's PTX registers into fewer per-warp storage slots. PTX is in SSA-like form:
// nvcc emits hundreds of virtual registers (wmma_gemm: 327) of which only a few dozen are
// live at once. Every warp held one 256-byte slot per virtual register, so thousands of
// resident warps spread their registers over far more memory than the host's caches hold,
// and the functional model ran ~5x slower interleaved than one CTA at a time. Registers
// whose live ranges never overlap now share a slot (interference-graph colouring over the
// per-thread liveness of the CFG), which cuts that footprint several-fold.
//
// Only DecodedInstruction operands (what the executor indexes) are renamed. StaticInstruction
// keeps the PTX register ids, so the timing model's scoreboard and register-bank model (and
// so every timing result) are unchanged.
//
// Why per-thread liveness is enough under SIMT: register storage is per lane and handlers
// write only active lanes, so each lane's slot contents follow exactly its own thread's path
// through the CFG. Guarded writes do not end a value's life (the guard may be false).
// Every instruction's results also interfere with its own sources, so no handler ever sees
// a source and a destination in one slot unless the PTX itself named the same register.
#pragma once

#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

// Renames the storage slots of `kernel.code` in place (registers, then specials, then the
// scratch slot) and sets kernel.special_slot / scratch_slot. Leaves the kernel as it is
// when it cannot prove every register operand is covered (or the kernel is huge).
void pack_register_slots(PtxKernel& kernel);

}  // namespace loom::simt
