// The SIMT timing model end to end, driven by a scripted WarpInstructionSource: each warp
// runs a fixed list of instructions (and memory segments) written by the test, so every
// expected figure follows from the model's documented rules.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <ctime>
#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/simt/timing/gpu_engine.h"
#include "arch/simt/timing/timing_constants.h"
#include "arch/simt/warp_instruction.h"
#include "sim/error.h"

using namespace loom;
using namespace loom::simt;

namespace {

// ------------------------------------------------------------------------------------
// A scripted source

// Instructions live in one array in program order (as a real decoder keeps them), so the
// engine can tell a taken branch from a fall-through.
struct Program {
  std::vector<StaticInstruction> code;
  int add(StaticInstruction inst) {
    code.push_back(std::move(inst));
    return static_cast<int>(code.size()) - 1;
  }
};

StaticInstruction op(Unit unit, std::initializer_list<int> dst, std::initializer_list<int> src) {
  StaticInstruction s;
  s.unit = unit;
  s.energy = unit == Unit::fp32 ? EnergyClass::fp32_op : EnergyClass::int_op;
  for (int d : dst) s.dst[s.n_dst++] = static_cast<uint16_t>(d);
  for (int r : src) s.src[s.n_src++] = static_cast<uint16_t>(r);
  if (unit == Unit::fp32) s.flops_per_lane = 2;
  return s;
}
StaticInstruction load(MemorySpace space, int dst, int address_reg) {
  StaticInstruction s = op(Unit::ldst, {dst}, {address_reg});
  s.space = space;
  s.energy = space == MemorySpace::shared ? EnergyClass::load_shared : EnergyClass::load_global;
  return s;
}
StaticInstruction store(MemorySpace space, int address_reg, int value_reg) {
  StaticInstruction s = op(Unit::ldst, {}, {address_reg, value_reg});
  s.space = space;
  s.is_store = true;
  s.energy = EnergyClass::store_global;
  return s;
}
StaticInstruction mma(TensorPrecision p, int acc_base) {
  StaticInstruction s;
  s.unit = Unit::tensor;
  s.energy = EnergyClass::tensor_mma;
  s.tensor = p;
  s.mma_m = s.mma_n = s.mma_k = 16;
  s.flops_per_warp = 2 * 16 * 16 * 16;
  for (int i = 0; i < 8; ++i) s.dst[s.n_dst++] = static_cast<uint16_t>(acc_base + i);
  for (int i = 0; i < 16; ++i) s.src[s.n_src++] = static_cast<uint16_t>(i);  // A and B fragments
  for (int i = 0; i < 8; ++i) s.src[s.n_src++] = static_cast<uint16_t>(acc_base + i);
  return s;
}
StaticInstruction control(bool barrier, bool branch) {
  StaticInstruction s;
  s.unit = Unit::control;
  s.energy = EnergyClass::control;
  s.is_barrier = barrier;
  s.is_branch = branch;
  return s;
}

struct Step {
  int inst = 0;
  std::vector<MemorySegment> segments;
  uint32_t mask = 0xffffffffu;
};
using Script = std::vector<Step>;

// 32 lanes, lane i at base + i * stride, `bytes` each.
std::vector<MemorySegment> lanes(uint64_t base, uint64_t stride, uint32_t bytes = 4, int count = 32) {
  std::vector<MemorySegment> s;
  for (int i = 0; i < count; ++i) s.push_back(MemorySegment{base + stride * static_cast<uint64_t>(i), bytes, static_cast<uint8_t>(i)});
  return s;
}

class ScriptedSource : public WarpInstructionSource {
 public:
  using ScriptOf = std::function<const Script*(int64_t cta, int warp)>;
  ScriptedSource(const Program& program, int64_t ctas, int warps_per_cta, ScriptOf script_of, int registers = 32,
                 int64_t shared = 0)
      : program_(program), ctas_(ctas), script_of_(std::move(script_of)) {
    resources_.warps = warps_per_cta;
    resources_.threads = warps_per_cta * 32;
    resources_.registers_per_thread = registers;
    resources_.shared_bytes = shared;
  }

  struct Issue {
    int64_t cta;
    int warp;
    size_t step;
  };
  std::vector<Issue> log;
  bool record = true;
  bool issued_at_barrier = false;

