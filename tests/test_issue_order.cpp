// The issue-order pass (arch/simt/ptx/issue_order.h): each basic block is reordered as a
// list scheduler would, and nothing a program can observe changes. Checked on every shipped
// kernel against its PTX as written: same blocks, fixed instructions in place, every
// dependent pair in its order, and identical memory after a functional run; and on small
// kernels for what must not move.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/kernel_reference.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/ptx/control_flow_graph.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/register_access.h"
#include "tests/ptx_test_kernels.h"

using namespace loom;
using namespace loom::simt;

namespace {

PtxKernel decode_shipped(const std::string& name, bool schedule) {
  return loom_test::decode_shipped(name, DecodeOptions{.schedule = schedule});
}

PtxKernel decode_text(const std::string& body, bool schedule) {
  return loom_test::decode_text(body, DecodeOptions{.schedule = schedule});
}

// The PTX line of the instruction at each pc: identifies it across both orders.
std::vector<uint32_t> lines(const PtxKernel& k) {
  std::vector<uint32_t> out;
  for (const StaticInstruction& s : k.statics) out.push_back(s.line);
  return out;
}

bool is_load(const StaticInstruction& s) { return s.unit == Unit::ldst && !s.is_store && !s.is_atomic; }

bool overlap(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  return std::any_of(a.begin(), a.end(), [&](uint32_t x) { return std::find(b.begin(), b.end(), x) != b.end(); });
}

}  // namespace

TEST_CASE("issue order: every shipped kernel keeps its blocks, fixed instructions and dependences") {
  for (const KernelInfo& info : kernel_catalog()) {
    CAPTURE(info.name);
    const PtxKernel written = decode_shipped(info.name, false);
    const PtxKernel scheduled = decode_shipped(info.name, true);
    REQUIRE(written.code.size() == scheduled.code.size());
    // The registers each instruction reads and writes, as the timing model's scoreboard sees
    // them (PTX ids: the decoded operands are renamed to packed slots by now).
    std::vector<RegisterAccess> access(written.statics.size());
    for (size_t pc = 0; pc < written.statics.size(); ++pc) {
      const StaticInstruction& s = written.statics[pc];
      access[pc].reads.assign(s.src.begin(), s.src.begin() + s.n_src);
      access[pc].writes.assign(s.dst.begin(), s.dst.begin() + s.n_dst);
    }
    const ControlFlowGraph g = build_control_flow_graph(written.code);
    CHECK(build_control_flow_graph(scheduled.code).block_start == g.block_start);
    const std::vector<uint32_t> before = lines(written), after = lines(scheduled);
    std::map<uint32_t, size_t> position;  // line -> pc in the scheduled kernel
    for (size_t pc = 0; pc < after.size(); ++pc) position[after[pc]] = pc;
    REQUIRE(position.size() == after.size());  // one instruction per line
    int moved = 0;
    for (uint32_t b = 0; b < g.blocks(); ++b)
      for (uint32_t i = g.block_start[b]; i < g.end_of(b); ++i) {
        const size_t at = position.at(before[i]);
        CHECK(at >= g.block_start[b]);  // never leaves its block
        CHECK(at < g.end_of(b));
        moved += at != i;
        const StaticInstruction& s = written.statics[i];
        if (s.is_store || s.is_atomic || s.is_barrier || s.unit == Unit::control || s.unit == Unit::tensor)
          CHECK(at == i);
        for (uint32_t j = i + 1; j < g.end_of(b); ++j) {
          const bool ordered = overlap(access[i].writes, access[j].reads) || overlap(access[i].reads, access[j].writes) ||
                               overlap(access[i].writes, access[j].writes) ||
                               (is_load(s) && is_load(written.statics[j]));
          if (ordered) CHECK(position.at(before[i]) < position.at(before[j]));
        }
      }
    if (info.name == "naive_gemm") CHECK(moved > 10);
  }
}

