// The registers each instruction of a decoded kernel reads and writes, in PTX register ids:
// what both the register-slot packing (liveness, register_slots.h) and the issue-order pass
// (dependences, issue_order.h) must know exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

struct RegisterAccess {
  std::vector<uint32_t> reads, writes;  // distinct ids below kernel.register_count()
};

// Whether an instruction's aux field holds an operand (wmma's stride).
inline bool auxiliary_operand(const DecodedInstruction& d) { return d.flags & DecodedInstruction::kFlagAuxOperand; }

// Every register operand the executor may index, from the decoded fields and the decoder's
// own register lists (StaticInstruction src/dst), one entry per pc. False if a register the
// decoder noted is in no decoded field: then the kernel's operands are not fully known, and
// passes that rely on them must leave it as it is.
bool collect_register_access(const PtxKernel& kernel, std::vector<RegisterAccess>& out);

}  // namespace loom::simt