  int64_t cta_count() const override { return ctas_; }
  CtaResources cta_resources() const override { return resources_; }
  void reserve_slots(int slot_count) override { slots_.assign(static_cast<size_t>(slot_count), Slot{}); }
  void start_cta(int slot, int64_t cta_id) override {
    Slot& s = slots_.at(static_cast<size_t>(slot));
    CHECK_FALSE(s.live);  // the engine must not hand out a busy slot
    s.live = true;
    s.cta = cta_id;
    s.warps.assign(static_cast<size_t>(resources_.warps), WarpState{});
    for (int w = 0; w < resources_.warps; ++w) s.warps[static_cast<size_t>(w)].script = script_of_(cta_id, w);
  }
  void retire_cta(int slot) override {
    Slot& s = slots_.at(static_cast<size_t>(slot));
    for (const WarpState& w : s.warps) CHECK(w.pos == w.script->size());  // retired only when finished
    s.live = false;
    ++retired_;
  }
  bool warp_done(int slot, int warp) const override { return state(slot, warp).pos == state(slot, warp).script->size(); }
  bool warp_at_barrier(int slot, int warp) const override { return state(slot, warp).at_barrier; }
  const StaticInstruction& peek(int slot, int warp) const override {
    const WarpState& w = state(slot, warp);
    return program_.code[static_cast<size_t>((*w.script)[w.pos].inst)];
  }
  void execute(int slot, int warp, ExecutedInstruction& out) override {
    Slot& s = slots_[static_cast<size_t>(slot)];
    WarpState& w = s.warps[static_cast<size_t>(warp)];
    if (w.at_barrier) issued_at_barrier = true;  // checked after the run (no doctest on this path)
    const Step& step = (*w.script)[w.pos];
    const StaticInstruction& inst = program_.code[static_cast<size_t>(step.inst)];
    if (record) log.push_back(Issue{s.cta, warp, w.pos});
    out.inst = &inst;
    out.pc = static_cast<uint32_t>(step.inst);
    out.active_mask = step.mask;
    out.n_segments = static_cast<uint16_t>(step.segments.size());
    std::copy(step.segments.begin(), step.segments.end(), out.segments.begin());
    ++w.pos;
    if (inst.is_barrier) {
      w.at_barrier = true;
      bool all = true;
      for (const WarpState& o : s.warps) all = all && (o.at_barrier || o.pos == o.script->size());
      if (all)
        for (WarpState& o : s.warps) o.at_barrier = false;
    }
    out.warp_done = warp_done(slot, warp);
    out.warp_at_barrier = w.at_barrier;
    out.next = out.warp_done ? nullptr : &peek(slot, warp);
  }

  int64_t retired() const { return retired_; }
  // Position in the log of the first issue of (cta, warp, step).
  size_t position(int64_t cta, int warp, size_t step) const {
    for (size_t i = 0; i < log.size(); ++i)
      if (log[i].cta == cta && log[i].warp == warp && log[i].step == step) return i;
    FAIL("issue not found");
    return 0;
  }

 private:
  struct WarpState {
    const Script* script = nullptr;
    size_t pos = 0;
    bool at_barrier = false;
  };
  struct Slot {
    bool live = false;
    int64_t cta = 0;
    std::vector<WarpState> warps;
  };
  const WarpState& state(int slot, int warp) const {
    return slots_.at(static_cast<size_t>(slot)).warps.at(static_cast<size_t>(warp));
  }

