#include "arch/simt/ptx/register_slots.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "arch/simt/ptx/control_flow_graph.h"
#include "arch/simt/ptx/ptx_types.h"
#include "arch/simt/ptx/register_access.h"
#include "sim/error.h"

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

// Which registers can live in 32-bit lanes. A register is narrow when its declared type
// has at most 32 bits and every instruction that names it has a narrow twin (all the
// registers its twin narrows then share one decision: every src and dst, or only the src
// of mul.wide). The address of an ld/st without address twins is read at 64 bits, and the
// scratch slot is wide, so registers there stay wide. Specials are held at both widths
// (they are read-only), and the executor reads a guard, and wmma its stride, either way.
std::vector<bool> narrow_registers(const PtxKernel& k) {
  const size_t regs = k.register_count();
  const size_t scratch = regs + k.specials.size();  // the storage index of "_" before packing
  std::vector<uint32_t> parent(regs);
  for (size_t r = 0; r < regs; ++r) parent[r] = static_cast<uint32_t>(r);
  auto find = [&](uint32_t r) {
    while (parent[r] != r) r = parent[r] = parent[parent[r]];
    return r;
  };
  std::vector<bool> wide(regs, false);
  for (size_t r = 0; r < regs; ++r) {
    const PtxType t = k.registers[r].type;
    if (t != PtxType::pred && (type_bytes(t) == 0 || type_bytes(t) > 4)) wide[r] = true;
  }
  auto is_reg = [&](uint64_t x) { return x != kNoOperand && !(x & kConstantFlag) && x < regs; };
  for (const DecodedInstruction& d : k.code) {
    if (is_reg(d.address) && !d.narrow_address) wide[d.address] = true;
    if (!d.narrow) {  // every field the renaming covers (unused ones are kNoOperand)
      for (uint32_t x : d.src)
        if (is_reg(x)) wide[x] = true;
      for (uint32_t x : d.dst)
        if (is_reg(x)) wide[x] = true;
      continue;
    }
    uint32_t first = kNoOperand;
    bool scratch_value = false;
    auto join = [&](uint32_t x) {
      if (x == scratch) scratch_value = true;
      if (!is_reg(x)) return;  // a constant or a special
      if (first == kNoOperand) first = x;
      else parent[find(x)] = find(first);
    };
    for (int i = 0; i < d.n_src; ++i) join(d.src[static_cast<size_t>(i)]);
    for (int i = 0; i < d.n_dst; ++i) {
      const uint32_t x = d.dst[static_cast<size_t>(i)];
      if (d.narrow_sources_only) {
        if (is_reg(x)) wide[x] = true;
      } else {
        join(x);
      }
    }
    if (scratch_value && first != kNoOperand) wide[first] = true;
  }
  std::vector<bool> wide_set(regs, false);
  for (size_t r = 0; r < regs; ++r)
    if (wide[r]) wide_set[find(static_cast<uint32_t>(r))] = true;
  std::vector<bool> narrow(regs);
  for (size_t r = 0; r < regs; ++r) narrow[r] = !wide_set[find(static_cast<uint32_t>(r))];
  return narrow;
}

