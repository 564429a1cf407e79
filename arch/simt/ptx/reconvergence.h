// Reconvergence points for SIMT divergence: each branch's immediate post-dominator, the
// first instruction every path from the branch must reach (GPGPU-Sim's PDOM rule).
#pragma once

#include <cstdint>
#include <vector>

#include "arch/simt/ptx/control_flow_graph.h"

namespace loom::simt {

// Immediate post-dominator block of every block (the exit node for blocks whose paths only
// meet at kernel exit; kNoReconvergence for blocks that cannot reach the exit at all).
std::vector<uint32_t> immediate_post_dominators(const ControlFlowGraph& graph);

// Sets DecodedInstruction::reconverge of every branch: the pc of its block's immediate
// post-dominator, or kNoReconvergence when the paths meet only at exit.
void assign_reconvergence_points(std::vector<DecodedInstruction>& code);

}  // namespace loom::simt