  const Program& program_;
  int64_t ctas_;
  ScriptOf script_of_;
  CtaResources resources_;
  std::vector<Slot> slots_;
  int64_t retired_ = 0;
};

// ------------------------------------------------------------------------------------
// Configurations and helpers

// A Volta-like GPU (gpu_config.h defaults), shrunk where size only costs test time.
GpuConfig test_gpu(int sms = 1) {
  GpuConfig c;
  c.name = "test-volta";
  c.source_file = "test_gpu.json";
  c.sms = sms;
  c.l1.bytes = c.l1_shared_bytes - c.shared_bytes;  // 32 KiB
  c.l2_bytes = 1 << 20;
  c.l2_slices = 8;
  c.dram_channels = 8;
  return c;
}

GpuStats run(const GpuConfig& c, ScriptedSource& source) {
  const GpuStats s = simulate_launch(c, source);
  int64_t sum = 0;
  for (int64_t v : s.subcore_cycles) sum += v;
  CHECK(sum == s.cycles * c.sms * c.subcores_per_sm);  // every sub-core cycle has one reason
  CHECK(source.retired() == source.cta_count());
  CHECK_FALSE(source.issued_at_barrier);
  return s;
}

int64_t stall(const GpuStats& s, StallReason r) { return s.subcore_cycles[static_cast<size_t>(r)]; }

// One CTA of one warp running `script`.
GpuStats run_one_warp(const GpuConfig& c, const Program& p, const Script& script, ScriptedSource** out = nullptr) {
  static std::unique_ptr<ScriptedSource> keep;
  keep = std::make_unique<ScriptedSource>(p, 1, 1, [&](int64_t, int) { return &script; });
  if (out) *out = keep.get();
  return run(c, *keep);
}

Script repeat(int inst, int n) { return Script(static_cast<size_t>(n), Step{inst, {}}); }

// CPU time of this process: the rate does not depend on what else the machine runs.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

// ======================================================================================
// Issue, units, scoreboard, register banks

TEST_CASE("simt timing: a dependent FP32 chain takes N x latency, charged to the scoreboard") {
  const GpuConfig c = test_gpu();
  Program p;
  const int fma = p.add(op(Unit::fp32, {1}, {1, 2}));
  const int n = 64;
  const GpuStats s = run_one_warp(c, p, repeat(fma, n));
  // First issue after one fetch, then one every `latency`; the last result lands latency later.
  CHECK(s.cycles == c.fetch_latency + n * c.fp32.latency);
  CHECK(stall(s, StallReason::issued) == n);
  CHECK(stall(s, StallReason::scoreboard) == (n - 1) * (c.fp32.latency - 1));
  CHECK(stall(s, StallReason::fetch) == c.fetch_latency);
  CHECK(s.warp_instructions == n);
  CHECK(s.thread_instructions == 32 * n);
  CHECK(s.flops == 2 * 32 * n);
}

TEST_CASE("simt timing: independent instructions issue one per cycle, limited by unit lanes") {
  Program p;
  std::vector<int> fp, in;
  for (int i = 0; i < 8; ++i) fp.push_back(p.add(op(Unit::fp32, {10 + i}, {1, 2})));
  for (int i = 0; i < 8; ++i) in.push_back(p.add(op(Unit::int_alu, {20 + i}, {1, 2})));
  const int n = 64;
  Script fp_only, mixed;
  for (int i = 0; i < n; ++i) {
    fp_only.push_back(Step{fp[static_cast<size_t>(i % 8)], {}});
    mixed.push_back(Step{(i % 2 ? in : fp)[static_cast<size_t>(i / 2 % 8)], {}});
  }
  GpuConfig c = test_gpu();
  SUBCASE("16 FP32 lanes: 2 cycles per warp instruction") {
    const GpuStats s = run_one_warp(c, p, fp_only);
    CHECK(s.cycles == c.fetch_latency + 2 * (n - 1) + c.fp32.latency);
    CHECK(stall(s, StallReason::execution_unit) == n - 1);
  }
  SUBCASE("32 FP32 lanes: one per cycle") {
    c.fp32.lanes = 32;
    const GpuStats s = run_one_warp(c, p, fp_only);
    CHECK(s.cycles == c.fetch_latency + (n - 1) + c.fp32.latency);
    CHECK(stall(s, StallReason::execution_unit) == 0);
  }
  SUBCASE("alternating FP32 and INT pipes: one per cycle") {
    const GpuStats s = run_one_warp(c, p, mixed);
    CHECK(s.cycles == c.fetch_latency + (n - 1) + c.int_alu.latency);
  }
  SUBCASE("FP16 shares the FP32 pipe") {
    const int h = p.add(op(Unit::fp16, {30}, {1, 2}));
    Script alt;
    for (int i = 0; i < n; ++i) alt.push_back(Step{i % 2 ? h : fp[static_cast<size_t>(i / 2 % 8)], {}});
    const GpuStats s = run_one_warp(c, p, alt);
    CHECK(s.cycles >= 2 * (n - 1));
  }
}

TEST_CASE("simt timing: GTO keeps the greedy warp, LRR rotates") {
  Program p;
  std::vector<int> ops;
  for (int i = 0; i < 3; ++i) ops.push_back(p.add(op(Unit::int_alu, {10 + i}, {1})));
  Script script;
  for (int i : ops) script.push_back(Step{i, {}});
  GpuConfig c = test_gpu();
  c.subcores_per_sm = 1;  // both warps on one scheduler
  c.int_alu.lanes = 32;
  auto order = [&](WarpSchedulerPolicy policy) {
    c.scheduler = policy;
    ScriptedSource src(p, 1, 2, [&](int64_t, int) { return &script; });
    run(c, src);
    std::vector<int> warps;
    for (const auto& i : src.log) warps.push_back(i.warp);
    return warps;
  };
  CHECK(order(WarpSchedulerPolicy::gto) == std::vector<int>{0, 0, 0, 1, 1, 1});
  CHECK(order(WarpSchedulerPolicy::lrr) == std::vector<int>{0, 1, 0, 1, 0, 1});
}

TEST_CASE("simt timing: register bank conflicts are counted and slow issue") {
  Program p;
  std::vector<int> same, spread;
  for (int i = 0; i < 4; ++i) {
    same.push_back(p.add(op(Unit::fp32, {41 + 2 * i}, {2, 4, 6})));  // three reads of bank 0
    spread.push_back(p.add(op(Unit::fp32, {41 + 2 * i}, {2, 3})));   // banks 0 and 1
  }
  const int n = 32;
  Script a, b;
  for (int i = 0; i < n; ++i) {
    a.push_back(Step{same[static_cast<size_t>(i % 4)], {}});
    b.push_back(Step{spread[static_cast<size_t>(i % 4)], {}});
  }
  const GpuConfig c = test_gpu();  // 2 banks, 1 port
  const GpuStats conflicted = run_one_warp(c, p, a);
  CHECK(conflicted.register_bank_conflicts == 2 * n);
  CHECK(stall(conflicted, StallReason::register_bank) == 2 * (n - 1));
  CHECK(conflicted.cycles == c.fetch_latency + 3 * (n - 1) + 2 + c.fp32.latency);
  const GpuStats clean = run_one_warp(c, p, b);
  CHECK(clean.register_bank_conflicts == 0);
  CHECK(clean.cycles < conflicted.cycles);
}

TEST_CASE("simt timing: a taken branch refetches after branch_latency") {
  Program p;
  const int a = p.add(op(Unit::int_alu, {10}, {1}));
  const int bra = p.add(control(false, true));
  const int fall = p.add(op(Unit::int_alu, {11}, {1}));
  const int target = p.add(op(Unit::int_alu, {12}, {1}));
  GpuConfig c = test_gpu();
  c.branch_latency = 12;
  const GpuStats not_taken = run_one_warp(c, p, Script{{a, {}}, {bra, {}}, {fall, {}}});
  const GpuStats taken = run_one_warp(c, p, Script{{a, {}}, {bra, {}}, {target, {}}});
  CHECK(not_taken.cycles == c.fetch_latency + 2 + c.int_alu.latency);
  CHECK(taken.cycles == c.fetch_latency + 1 + c.branch_latency + c.int_alu.latency);
  CHECK(stall(taken, StallReason::fetch) == c.fetch_latency + c.branch_latency - 1);
}

// ======================================================================================
// Shared memory and the coalescer through the engine

TEST_CASE("simt timing: shared-memory bank conflicts set wavefronts and latency") {
  Program p;
  const int ld = p.add(load(MemorySpace::shared, 10, 1));
  const GpuConfig c = test_gpu();
  struct Case {
    uint64_t stride;
    int wavefronts;
  };
  for (const Case k : {Case{4, 1}, Case{8, 2}, Case{128, 32}, Case{0, 1}}) {
    CAPTURE(k.stride);
    const GpuStats s = run_one_warp(c, p, Script{{ld, lanes(256, k.stride)}});
    CHECK(s.shared_requests == 1);
    CHECK(s.shared_wavefronts == k.wavefronts);
    CHECK(s.shared_bank_conflicts() == k.wavefronts - 1);
    CHECK(s.cycles == c.fetch_latency + c.shared_latency + k.wavefronts - 1);
  }
}

TEST_CASE("simt timing: param and const loads bypass the memory system") {
  Program p;
  const int ld = p.add(load(MemorySpace::param, 10, 1));
  const int use = p.add(op(Unit::fp32, {11}, {10, 3}));
  const GpuConfig c = test_gpu();
  const GpuStats s = run_one_warp(c, p, Script{{ld, {}}, {use, {}}});
  CHECK(s.cycles == c.fetch_latency + kParamLoadLatency + c.fp32.latency);
  CHECK(s.global_load_requests == 0);
  CHECK(s.l1_sector_accesses == 0);
  CHECK(s.shared_requests == 0);
}

TEST_CASE("simt timing: coalescing counts sectors and lines of a global load") {
  Program p;
  const int ld = p.add(load(MemorySpace::global, 10, 1));
  const GpuConfig c = test_gpu();
  const GpuStats unit = run_one_warp(c, p, Script{{ld, lanes(1 << 20, 4)}});
  CHECK(unit.global_load_requests == 1);
  CHECK(unit.l1_sector_accesses == 4);
  CHECK(unit.l2_sector_accesses == 4);
  CHECK(unit.dram_read_bytes == 128);
  const GpuStats strided = run_one_warp(c, p, Script{{ld, lanes(1 << 20, 32)}});
  CHECK(strided.l1_sector_accesses == 32);
  CHECK(strided.dram_read_bytes == 32 * 32);
  // 8 lines of 128 B come back through the SM's 64 B/cycle NoC port, 2 cycles each.
  CHECK(strided.cycles == unit.cycles + static_cast<int64_t>(8 * 128 / c.noc_bytes_per_cycle_per_sm) - 2);
}

// ======================================================================================
// Caches and DRAM

TEST_CASE("simt timing: a reused line hits in L1") {
  Program p;
  const int ld1 = p.add(load(MemorySpace::global, 10, 1));
  const int ld2 = p.add(load(MemorySpace::global, 11, 10));  // address depends on the first load
  const GpuConfig c = test_gpu();
  const Script script{{ld1, lanes(4096, 4)}, {ld2, lanes(4096, 4)}};
  const GpuStats s = run_one_warp(c, p, script);
  CHECK(s.l1_sector_accesses == 8);
  CHECK(s.l1_sector_hits == 4);
  CHECK(s.l2_sector_accesses == 4);
  const GpuStats once = run_one_warp(c, p, Script{{ld1, lanes(4096, 4)}});
  CHECK(s.cycles == once.cycles + c.l1.hit_latency);
}

TEST_CASE("simt timing: a .cg load (bypass_l1) is served by L2 and never hits or fills L1") {
  StaticInstruction cg = load(MemorySpace::global, 10, 1), cg_again = load(MemorySpace::global, 11, 10);
  cg.bypass_l1 = cg_again.bypass_l1 = true;
  Program p;  // two .cg loads of one line; the second's address depends on the first
  const int ld1 = p.add(cg), ld2 = p.add(cg_again);
  const GpuConfig c = test_gpu();
  const Script reread{{ld1, lanes(4096, 4)}, {ld2, lanes(4096, 4)}};
  const GpuStats s = run_one_warp(c, p, reread);
  CHECK(s.l1_sector_accesses == 8);  // it passes the L1 stage...
  CHECK(s.l1_sector_hits == 0);      // ...but never hits there
  CHECK(s.l2_sector_accesses == 8);
  CHECK(s.l2_sector_hits == 4);      // the reread is an L2 hit
  CHECK(s.dram_read_bytes == 128);
  // Timed exactly as ordinary loads on a GPU without L1.
  Program plain;
  const int plain1 = plain.add(load(MemorySpace::global, 10, 1)), plain2 = plain.add(load(MemorySpace::global, 11, 10));
  GpuConfig no_l1 = c;
  no_l1.l1.bytes = 0;
  CHECK(s.cycles == run_one_warp(no_l1, plain, Script{{plain1, lanes(4096, 4)}, {plain2, lanes(4096, 4)}}).cycles);
  CHECK(s.cycles > run_one_warp(c, plain, Script{{plain1, lanes(4096, 4)}, {plain2, lanes(4096, 4)}}).cycles);

  Program q;  // a .cg load, then an ordinary one of the same line: nothing was installed in L1
  const int first = q.add(cg), cached = q.add(load(MemorySpace::global, 11, 10));
  const GpuStats after = run_one_warp(c, q, Script{{first, lanes(4096, 4)}, {cached, lanes(4096, 4)}});
  CHECK(after.l1_sector_hits == 0);
  CHECK(after.l2_sector_hits == 4);
  CHECK(after.cycles == s.cycles);
}

TEST_CASE("simt timing: a launch without shared memory gets the whole unified array as L1") {
  // One warp reads 64 KiB twice, a line per lane: 512 lines. A 32 KiB L1 (the largest
  // carve-out) keeps none of them for the second pass; the 128 KiB the launch gets when the
  // driver may pick the carve-out keeps them all.
  Program p;
  const int ld = p.add(load(MemorySpace::global, 10, 1));
  Script twice;
  for (int pass = 0; pass < 2; ++pass)
    for (uint64_t base = 0; base < 64 * 1024; base += 32 * 128) twice.push_back(Step{ld, lanes((1 << 20) + base, 128)});
  GpuConfig fixed = test_gpu();
  const GpuStats small = run_one_warp(fixed, p, twice);
  CHECK(small.shared_carveout_bytes == 96 * 1024);
  CHECK(small.l1_bytes == 32 * 1024);
  CHECK(small.l1_sector_hits == 0);
  GpuConfig adaptive = fixed;
  adaptive.shared_carveouts = {0, 8 * 1024, 16 * 1024, 32 * 1024, 64 * 1024, 96 * 1024};
  const GpuStats large = run_one_warp(adaptive, p, twice);
  CHECK(large.shared_carveout_bytes == 0);
  CHECK(large.l1_bytes == 128 * 1024);
  CHECK(large.l1_sector_accesses == 1024);
  CHECK(large.l1_sector_hits == 512);  // the whole second pass
  CHECK(large.cycles < small.cycles);
}

TEST_CASE("simt timing: dependent load chains see the L2 hit and DRAM latencies") {
  Program p;
  const int chase = p.add(load(MemorySpace::global, 1, 1));  // p = *p
  GpuConfig c = test_gpu();
  c.l1.bytes = 0;  // every load goes to L2, as ld.global.cg does
  auto chain = [&](int n, uint64_t stride) {
    Script s;
    for (int i = 0; i < n; ++i) s.push_back(Step{chase, lanes(8192 + stride * static_cast<uint64_t>(i), 0, 4, 1)});
    return run_one_warp(c, p, s).cycles;
  };
  SUBCASE("the same word: one DRAM miss, then L2 hits") {
    const int64_t first = chain(1, 0);
    CHECK(first == c.fetch_latency + c.l2_hit_latency + c.dram_latency);
    CHECK((chain(21, 0) - first) == 20 * c.l2_hit_latency);
  }
  SUBCASE("new lines: every load misses to DRAM") {
    const int64_t n = 20;
    const double per_load = static_cast<double>(chain(static_cast<int>(n), 4096) - c.fetch_latency) / n;
    CHECK(per_load == doctest::Approx(c.l2_hit_latency + c.dram_latency).epsilon(0.01));
  }
  SUBCASE("the interconnect adds its latency each way") {
    const int64_t base = chain(21, 0) - chain(1, 0);
    c.noc_latency = 10;
    CHECK(chain(21, 0) - chain(1, 0) == base + 20 * 2 * c.noc_latency);
  }
}

TEST_CASE("simt timing: a streaming load over many SMs runs at the DRAM bandwidth") {
  GpuConfig c = test_gpu(16);
  c.dram_bytes_per_second = 128.0 * c.clock_hz;  // 128 B/cycle
  Program p;
  std::vector<int> loads;
  for (int i = 0; i < 8; ++i) loads.push_back(p.add(load(MemorySpace::global, 10 + i, 1)));
  const int ctas = 16 * 8, warps = 4, per_warp = 64;
  const uint64_t total_warps = static_cast<uint64_t>(ctas) * warps;
  std::vector<Script> scripts(total_warps);
  for (uint64_t w = 0; w < total_warps; ++w)
    for (int i = 0; i < per_warp; ++i)  // at step i every warp reads the next line of one stream
      scripts[w].push_back(Step{loads[static_cast<size_t>(i % 8)], lanes((static_cast<uint64_t>(i) * total_warps + w) * 128, 4)});
  ScriptedSource src(p, ctas, warps, [&](int64_t cta, int warp) { return &scripts[static_cast<size_t>(cta * warps + warp)]; });
  src.record = false;
  const GpuStats s = run(c, src);
  const int64_t bytes = static_cast<int64_t>(total_warps) * per_warp * 128;
  CHECK(s.dram_read_bytes == bytes);
  const double achieved = static_cast<double>(s.dram_read_bytes) / static_cast<double>(s.cycles);
  CHECK(achieved <= c.dram_bytes_per_cycle() * 1.0001);
  CHECK(achieved >= 0.9 * c.dram_bytes_per_cycle());
  CHECK(s.l1_sector_hits == 0);
  CHECK(s.l2_sector_hits == 0);
}

TEST_CASE("simt timing: L2 hits are limited by the slices' bandwidth") {
  GpuConfig c = test_gpu(4);
  c.l1.bytes = 0;  // every load goes to L2
  c.l2_slices = 2;
  c.l2_bytes_per_cycle_per_slice = 16;  // 32 B/cycle in all, well below 4 SMs x 64 B/cycle of NoC
  Program p;
  std::vector<int> loads;
  for (int i = 0; i < 8; ++i) loads.push_back(p.add(load(MemorySpace::global, 10 + i, 1)));
  const int ctas = 4 * 4, warps = 8, per_warp = 64;
  Script script;  // every warp walks the same 16 KiB: after the first pass, all L2 hits
  for (int i = 0; i < per_warp; ++i) script.push_back(Step{loads[static_cast<size_t>(i % 8)], lanes(static_cast<uint64_t>(i % 128) * 128, 4)});
  ScriptedSource src(p, ctas, warps, [&](int64_t, int) { return &script; });
  src.record = false;
  const GpuStats s = run(c, src);
  CHECK(s.dram_read_bytes == 64 * 128);  // each line fetched once
  const double achieved = static_cast<double>(s.l2_sector_accesses * c.l2_sector_bytes) / static_cast<double>(s.cycles);
  CHECK(achieved <= 32.0 * 1.0001);
  CHECK(achieved >= 0.9 * 32.0);
}

TEST_CASE("simt timing: exhausted MSHRs back up the MIO queue (memory_pipe stalls)") {
  Program p;
  std::vector<int> loads;
  for (int i = 0; i < 16; ++i) loads.push_back(p.add(load(MemorySpace::global, 10 + i, 1)));
  std::vector<Script> scripts(8);
  for (int w = 0; w < 8; ++w)
    for (int i = 0; i < 16; ++i)
      scripts[static_cast<size_t>(w)].push_back(Step{loads[static_cast<size_t>(i)], lanes(static_cast<uint64_t>(w * 16 + i) * 4096, 4)});
  auto go = [&](int mshrs) {
    GpuConfig c = test_gpu();
    c.l1.mshrs = mshrs;
    ScriptedSource src(p, 1, 8, [&](int64_t, int w) { return &scripts[static_cast<size_t>(w)]; });
    return run(c, src);
  };
  const GpuStats plenty = go(256), few = go(2);
  CHECK(stall(plenty, StallReason::memory_pipe) == 0);
  CHECK(stall(few, StallReason::memory_pipe) > 0);
  CHECK(few.cycles > 10 * plenty.cycles);  // 128 misses, two at a time
}

TEST_CASE("simt timing: stores write through to L2 and reach DRAM on eviction or at the end") {
  Program p;
  const int st = p.add(store(MemorySpace::global, 1, 2));
  const int ld = p.add(load(MemorySpace::global, 10, 1));
  GpuConfig c = test_gpu();
  SUBCASE("dirty lines still in L2 are written back at the end") {
    const GpuStats s = run_one_warp(c, p, Script{{st, lanes(0, 4)}, {ld, lanes(0, 4)}});
    CHECK(s.global_store_requests == 1);
    CHECK(s.dram_write_bytes == 128);
    CHECK(s.dram_read_bytes == 0);  // the load found the stored sectors in L2
    CHECK(s.l1_sector_hits == 0);   // stores do not allocate in L1
    CHECK(s.l2_sector_hits == 8);
  }
  SUBCASE("a small L2 evicts dirty lines during the kernel: every byte is written once") {
    c.l2_bytes = 8 * 1024;
    c.l2_slices = 1;
    Script script;
    for (int i = 0; i < 256; ++i) script.push_back(Step{st, lanes(static_cast<uint64_t>(i) * 128, 4)});
    const GpuStats s = run_one_warp(c, p, script);
    CHECK(s.dram_write_bytes == 256 * 128);
  }
}

// ======================================================================================
// Tensor cores

TEST_CASE("simt timing: V100 tensor cores sustain one 16x16x16 MMA per 32 cycles per sub-core") {
  Program p;
  std::vector<int> mmas;
  for (int a = 0; a < 4; ++a) mmas.push_back(p.add(mma(TensorPrecision::f16_f32, 100 + 8 * a)));
  const int per_warp = 25, warps = 8;  // two warps per sub-core
  Script script;
  for (int i = 0; i < per_warp; ++i) script.push_back(Step{mmas[static_cast<size_t>(i % 4)], {}});
  const GpuConfig c = test_gpu();
  ScriptedSource src(p, 1, warps, [&](int64_t, int) { return &script; });
  const GpuStats s = run(c, src);
  const int64_t per_subcore = per_warp * warps / c.subcores_per_sm;
  CHECK(s.tensor_mma_instructions == per_warp * warps);
  CHECK(s.tensor_core_ops == 64 * per_warp * warps);
  CHECK(s.tensor_busy_cycles == 64 * per_warp * warps);
  // 4096 FMAs per MMA / (2 cores x 64 FMAs per cycle) = 32 cycles, back to back.
  CHECK(s.cycles == c.fetch_latency + 32 * (per_subcore - 1) + 35);
  CHECK(s.flops == int64_t{2 * 4096} * per_warp * warps);
  const double utilisation = static_cast<double>(s.tensor_busy_cycles) /
                             static_cast<double>(s.cycles * c.subcores_per_sm * c.tensor.per_subcore);
  CHECK(utilisation > 0.97);
}

TEST_CASE("simt timing: a dependent MMA chain pays the decomposition's latency") {
  Program p;
  const int acc = p.add(mma(TensorPrecision::f16_f32, 100));  // D = A*B + D
  GpuConfig c = test_gpu();
  const int n = 10;
  // latency = occupancy + pipeline_latency - 1 = 32 + 4 - 1 (tensor_core.h)
  CHECK(run_one_warp(c, p, repeat(acc, n)).cycles == c.fetch_latency + n * 35);
  c.tensor.pipeline_latency = 20;  // now set j+1 waits for set j: 3 x 20 + 7 + 20
  CHECK(run_one_warp(c, p, repeat(acc, n)).cycles == c.fetch_latency + n * 87);
}

TEST_CASE("simt timing: Turing-like INT8 MMAs run at twice the FP16 rate; unsupported precisions are input errors") {
  Program p;
  std::vector<int> f16, s8;
  for (int a = 0; a < 4; ++a) {
    f16.push_back(p.add(mma(TensorPrecision::f16_f16, 100 + 8 * a)));
    s8.push_back(p.add(mma(TensorPrecision::s8_s32, 100 + 8 * a)));
  }
  GpuConfig c = test_gpu();
  c.tensor.rate_s8 = 2;
  c.tensor.rate_s4 = 4;
  c.tensor.rate_b1 = 16;
  const int n = 40;
  auto busy = [&](const std::vector<int>& ops) {
    Script s;
    for (int i = 0; i < n; ++i) s.push_back(Step{ops[static_cast<size_t>(i % 4)], {}});
    return run_one_warp(c, p, s);
  };
  const GpuStats a = busy(f16), b = busy(s8);
  CHECK(a.cycles == c.fetch_latency + 32 * (n - 1) + 35);
  CHECK(b.cycles == c.fetch_latency + 16 * (n - 1) + 19);
  CHECK(b.tensor_core_ops == a.tensor_core_ops);  // same work in 4x4x4 equivalents
  CHECK(b.tensor_busy_cycles * 2 == a.tensor_busy_cycles);

  const int bf16 = p.add(mma(TensorPrecision::bf16_f32, 100));
  try {
    run_one_warp(c, p, repeat(bf16, 1));
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("this GPU's tensor cores do not support bf16") != std::string::npos);
    CHECK(e.field() == "tensor");
  }
  // The engine is left ready for the next launch.
  CHECK(busy(f16).cycles == a.cycles);
}