// Lays the slots out in 128-byte units (wide slots, narrow slots, specials, scratch),
// renames every operand to its unit, and switches instructions whose registers are narrow
// to their narrow twins. Each special takes three units: its wide copy, then its narrow one.
void lay_out_slots(PtxKernel& k, const std::vector<uint32_t>& slot, const std::vector<bool>& narrow) {
  const size_t regs = k.register_count();
  uint32_t wide_slots = 0, narrow_slots = 0;
  for (size_t r = 0; r < regs; ++r)
    (narrow[r] ? narrow_slots : wide_slots) = std::max(narrow[r] ? narrow_slots : wide_slots, slot[r] + 1);
  const uint32_t narrow_begin = 2 * wide_slots, specials_begin = narrow_begin + narrow_slots;
  const uint32_t specials = static_cast<uint32_t>(k.specials.size());
  // `narrow_values`: the operand is read by a narrow twin (specials then use their narrow copy).
  auto unit = [&](uint32_t x, bool narrow_values) -> uint32_t {
    if (x == kNoOperand || (x & kConstantFlag)) return x;
    if (x < regs) return narrow[x] ? narrow_begin + slot[x] : 2 * slot[x];
    const uint32_t i = x - static_cast<uint32_t>(regs);
    if (i < specials) return specials_begin + 3 * i + (narrow_values ? 2 : 0);
    return specials_begin + 3 * specials;  // the scratch slot
  };
  for (DecodedInstruction& d : k.code) {
    // One register decides for all those the twin narrows (they share a decision).
    uint32_t reg = kNoOperand;
    for (int i = 0; i < d.n_src && reg == kNoOperand; ++i)
      if (d.src[static_cast<size_t>(i)] < regs) reg = d.src[static_cast<size_t>(i)];
    for (int i = 0; i < d.n_dst && reg == kNoOperand && !d.narrow_sources_only; ++i)
      if (d.dst[static_cast<size_t>(i)] < regs) reg = d.dst[static_cast<size_t>(i)];
    const bool values = reg != kNoOperand && narrow[reg], address = d.address < regs && narrow[d.address];
    if (values || address) {
      d.exec = !address ? d.narrow : values ? d.narrow_both : d.narrow_address;
      LOOM_CHECK(d.exec, "register slots", "an instruction with narrow registers lacks its narrow handler");
    }
    for (uint32_t& x : d.src) x = unit(x, values);
    for (uint32_t& x : d.dst) x = unit(x, values && !d.narrow_sources_only);
    d.guard_narrow = d.guard < regs && narrow[d.guard];
    d.guard = unit(d.guard, false);
    d.address = unit(d.address, false);
    if (auxiliary_operand(d) && d.aux != kNoOperand) {
      if (d.aux < regs && narrow[d.aux]) d.flags |= DecodedInstruction::kFlagAuxNarrow;
      d.aux = unit(static_cast<uint32_t>(d.aux), false);
    }
  }
  k.narrow_begin = narrow_begin;
  k.narrow_end = specials_begin;
  k.special_slot = specials_begin;
  k.scratch_slot = specials_begin + 3 * specials;
  k.constants32.resize(k.constants.size());
  for (size_t i = 0; i < k.constants.size(); ++i) k.constants32[i] = static_cast<uint32_t>(k.constants[i]);
}

}  // namespace

void pack_register_slots(PtxKernel& k, bool narrow_allowed) {
  const size_t regs = k.register_count();
  std::vector<uint32_t> slot(regs);
  for (size_t r = 0; r < regs; ++r) slot[r] = static_cast<uint32_t>(r);
  std::vector<RegisterAccess> access;
  if (regs == 0 || regs > kMaxPackedRegisters || k.code.empty() || !collect_register_access(k, access)) {
    lay_out_slots(k, slot, std::vector<bool>(regs, false));  // one wide slot per register
    return;
  }
  const std::vector<bool> narrow = narrow_allowed ? narrow_registers(k) : std::vector<bool>(regs, false);
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
      // kFlagSourcesReadFirst (register_slots.h): no edges from the results to the operands.
      // That is safe because a result whose old value must survive, where a guard or the
      // active mask leaves lanes unwritten, is live through the instruction, as the operands
      // it reads are, so liveness keeps the two apart.
      const bool reads_first = k.code[pc].flags & DecodedInstruction::kFlagSourcesReadFirst;
      for (uint32_t w : a.writes) {
        live.for_each([&](size_t v) { edge(w, v); });
        for (uint32_t x : a.writes) edge(w, x);
        if (!reads_first)
          for (uint32_t x : a.reads) edge(w, x);
      }
      if (kills(pc))
        for (uint32_t w : a.writes) live.reset(w);
      for (uint32_t r : a.reads) live.set(r);
    }
  }

  // Greedy colouring in register order, narrow and wide registers apart: the lowest slot of
  // its kind no coloured neighbour of its kind holds.
  std::vector<uint32_t> slots(2, 0);
  std::vector<std::vector<uint32_t>> taken_by(2);  // per kind and slot: the last register that found it taken
  for (size_t r = 0; r < regs; ++r) {
    const size_t kind = narrow[r] ? 1 : 0;
    taken_by[kind].resize(slots[kind] + 1, UINT32_MAX);
    conflict[r].for_each([&](size_t v) {
      if (v < r && narrow[v] == narrow[r]) taken_by[kind][slot[v]] = static_cast<uint32_t>(r);
    });
    uint32_t s = 0;
    while (s < slots[kind] && taken_by[kind][s] == r) ++s;
    slot[r] = s;
    slots[kind] = std::max(slots[kind], s + 1);
  }
  lay_out_slots(k, slot, narrow);
}

}  // namespace loom::simt
