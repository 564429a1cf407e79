#include "arch/simt/ptx/issue_order.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "arch/simt/ptx/control_flow_graph.h"
#include "arch/simt/ptx/exec_handlers.h"
#include "arch/simt/ptx/register_access.h"

namespace loom::simt {

namespace {

// Regions longer than this are left as written: the dependence test is quadratic.
constexpr size_t kMaxRegion = 1024;

bool is_load(const StaticInstruction& s) { return s.unit == Unit::ldst && !s.is_store && !s.is_atomic; }

// Instructions that stay in place and bound the regions scheduled between them.
bool fixed(const DecodedInstruction& d, const StaticInstruction& s) {
  return d.control != Control::none || s.unit == Unit::control || s.is_store || s.is_atomic ||
         s.unit == Unit::tensor || d.exec == clock_handler();
}

// A priority, not a timing: what a list scheduler puts first.
int priority_latency(const StaticInstruction& s) {
  if (is_load(s)) {
    switch (s.space) {
      case MemorySpace::param:
      case MemorySpace::constant:
        return 4;
      case MemorySpace::shared:
        return 24;
      default:
        return 400;  // global, local, generic
    }
  }
  switch (s.unit) {  // tensor-core instructions are fixed, never scheduled
    case Unit::sfu:
      return 16;
    case Unit::fp64:
      return 8;
    default:
      return 4;
  }
}

bool shares(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  for (uint32_t x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

// Whether `later` must stay after `earlier` (register dependences in either direction, and
// loads in program order).
bool depends(const RegisterAccess& earlier, const RegisterAccess& later, bool both_loads) {
  return both_loads || shares(earlier.writes, later.reads) || shares(earlier.reads, later.writes) ||
         shares(earlier.writes, later.writes);
}

// The order to issue pcs [first, last) in: list scheduling by height, ties in program order.
std::vector<uint32_t> schedule_region(const PtxKernel& k, const std::vector<RegisterAccess>& access, uint32_t first,
                                      uint32_t last) {
  const size_t n = last - first;
  std::vector<std::vector<uint32_t>> successors(n);
  std::vector<int> waiting(n, 0);
  for (size_t j = 0; j < n; ++j)
    for (size_t i = 0; i < j; ++i) {
      const bool loads = is_load(k.statics[first + i]) && is_load(k.statics[first + j]);
      if (depends(access[first + i], access[first + j], loads)) {
        successors[i].push_back(static_cast<uint32_t>(j));
        ++waiting[j];
      }
    }
  std::vector<int64_t> height(n, 0);
  for (size_t i = n; i-- > 0;) {
    int64_t below = 0;
    for (uint32_t s : successors[i]) below = std::max(below, height[s]);
    height[i] = priority_latency(k.statics[first + i]) + below;
  }
  std::vector<uint32_t> ready, order;
  order.reserve(n);
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push_back(static_cast<uint32_t>(i));
  while (!ready.empty()) {
    auto best = ready.begin();
    for (auto it = ready.begin(); it != ready.end(); ++it)
      if (height[*it] > height[*best] || (height[*it] == height[*best] && *it < *best)) best = it;
    const uint32_t pick = *best;
    ready.erase(best);
    order.push_back(first + pick);
    for (uint32_t s : successors[pick])
      if (--waiting[s] == 0) ready.push_back(s);
  }
  return order;
}

}  // namespace

void schedule_issue_order(PtxKernel& k) {
  if (k.code.size() < 2) return;
  std::vector<RegisterAccess> access;
  if (!collect_register_access(k, access)) return;
  const ControlFlowGraph g = build_control_flow_graph(k.code);
  std::vector<DecodedInstruction> code = k.code;
  std::vector<StaticInstruction> statics = k.statics;
  for (uint32_t b = 0; b < g.blocks(); ++b) {
    uint32_t pc = g.block_start[b];
    const uint32_t end = g.end_of(b);
    while (pc < end) {
      uint32_t region_end = pc;
      while (region_end < end && !fixed(k.code[region_end], k.statics[region_end])) ++region_end;
      if (region_end - pc >= 2 && region_end - pc <= kMaxRegion) {
        const std::vector<uint32_t> order = schedule_region(k, access, pc, region_end);
        for (size_t i = 0; i < order.size(); ++i) {
          code[pc + i] = k.code[order[i]];
          statics[pc + i] = k.statics[order[i]];
        }
      }
      pc = region_end + 1;  // past the fixed instruction that ended the region
    }
  }
  k.code = std::move(code);
  k.statics = std::move(statics);
}

}  // namespace loom::simt
