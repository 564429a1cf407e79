// Register-file bank conflicts of a sub-core: register r lives in bank r % banks, and each
// bank serves `ports` reads per cycle. An instruction's operand collection takes as many
// cycles as its busiest bank needs; cycles beyond the first delay its dispatch to the unit
// (counted as GpuStats::register_bank_conflicts) and keep the sub-core's read stage busy,
// so the next issue waits (StallReason::register_bank). A register read twice by one
// instruction is read once. Warp MMAs are exempt: their up to 24 source registers are read
// step by step across the MMA's HMMA steps (Raihan et al. 2019), under the tensor cores'
// occupancy, not by one operand collection before dispatch.
#pragma once

#include "arch/simt/warp_instruction.h"

namespace loom::simt {

// Cycles the operand reads of `inst` occupy the banks: >= 1.
int register_read_cycles(const StaticInstruction& inst, int banks, int ports);

}  // namespace loom::simt
