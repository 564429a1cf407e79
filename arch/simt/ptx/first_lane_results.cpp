#include "arch/simt/ptx/first_lane_results.h"

#include <algorithm>
#include <vector>

#include "arch/simt/ptx/control_flow_graph.h"
#include "arch/simt/ptx/register_access.h"

namespace loom::simt {

void mark_first_lane_results(PtxKernel& k) {
  std::vector<RegisterAccess> access;
  if (!collect_register_access(k, access)) return;  // operands not fully known: leave it be
  const size_t n = k.code.size();
  const ControlFlowGraph g = build_control_flow_graph(k.code);
  std::vector<int> writers(k.register_count(), 0);
  std::vector<std::vector<uint32_t>> readers(k.register_count());
  for (size_t pc = 0; pc < n; ++pc) {
    for (const uint32_t r : access[pc].writes) ++writers[r];
    for (const uint32_t r : access[pc].reads) readers[r].push_back(static_cast<uint32_t>(pc));
  }
  // Candidates: unguarded lane-local instructions with one register result written nowhere else.
  std::vector<char> flagged(n, 0);
  for (size_t pc = 0; pc < n; ++pc) {
    const DecodedInstruction& d = k.code[pc];
    const RegisterAccess& a = access[pc];
    flagged[pc] = d.lane_local && d.guard == kNoOperand && d.n_dst == 1 && a.writes.size() == 1 &&
                  d.dst[0] == a.writes[0] && writers[a.writes[0]] == 1;
  }
  // Whether reader u takes register r at the first active lane of the mask the writer at pc
  // ran under.
  auto first_lane_read = [&](uint32_t pc, uint32_t u, uint32_t r) {
    if (u <= pc || g.block_of[u] != g.block_of[pc]) return false;
    if (flagged[u]) return true;  // unguarded, so r is one of its sources
    const DecodedInstruction& d = k.code[u];
    if (!d.first_lane_address || d.guard != kNoOperand) return false;
    const auto src_end = d.src.begin() + d.n_src;
    return std::find(d.src.begin(), src_end, r) == src_end;  // the address or the stride only
  };
  // Unflag until every flagged result is read only at the first lane (a chain drops from its
  // end: an unflagged reader unflags its writers on the next pass).
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t pc = 0; pc < n; ++pc) {
      if (!flagged[pc]) continue;
      const uint32_t r = access[pc].writes[0];
      for (const uint32_t u : readers[r])
        if (!first_lane_read(static_cast<uint32_t>(pc), u, r)) {
          flagged[pc] = 0;
          changed = true;
          break;
        }
    }
  }
  for (size_t pc = 0; pc < n; ++pc)
    if (flagged[pc]) k.code[pc].flags |= DecodedInstruction::kFlagFirstLaneOnly;
}

}  // namespace loom::simt
