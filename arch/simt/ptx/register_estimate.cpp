#include "arch/simt/ptx/register_estimate.h"

#include <algorithm>

#include "arch/simt/ptx/control_flow_graph.h"

namespace loom::simt {

namespace {

class BitSet {
 public:
  explicit BitSet(size_t bits = 0) : words_((bits + 63) / 64, 0) {}
  bool test(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  void set(size_t i) { words_[i / 64] |= uint64_t{1} << (i % 64); }
  void reset(size_t i) { words_[i / 64] &= ~(uint64_t{1} << (i % 64)); }
  // this |= other & ~mask; returns whether anything changed
  bool merge_except(const BitSet& other, const BitSet* mask) {
    bool changed = false;
    for (size_t w = 0; w < words_.size(); ++w) {
      const uint64_t add = other.words_[w] & (mask ? ~mask->words_[w] : ~uint64_t{0});
      changed |= (add & ~words_[w]) != 0;
      words_[w] |= add;
    }
    return changed;
  }

 private:
  std::vector<uint64_t> words_;
};

int words_of(PtxType t) {
  if (t == PtxType::pred) return 0;
  return type_bytes(t) > 4 ? 2 : 1;
}

}  // namespace

int max_live_register_words(const PtxKernel& kernel) {
  const size_t regs = kernel.registers.size();
  if (regs == 0 || kernel.code.empty()) return 0;
  std::vector<int> weight(regs);
  for (size_t r = 0; r < regs; ++r) weight[r] = words_of(kernel.registers[r].type);
  const ControlFlowGraph g = build_control_flow_graph(kernel.code);
  const uint32_t blocks = g.blocks();
  // A guarded write may not happen, so it does not end the old value's life.
  auto kills = [&](uint32_t pc) { return kernel.code[pc].guard == kNoOperand; };

  std::vector<BitSet> use(blocks, BitSet(regs)), def(blocks, BitSet(regs));
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t pc = g.block_start[b]; pc < g.end_of(b); ++pc) {
      const StaticInstruction& s = kernel.statics[pc];
      for (int i = 0; i < s.n_src; ++i)
        if (!def[b].test(s.src[i])) use[b].set(s.src[i]);
      if (kills(pc))
        for (int i = 0; i < s.n_dst; ++i) def[b].set(s.dst[i]);
    }
  std::vector<BitSet> live_in(blocks, BitSet(regs)), live_out(blocks, BitSet(regs));
  for (uint32_t b = 0; b < blocks; ++b) live_in[b].merge_except(use[b], nullptr);
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t b = blocks; b-- > 0;) {
      for (uint32_t s : g.successors[b])
        if (s != g.exit_node) live_out[b].merge_except(live_in[s], nullptr);
      changed |= live_in[b].merge_except(live_out[b], &def[b]);
    }
  }

  int best = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    BitSet live = live_out[b];
    int words = 0;
    for (size_t r = 0; r < regs; ++r)
      if (live.test(r)) words += weight[r];
    best = std::max(best, words);
    for (uint32_t pc = g.end_of(b); pc-- > g.block_start[b];) {
      const StaticInstruction& s = kernel.statics[pc];
      // While it executes, an instruction needs its results' registers even if they die.
      int during = words;
      for (int i = 0; i < s.n_dst; ++i)
        if (!live.test(s.dst[i])) during += weight[s.dst[i]];
      best = std::max(best, during);
      if (kills(pc))
        for (int i = 0; i < s.n_dst; ++i)
          if (live.test(s.dst[i])) {
            live.reset(s.dst[i]);
            words -= weight[s.dst[i]];
          }
      for (int i = 0; i < s.n_src; ++i)
        if (!live.test(s.src[i])) {
          live.set(s.src[i]);
          words += weight[s.src[i]];
        }
      best = std::max(best, words);
    }
  }
  return best;
}

int estimate_registers_per_thread(const PtxKernel& kernel) {
  return std::min(kMaxRegistersPerThread, max_live_register_words(kernel) + kRegisterAllowance);
}

}  // namespace loom::simt
