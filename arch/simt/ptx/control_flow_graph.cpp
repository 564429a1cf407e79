#include "arch/simt/ptx/control_flow_graph.h"

#include <algorithm>

namespace loom::simt {

ControlFlowGraph build_control_flow_graph(const std::vector<DecodedInstruction>& code) {
  const auto n = static_cast<uint32_t>(code.size());
  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  for (uint32_t pc = 0; pc < n; ++pc) {
    const DecodedInstruction& d = code[pc];
    if (d.control == Control::branch) {
      leader[d.target] = true;
      leader[pc + 1] = true;
    } else if (d.control == Control::exit) {
      leader[pc + 1] = true;
    }
  }
  ControlFlowGraph g;
  g.block_of.assign(n, 0);
  for (uint32_t pc = 0; pc < n; ++pc) {
    if (leader[pc]) g.block_start.push_back(pc);
    g.block_of[pc] = static_cast<uint32_t>(g.block_start.size() - 1);
  }
  g.exit_node = static_cast<uint32_t>(g.block_start.size());
  g.block_start.push_back(n);
  g.successors.assign(g.exit_node + 1, {});
  g.predecessors.assign(g.exit_node + 1, {});
  auto edge = [&](uint32_t from, uint32_t to) {
    auto& s = g.successors[from];
    if (std::find(s.begin(), s.end(), to) != s.end()) return;
    s.push_back(to);
    g.predecessors[to].push_back(from);
  };
  auto block_at = [&](uint32_t pc) { return pc >= n ? g.exit_node : g.block_of[pc]; };
  for (uint32_t b = 0; b < g.exit_node; ++b) {
    const uint32_t last = g.end_of(b) - 1;
    const DecodedInstruction& d = code[last];
    const bool guarded = d.guard != kNoOperand;
    if (d.control == Control::branch) {
      edge(b, block_at(d.target));
      if (guarded) edge(b, block_at(last + 1));
    } else if (d.control == Control::exit) {
      edge(b, g.exit_node);
      if (guarded) edge(b, block_at(last + 1));
    } else {
      edge(b, block_at(last + 1));
    }
  }
  return g;
}

}  // namespace loom::simt
