#include "arch/simt/gpu_stats.h"
#include "arch/simt/warp_instruction.h"

namespace loom::simt {

const char* unit_name(Unit unit) {
  switch (unit) {
    case Unit::int_alu: return "int";
    case Unit::fp32: return "fp32";
    case Unit::fp16: return "fp16";
    case Unit::fp64: return "fp64";
    case Unit::sfu: return "sfu";
    case Unit::ldst: return "ldst";
    case Unit::tensor: return "tensor";
    case Unit::control: return "control";
    case Unit::count: break;
  }
  return "?";
}

const char* stall_reason_name(StallReason reason) {
  switch (reason) {
    case StallReason::issued: return "issued";
    case StallReason::no_warp: return "no_warp";
    case StallReason::fetch: return "fetch";
    case StallReason::scoreboard: return "scoreboard";
    case StallReason::memory_pipe: return "memory_pipe";
    case StallReason::execution_unit: return "execution_unit";
    case StallReason::barrier: return "barrier";
    case StallReason::register_bank: return "register_bank";
    case StallReason::count: break;
  }
  return "?";
}

int memory_segments(const ExecutedInstruction& x, std::array<MemorySegment, 32>& scratch,
                    const MemorySegment*& segments) {
  if (x.lane_bytes == 0) {
    segments = x.segments.data();
    return x.n_segments;
  }
  for (uint32_t l = 0; l < 32; ++l) scratch[l] = MemorySegment{x.lane_address[l], x.lane_bytes, static_cast<uint8_t>(l)};
  segments = scratch.data();
  return 32;
}

}  // namespace loom::simt