TEST_CASE("issue order: the naive GEMM's loop issues its eight loads before its four FMAs") {
  const PtxKernel k = decode_shipped("naive_gemm", true);
  const ControlFlowGraph g = build_control_flow_graph(k.code);
  bool found = false;
  for (uint32_t b = 0; b < g.blocks(); ++b) {
    std::vector<uint32_t> loads, fmas;
    for (uint32_t pc = g.block_start[b]; pc < g.end_of(b); ++pc) {
      if (is_load(k.statics[pc]) && k.statics[pc].space == MemorySpace::global) loads.push_back(pc);
      if (k.statics[pc].text.rfind("fma", 0) == 0) fmas.push_back(pc);
    }
    if (loads.size() != 8 || fmas.size() != 4) continue;  // the unrolled loop body
    found = true;
    CHECK(loads.back() < fmas.front());
  }
  CHECK(found);
  // As written, they alternate: ld, ld, fma.
  const PtxKernel w = decode_shipped("naive_gemm", false);
  int alternations = 0;
  for (size_t pc = 1; pc < w.statics.size(); ++pc)
    alternations += is_load(w.statics[pc - 1]) && w.statics[pc].text.rfind("fma", 0) == 0;
  CHECK(alternations == 5);  // four in the unrolled body, one in the remainder loop
}

TEST_CASE("issue order: every shipped kernel computes the same memory either way") {
  for (const KernelInfo& info : kernel_catalog()) {
    CAPTURE(info.name);
    const LaunchRecipe recipe = make_launch_recipe(info.name, loom_test::small_sizes(info.name));
    CHECK(loom_test::run_recipe_functionally(recipe, decode_shipped(info.name, true)) ==
          loom_test::run_recipe_functionally(recipe, decode_shipped(info.name, false)));
  }
}

TEST_CASE("issue order: stores, barriers, %clock and MMAs stay put, and loads do not cross them") {
  const std::string body = R"(
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<6>;
  ld.param.u64 %rd1, [out];
  add.s32 %r1, %r2, 1;
  add.s32 %r3, %r1, 2;
  ld.global.f32 %f1, [%rd1];
  st.global.f32 [%rd1+4], %f2;
  add.f32 %f3, %f4, %f4;
  ld.global.f32 %f5, [%rd1+8];
  mov.u32 %r4, %clock;
  add.s32 %r5, %r6, 3;
  ld.global.f32 %f2, [%rd1+12];
  bar.sync 0;
  ret;
)";
  const PtxKernel written = decode_text(body, false), scheduled = decode_text(body, true);
  REQUIRE(written.statics.size() == scheduled.statics.size());
  // The pc of the instruction whose text contains `text`.
  auto pc_in = [](const PtxKernel& k, const std::string& text) {
    for (size_t pc = 0; pc < k.statics.size(); ++pc)
      if (k.statics[pc].text.find(text) != std::string::npos) return pc;
    FAIL("no instruction " << text);
    return size_t{0};
  };
  auto pc_of = [&](const std::string& text) { return pc_in(scheduled, text); };
  for (const char* fixed : {"st.global", "%clock", "bar.sync"}) CHECK(pc_of(fixed) == pc_in(written, fixed));
  // Before the store: the load goes ahead of the adds (it reads only %rd1), and the add chain
  // keeps its order.
  CHECK(pc_of("[%rd1]") < pc_of("add.s32 %r1"));
  CHECK(pc_of("add.s32 %r1") < pc_of("add.s32 %r3"));
  CHECK(pc_of("[%rd1]") < pc_of("st.global"));
  // Between the store and %clock: the load moves ahead of the independent add.
  CHECK(pc_of("[%rd1+8]") < pc_of("add.f32"));
  CHECK(pc_of("[%rd1+8]") > pc_of("st.global"));
  // After %clock: the load of %f2 moves ahead of the add, not above the clock read.
  CHECK(pc_of("[%rd1+12]") > pc_of("%clock"));
  CHECK(pc_of("[%rd1+12]") < pc_of("add.s32 %r5"));
}

TEST_CASE("issue order: the register estimate (occupancy) is the PTX's as written") {
  for (const KernelInfo& info : kernel_catalog()) {
    CAPTURE(info.name);
    CHECK(decode_shipped(info.name, true).estimated_registers == decode_shipped(info.name, false).estimated_registers);
  }
}