// ======================================================================================
// CTAs, occupancy, barriers

TEST_CASE("simt timing: the CTA scheduler keeps SMs at the occupancy limit") {
  Program p;
  const int fma = p.add(op(Unit::fp32, {10}, {10}));
  const Script script = repeat(fma, 10);
  GpuConfig c = test_gpu(2);
  SUBCASE("registers limit: 64 per thread, 8 warps -> 4 CTAs per SM") {
    ScriptedSource src(p, 20, 8, [&](int64_t, int) { return &script; }, 64);
    const GpuStats s = run(c, src);
    CHECK(s.resident_ctas_per_sm == 4);
    CHECK(std::string(s.occupancy_limiter) == "registers");
    CHECK(s.ctas == 20);
  }
  SUBCASE("shared memory limit: 40 KiB per CTA of a 96 KiB carve-out -> 2") {
    ScriptedSource src(p, 20, 2, [&](int64_t, int) { return &script; }, 32, 40 * 1024);
    const GpuStats s = run(c, src);
    CHECK(s.resident_ctas_per_sm == 2);
    CHECK(std::string(s.occupancy_limiter) == "shared");
    // 20 CTAs, 2 SMs x 2 resident: 5 waves of one CTA's time each
    const int64_t one_cta = c.fetch_latency + 10 * c.fp32.latency;
    CHECK(s.cycles == 5 * one_cta);
  }
  SUBCASE("a grid smaller than the GPU fills SMs round-robin") {
    ScriptedSource src(p, 3, 1, [&](int64_t, int) { return &script; });
    const GpuStats s = run(c, src);
    CHECK(s.resident_ctas_per_sm == 2);
    CHECK(std::string(s.occupancy_limiter) == "ctas");
  }
  SUBCASE("a CTA that can never fit is rejected before simulating") {
    ScriptedSource src(p, 1, 16, [&](int64_t, int) { return &script; }, 255);
    CHECK_THROWS_AS(simulate_launch(c, src), InputError);
  }
}

