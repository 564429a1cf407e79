// Basic blocks and edges of a decoded kernel, with a virtual exit node: the graph the
// reconvergence analysis and the register liveness estimate both walk.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/simt/ptx/ptx_program.h"

namespace loom::simt {

struct ControlFlowGraph {
  std::vector<uint32_t> block_start;  // first pc of each block; block_start[n] = code size
  std::vector<uint32_t> block_of;     // pc -> block
  std::vector<std::vector<uint32_t>> successors, predecessors;
  uint32_t exit_node = 0;  // == number of real blocks
  uint32_t blocks() const { return exit_node; }
  uint32_t end_of(uint32_t block) const { return block_start[block + 1]; }  // one past the last pc
};

// Guarded branches and exits fall through as well; an unguarded exit (or running off the end)
// leads to the exit node.
ControlFlowGraph build_control_flow_graph(const std::vector<DecodedInstruction>& code);

}  // namespace loom::simt
