#include "arch/simt/ptx/reconvergence.h"

namespace loom::simt {

// Cooper, Harvey and Kennedy's iterative dominator algorithm ("A Simple, Fast Dominance
// Algorithm") run on the reversed graph, rooted at the exit node.
std::vector<uint32_t> immediate_post_dominators(const ControlFlowGraph& g) {
  const uint32_t nodes = g.exit_node + 1;
  constexpr uint32_t kUnset = kNoReconvergence;
  // Post-order of a depth-first walk from the exit along predecessor edges.
  std::vector<uint32_t> order;
  std::vector<uint32_t> number(nodes, kUnset);
  std::vector<uint8_t> seen(nodes, 0);
  std::vector<std::pair<uint32_t, size_t>> stack{{g.exit_node, 0}};
  seen[g.exit_node] = 1;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < g.predecessors[node].size()) {
      const uint32_t p = g.predecessors[node][next++];
      if (!seen[p]) {
        seen[p] = 1;
        stack.push_back({p, 0});
      }
      continue;
    }
    number[node] = static_cast<uint32_t>(order.size());
    order.push_back(node);
    stack.pop_back();
  }
  std::vector<uint32_t> ipdom(nodes, kUnset);
  ipdom[g.exit_node] = g.exit_node;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (number[a] < number[b]) a = ipdom[a];
      while (number[b] < number[a]) b = ipdom[b];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {  // reverse post-order
      const uint32_t b = *it;
      if (b == g.exit_node) continue;
      uint32_t candidate = kUnset;
      for (uint32_t s : g.successors[b]) {
        if (ipdom[s] == kUnset) continue;
        candidate = candidate == kUnset ? s : intersect(s, candidate);
      }
      if (candidate != ipdom[b]) {
        ipdom[b] = candidate;
        changed = true;
      }
    }
  }
  return ipdom;
}

void assign_reconvergence_points(std::vector<DecodedInstruction>& code) {
  const ControlFlowGraph g = build_control_flow_graph(code);
  const std::vector<uint32_t> ipdom = immediate_post_dominators(g);
  for (uint32_t pc = 0; pc < code.size(); ++pc) {
    DecodedInstruction& d = code[pc];
    if (d.control != Control::branch) continue;
    const uint32_t p = ipdom[g.block_of[pc]];
    d.reconverge = p == kNoReconvergence || p == g.exit_node ? kNoReconvergence : g.block_start[p];
  }
}

}  // namespace loom::simt
