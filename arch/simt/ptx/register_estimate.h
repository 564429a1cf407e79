// Registers per thread a kernel is charged for occupancy, estimated from the PTX: the most
// 32-bit register words simultaneously live at any instruction (liveness over the CFG;
// 64-bit registers count 2 words, predicates 0, 8/16-bit registers 1), plus a fixed
// allowance for what ptxas adds on top of the PTX's own values (address temporaries, the
// stack pointer, values it hoists or keeps live longer when scheduling), capped at 255.
#pragma once

#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

inline constexpr int kRegisterAllowance = 8;
inline constexpr int kMaxRegistersPerThread = 255;

// The liveness maximum in 32-bit words.
int max_live_register_words(const PtxKernel& kernel);
// min(255, max_live_register_words + kRegisterAllowance)
int estimate_registers_per_thread(const PtxKernel& kernel);

}  // namespace loom::simt