TEST_CASE("simt timing: warps wait at a barrier until the whole CTA arrives") {
  Program p;
  const int fma = p.add(op(Unit::fp32, {10}, {10}));
  const int bar = p.add(control(true, false));
  const int after = p.add(op(Unit::int_alu, {11}, {1}));
  Script slow = repeat(fma, 20), fast;
  slow.push_back(Step{bar, {}});
  slow.push_back(Step{after, {}});
  fast.push_back(Step{bar, {}});
  fast.push_back(Step{after, {}});
  const GpuConfig c = test_gpu();
  ScriptedSource src(p, 1, 2, [&](int64_t, int w) { return w == 0 ? &slow : &fast; });
  const GpuStats s = run(c, src);
  // Warp 1 (sub-core 1) passes the barrier only after warp 0 reached it.
  CHECK(src.position(0, 1, 1) > src.position(0, 0, 20));
  CHECK(stall(s, StallReason::barrier) >= 19 * c.fp32.latency);
  // The barrier has no register operands: it issues the cycle after the last FMA.
  CHECK(s.cycles == c.fetch_latency + 19 * c.fp32.latency + 2 + c.int_alu.latency);
}

TEST_CASE("simt timing: idle cycles are skipped") {
  Program p;
  const int chase = p.add(load(MemorySpace::global, 1, 1));
  GpuConfig c = test_gpu();
  c.dram_latency = 1000;
  const int n = 100;
  Script s;
  for (int i = 0; i < n; ++i) s.push_back(Step{chase, lanes(static_cast<uint64_t>(i) * 8192, 0, 4, 1)});
  const GpuStats one = run_one_warp(c, p, Script{s.front()});
  CHECK(one.cycles == c.fetch_latency + c.l2_hit_latency + c.dram_latency);
  CHECK(gpu_engine().last_loop_iterations() < 10);
  std::vector<LaunchProgress> reports;
  ScriptedSource src(p, 1, 1, [&](int64_t, int) { return &s; });
  const GpuStats chain = simulate_launch(c, src, [&](const LaunchProgress& r) { reports.push_back(r); });
  REQUIRE(reports.size() >= 2);  // about every kSyncQuantumCycles, and at the end
  CHECK(reports.front().ctas_retired == 0);
  CHECK(reports.back().cycles == chain.cycles);
  CHECK(reports.back().ctas_retired == 1);
  CHECK(reports.back().warp_instructions == n);
  CHECK(chain.cycles > n * (c.l2_hit_latency + c.dram_latency));
  CHECK(gpu_engine().last_loop_iterations() < 4 * n);  // not one per cycle (~163,000 cycles)
}

