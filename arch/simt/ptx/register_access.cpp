#include "arch/simt/ptx/register_access.h"

#include <algorithm>

namespace loom::simt {

namespace {

void add_unique(std::vector<uint32_t>& v, uint32_t r) {
  if (std::find(v.begin(), v.end(), r) == v.end()) v.push_back(r);
}

}  // namespace

bool collect_register_access(const PtxKernel& k, std::vector<RegisterAccess>& out) {
  const uint32_t regs = k.register_count();
  auto is_reg = [&](uint64_t x) { return x != kNoOperand && !(x & kConstantFlag) && x < regs; };
  out.assign(k.code.size(), RegisterAccess{});
  for (size_t pc = 0; pc < k.code.size(); ++pc) {
    const DecodedInstruction& d = k.code[pc];
    const StaticInstruction& s = k.statics[pc];
    RegisterAccess& a = out[pc];
    // Every field the renaming covers (all entries of src, since renaming touches them all).
    std::vector<uint32_t> fields;
    for (uint32_t x : d.src)
      if (is_reg(x)) fields.push_back(x);
    for (int i = 0; i < d.n_src; ++i)
      if (is_reg(d.src[static_cast<size_t>(i)])) add_unique(a.reads, d.src[static_cast<size_t>(i)]);
    // The guard, the address and wmma's stride are fields and reads alike.
    const uint64_t aux = auxiliary_operand(d) ? d.aux : uint64_t{kNoOperand};
    for (const uint64_t x : {uint64_t{d.guard}, uint64_t{d.address}, aux})
      if (is_reg(x)) {
        fields.push_back(static_cast<uint32_t>(x));
        add_unique(a.reads, static_cast<uint32_t>(x));
      }
    for (int i = 0; i < s.n_src; ++i) {
      if (std::find(fields.begin(), fields.end(), s.src[static_cast<size_t>(i)]) == fields.end()) return false;
      add_unique(a.reads, s.src[static_cast<size_t>(i)]);
    }
    for (int i = 0; i < d.n_dst; ++i)
      if (is_reg(d.dst[static_cast<size_t>(i)])) add_unique(a.writes, d.dst[static_cast<size_t>(i)]);
    for (int i = 0; i < s.n_dst; ++i) {
      const uint32_t r = s.dst[static_cast<size_t>(i)];
      if (std::find(d.dst.begin(), d.dst.end(), r) == d.dst.end()) return false;
      add_unique(a.writes, r);
    }
  }
  return true;
}

}  // namespace loom::simt
