#include "arch/simt/ptx/register_slots.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "arch/simt/ptx/control_flow_graph.h"
#include "arch/simt/ptx/register_access.h"

namespace loom::simt {

namespace {

// Above this many registers the R x R interference matrix costs more than it saves.
constexpr size_t kMaxPackedRegisters = 4096;

class Bits {
 public:
  explicit Bits(size_t n = 0) : w_((n + 63) / 64, 0) {}
  bool test(size_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
  void set(size_t i) { w_[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(size_t i) { w_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  // this |= other & ~except; whether anything changed
  bool merge(const Bits& other, const Bits* except) {
    bool changed = false;
    for (size_t k = 0; k < w_.size(); ++k) {
      const uint64_t add = other.w_[k] & (except ? ~except->w_[k] : ~uint64_t{0});
      changed |= (add & ~w_[k]) != 0;
      w_[k] |= add;
    }
    return changed;
  }
  template <class F>
  void for_each(F&& f) const {
    for (size_t k = 0; k < w_.size(); ++k)
      for (uint64_t m = w_[k]; m; m &= m - 1) f(k * 64 + static_cast<size_t>(__builtin_ctzll(m)));
  }

 private:
  std::vector<uint64_t> w_;
};

}  // namespace

void pack_register_slots(PtxKernel& k) {
  const size_t regs = k.register_count();
  if (regs == 0 || regs > kMaxPackedRegisters || k.code.empty()) return;
  std::vector<RegisterAccess> access;
  if (!collect_register_access(k, access)) return;
  // A guarded write may not happen, so it does not end the old value's life.
  auto kills = [&](size_t pc) { return k.code[pc].guard == kNoOperand; };

  // Per-thread liveness over the CFG (as register_estimate.cpp, on the full operand sets).
  const ControlFlowGraph g = build_control_flow_graph(k.code);
  const uint32_t blocks = g.blocks();
  std::vector<Bits> use(blocks, Bits(regs)), def(blocks, Bits(regs));
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t pc = g.block_start[b]; pc < g.end_of(b); ++pc) {
      for (uint32_t r : access[pc].reads)
        if (!def[b].test(r)) use[b].set(r);
      if (kills(pc))
        for (uint32_t r : access[pc].writes) def[b].set(r);
    }
  std::vector<Bits> live_in(blocks, Bits(regs)), live_out(blocks, Bits(regs));
  for (uint32_t b = 0; b < blocks; ++b) live_in[b].merge(use[b], nullptr);
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = blocks; b-- > 0;) {
      for (uint32_t s : g.successors[b])
        if (s != g.exit_node) live_out[b].merge(live_in[s], nullptr);
      changed |= live_in[b].merge(live_out[b], &def[b]);
    }
  }

  // Interference: what an instruction writes conflicts with everything live after it, with
  // its other results and with its own sources.
  std::vector<Bits> conflict(regs, Bits(regs));
  auto edge = [&](size_t a, size_t b) {
    if (a == b) return;
    conflict[a].set(b);
    conflict[b].set(a);
  };
  for (uint32_t b = 0; b < blocks; ++b) {
    Bits live = live_out[b];
    for (uint32_t pc = g.end_of(b); pc-- > g.block_start[b];) {
      const RegisterAccess& a = access[pc];
      for (uint32_t w : a.writes) {
        live.for_each([&](size_t v) { edge(w, v); });
        for (uint32_t x : a.writes) edge(w, x);
        for (uint32_t x : a.reads) edge(w, x);
      }
      if (kills(pc))
        for (uint32_t w : a.writes) live.reset(w);
      for (uint32_t r : a.reads) live.set(r);
    }
  }

  // Greedy colouring in register order: the lowest slot no coloured neighbour holds.
  std::vector<uint32_t> slot(regs, 0);
  uint32_t slots = 0;
  std::vector<uint32_t> taken_by;  // per slot: the last register that found it taken
  for (size_t r = 0; r < regs; ++r) {
    taken_by.resize(slots + 1, UINT32_MAX);
    conflict[r].for_each([&](size_t v) {
      if (v < r) taken_by[slot[v]] = static_cast<uint32_t>(r);
    });
    uint32_t s = 0;
    while (s < slots && taken_by[s] == r) ++s;
    slot[r] = s;
    slots = std::max(slots, s + 1);
  }

  const uint32_t specials = static_cast<uint32_t>(k.specials.size());
  auto rename = [&](uint32_t x) -> uint32_t {
    if (x == kNoOperand || (x & kConstantFlag)) return x;
    if (x < regs) return slot[x];
    return slots + (x - static_cast<uint32_t>(regs));  // specials, then scratch, keep their order
  };
  for (DecodedInstruction& d : k.code) {
    for (uint32_t& x : d.src) x = rename(x);
    for (uint32_t& x : d.dst) x = rename(x);
    d.guard = rename(d.guard);
    d.address = rename(d.address);
    if (auxiliary_operand(d) && d.aux != kNoOperand) d.aux = rename(static_cast<uint32_t>(d.aux));
  }
  k.special_slot = slots;
  k.scratch_slot = slots + specials;
}

}  // namespace loom::simt