TEST_CASE("simt timing: identical launches give identical statistics") {
  Program p;
  const int fma = p.add(op(Unit::fp32, {10}, {10, 11}));
  const int ld = p.add(load(MemorySpace::global, 11, 1));
  const int st = p.add(store(MemorySpace::global, 1, 10));
  const int sh = p.add(load(MemorySpace::shared, 12, 1));
  const int bar = p.add(control(true, false));
  std::vector<Script> scripts(8);
  for (int w = 0; w < 8; ++w)
    for (int i = 0; i < 30; ++i) {
      const uint64_t a = static_cast<uint64_t>((w * 7 + i * 13) % 97) * 256;
      Script& s = scripts[static_cast<size_t>(w)];
      s.push_back(Step{ld, lanes(a, 4 * static_cast<uint64_t>(1 + i % 3))});
      s.push_back(Step{fma, {}});
      s.push_back(Step{sh, lanes(static_cast<uint64_t>(w) * 4, 4 * static_cast<uint64_t>(i % 5))});
      s.push_back(Step{st, lanes(a + 64, 4)});
      if (i % 10 == 9) s.push_back(Step{bar, {}});
    }
  GpuConfig c = test_gpu(3);
  c.scheduler = WarpSchedulerPolicy::lrr;
  auto go = [&] {
    ScriptedSource src(p, 12, 8, [&](int64_t, int w) { return &scripts[static_cast<size_t>(w)]; }, 40, 8192);
    return run(c, src);
  };
  const GpuStats a = go(), b = go();
  CHECK(a.cycles > 0);
  CHECK(a.cycles == b.cycles);
  CHECK(a.subcore_cycles == b.subcore_cycles);
  CHECK(a.warp_instructions == b.warp_instructions);
  CHECK(a.warp_instructions_by_class == b.warp_instructions_by_class);
  CHECK(a.l1_sector_hits == b.l1_sector_hits);
  CHECK(a.l1_sector_accesses == b.l1_sector_accesses);
  CHECK(a.l2_sector_hits == b.l2_sector_hits);
  CHECK(a.l2_sector_accesses == b.l2_sector_accesses);
  CHECK(a.dram_read_bytes == b.dram_read_bytes);
  CHECK(a.dram_write_bytes == b.dram_write_bytes);
  CHECK(a.shared_wavefronts == b.shared_wavefronts);
  CHECK(a.register_bank_conflicts == b.register_bank_conflicts);
  CHECK(a.resident_ctas_per_sm == b.resident_ctas_per_sm);
  CHECK(stall(a, StallReason::barrier) > 0);
}

