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
// a source and a destination in one slot unless the PTX itself named the same register;
// except where the handler reads all its operands before it writes (wmma.mma, flagged
// kFlagSourcesReadFirst at decode): there a result may take the slot of an operand that
// dies there, so a GEMM's chain of accumulators (d of one MMA is c of the next) lives in
// one set of slots, not two, and each MMA writes the host lines it has just read.
//
// Narrow registers. A register of at most 32 bits held in a 64-bit lane wastes half of
// every host cache line the handlers touch and half of the register memory. So a register
// whose declared type has at most 32 bits (predicates included), and which only
// instructions with a narrow twin name, is kept in 32-bit lanes, and those instructions run
// their twin (DecodedInstruction::narrow), which reads and writes every value register (src
// and dst; for mul.wide only src) at 32 bits in place. An ld or st address register is
// decided apart from the values (narrow_address, narrow_both); a guard and wmma's stride
// are read at either width. A twin reads all its values one way, so an instruction ties
// its registers together (union-find): one register that some handler without a twin names
// keeps its whole group wide. Results are the same either way: a register of at most 32
// bits only ever holds values of at most 32 bits, zero-extended in a wide lane. (What it
// gained: the functional model 5-15%, the timed GEMMs a few percent at most, since the
// prefetch hints already hid most register misses; docs/performance.md, fourteenth round.)
//
// Layout, in 128-byte units per warp: wide slots (two units each), narrow slots (one unit),
// the special registers (read-only, so each is held twice: wide, then narrow for the twins
// that read it), the scratch slot (wide). Operands name units.
#pragma once

#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

// Renames the storage of `kernel.code` in place to units (above), sets special_slot,
// scratch_slot, narrow_begin/end and constants32, and switches instructions whose registers
// are narrow to their twins. With `narrow` false every register is wide (still packed).
// When it cannot prove every register operand is covered (or the kernel is huge), every
// register keeps a wide slot of its own.
void pack_register_slots(PtxKernel& kernel, bool narrow = true);

}  // namespace loom::simt