TEST_CASE("simt timing: a full V100 of scripted warps (the timing side's own rate, printed)") {
  // A full V100 (80 SMs, 64 warps each), a mix of ALU, FP32 chains, shared and global
  // memory. The mock costs a few ns per instruction, so this is the timing model's own rate.
  Program p;
  std::vector<int> ind;
  for (int i = 0; i < 8; ++i) ind.push_back(p.add(op(i % 2 ? Unit::int_alu : Unit::fp32, {20 + i}, {1, 2})));
  const int dep = p.add(op(Unit::fp32, {10}, {10, 3}));
  const int ld = p.add(load(MemorySpace::global, 11, 1));
  const int use = p.add(op(Unit::fp32, {12}, {11, 3}));
  const int sh = p.add(load(MemorySpace::shared, 13, 1));
  GpuConfig c = test_gpu(80);
  c.l2_bytes = 6 << 20;
  c.l2_slices = 64;
  c.dram_channels = 32;
  const int warps = 8, ctas = 80 * 8 * 4;  // 8 CTAs per SM resident, 4 waves
  std::vector<Script> scripts(static_cast<size_t>(warps));
  for (int w = 0; w < warps; ++w) {
    Script& s = scripts[static_cast<size_t>(w)];
    for (int i = 0; i < 200; ++i) {
      const int k = i % 20;
      if (k == 0) s.push_back(Step{ld, lanes(static_cast<uint64_t>(w * 200 + i) * 128, 4)});
      else if (k == 10) s.push_back(Step{use, {}});
      else if (k == 15) s.push_back(Step{sh, lanes(static_cast<uint64_t>(w) * 128, 4)});
      else if (k % 3 == 0) s.push_back(Step{dep, {}});
      else s.push_back(Step{ind[static_cast<size_t>(i % 8)], {}});
    }
  }
  ScriptedSource src(p, ctas, warps, [&](int64_t, int w) { return &scripts[static_cast<size_t>(w)]; });
  src.record = false;
  const double t0 = cpu_seconds();
  const GpuStats s = run(c, src);
  const double seconds = cpu_seconds() - t0;
  const double rate = static_cast<double>(s.warp_instructions) / seconds;
  int64_t active = 0;
  for (size_t r = 0; r < s.subcore_cycles.size(); ++r)
    if (r != static_cast<size_t>(StallReason::no_warp)) active += s.subcore_cycles[r];
  MESSAGE("timing model: " << s.warp_instructions << " warp instructions, " << s.cycles << " cycles, " << seconds
                           << " s of CPU: " << rate / 1e6 << " M warp instructions/s, "
                           << seconds * 1e9 / static_cast<double>(active) << " ns per active sub-core cycle");
  CHECK(s.warp_instructions == int64_t{ctas} * warps * 200);
  // The rate is printed, not asserted: speed targets live in bench/ (`loom_bench gpu`), where
  // a loaded machine or a sanitizer build cannot fail the suite.
}
