// CTAs run ahead of their issues (arch/simt/ptx/cta_run_ahead.h): which kernels may, that
// they then simulate and compute exactly what execution at issue does, and that a warp's
// record stream (warp_record_stream.h) gives back every field it was given.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "apps/layer_record_json.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/ptx/cta_run_ahead.h"
#include "arch/simt/ptx/kernel_arguments.h"
#include "arch/simt/ptx/warp_record_stream.h"
#include "arch/simt/timing/gpu_engine.h"
#include "sim/error.h"
#include "tests/ptx_test_kernels.h"

using namespace loom;
using namespace loom::simt;

namespace {

const std::string kPrologue = ".reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n.reg .pred %p<2>;\nld.param.u64 %rd1, [out];\n";

bool may_run_ahead(const std::string& body, std::string* why = nullptr) {
  return can_run_ahead(loom_test::decode_text(kPrologue + body + "ret;\n", {}), why);
}

GpuConfig config_named(const std::string& name) {
  return load_gpu_config(std::string(LOOM_SOURCE_DIR) + "/configs/" + name + ".json");
}

// What a wmma.load of a 16 x 16 f16 tile at `first`, rows 2,048 bytes apart, reports:
// 16 rows of 32 bytes, row i from lane i.
ExecutedInstruction wmma_load_rows(const std::vector<StaticInstruction>& statics, uint32_t pc, uint64_t first) {
  ExecutedInstruction load;
  load.pc = pc;
  load.inst = &statics[pc];
  load.space = MemorySpace::global;
  load.active_mask = ~0u;
  load.n_segments = 16;
  for (int i = 0; i < 16; ++i)
    load.segments[static_cast<size_t>(i)] = {first + 2048 * static_cast<uint64_t>(i), 32, static_cast<uint8_t>(i)};
  return load;
}

}  // namespace

TEST_CASE("run-ahead: kernels that synchronize or order memory execute at issue") {
  for (const char* name : {"naive_gemm", "wmma_gemm", "relu_add", "triad", "pointer_chase", "address_chase",
                           "fma_chain", "mma_chain", "stream_read", "shared_chase"}) {
    CAPTURE(name);
    CHECK(can_run_ahead(loom_test::decode_shipped(name, {})));
  }
  for (const char* name : {"tiled_gemm", "reduction", "conv_implicit_gemm"}) {
    CAPTURE(name);
    std::string why;
    CHECK_FALSE(can_run_ahead(loom_test::decode_shipped(name, {}), &why));
    CHECK(why.find("bar") != std::string::npos);
    CHECK(why.find("(line ") != std::string::npos);
  }
  CHECK(may_run_ahead("ld.global.u32 %r1, [%rd1];\nst.global.u32 [%rd1+4], %r1;\n"));
  CHECK(may_run_ahead("ld.global.nc.u32 %r1, [%rd1];\nst.global.u32 [%rd1+4], %r1;\n"));
  std::string why;
  CHECK_FALSE(may_run_ahead("ld.volatile.global.u32 %r1, [%rd1];\nst.global.u32 [%rd1+4], %r1;\n", &why));
  CHECK(why.find("ld.volatile.global.u32") != std::string::npos);
  CHECK_FALSE(may_run_ahead("ld.relaxed.gpu.global.u32 %r1, [%rd1];\nst.global.u32 [%rd1+4], %r1;\n"));
  CHECK_FALSE(may_run_ahead("ld.acquire.gpu.global.u32 %r1, [%rd1];\nst.global.u32 [%rd1+4], %r1;\n"));
  CHECK_FALSE(may_run_ahead("st.release.gpu.global.u32 [%rd1], %r1;\n"));
  CHECK_FALSE(may_run_ahead("membar.gl;\n"));
  CHECK_FALSE(may_run_ahead("fence.acq_rel.gpu;\n"));
  CHECK_FALSE(may_run_ahead("fence.sc.cta;\n"));
  // The decoder marks the ordering instruction itself, and nothing else.
  const PtxKernel mixed = loom_test::decode_text(
      kPrologue + "ld.global.u32 %r1, [%rd1];\nld.volatile.global.u32 %r2, [%rd1];\nst.global.u32 [%rd1+4], %r1;\nret;\n", {});
  for (const StaticInstruction& s : mixed.statics) {
    CAPTURE(s.text);
    CHECK(s.orders_memory == (s.text.find("volatile") != std::string::npos));
  }
  CHECK_FALSE(may_run_ahead("atom.global.add.u32 %r1, [%rd1], 1;\n"));
  CHECK_FALSE(may_run_ahead("setp.eq.u32 %p1, %r1, 0;\n@%p1 ld.volatile.global.u32 %r2, [%rd1];\n"));
}

TEST_CASE("run-ahead: every kernel that may run ahead simulates and computes what execution at issue does") {
  // Small sizes, and sizes where each warp runs ahead several times (more instructions per
  // warp than CtaRunAheadSource::kRunInstructions), on two GPUs.
  struct Case {
    std::string kernel;
    std::map<std::string, int64_t> sizes;
  };
  std::vector<Case> cases;
  for (const KernelInfo& info : kernel_catalog())
    if (can_run_ahead(loom_test::decode_shipped(info.name, {}))) cases.push_back({info.name, loom_test::small_sizes(info.name)});
  cases.push_back({"pointer_chase", {{"footprint", 65536}, {"stride", 128}, {"steps", 3000}}});
  cases.push_back({"fma_chain", {{"steps", 1500}, {"blocks", 3}, {"threads", 96}}});
  cases.push_back({"wmma_gemm", {{"M", 32}, {"N", 32}, {"K", 2048}}});
  cases.push_back({"naive_gemm", {{"M", 32}, {"N", 32}, {"K", 2048}}});  // runs stopped by kRunBytes too
  int long_runs = 0;
  for (const char* gpu : {"v100", "t4"}) {
    const GpuConfig config = config_named(gpu);
    for (const Case& c : cases) {
      CAPTURE(gpu);
      CAPTURE(c.kernel);
      const LaunchRecipe recipe = make_launch_recipe(c.kernel, c.sizes);
      const PtxKernel kernel = loom_test::decode_shipped(c.kernel, {});
      const loom_test::TimedRun at_issue = loom_test::run_recipe_timed(config, recipe, kernel, false);
      const loom_test::TimedRun ahead = loom_test::run_recipe_timed(config, recipe, kernel, true);
      CHECK(ahead.stats == at_issue.stats);
      CHECK(ahead.memory == at_issue.memory);
      const Json stats = Json::parse(ahead.stats);
      const int64_t warps = stats["ctas"].get<int64_t>() * ((recipe.block.x * recipe.block.y * recipe.block.z + 31) / 32);
      if (stats["warp_instructions"].get<int64_t>() > warps * CtaRunAheadSource::kRunInstructions) ++long_runs;
    }
  }
  CHECK(long_runs >= 8);  // the four long cases ran ahead more than once per warp, on both GPUs
}

TEST_CASE("run-ahead: run_recipe runs ahead by default and at issue on request, with the same results") {
  const GpuConfig config = config_named("v100");
  const LaunchRecipe recipe = make_launch_recipe("naive_gemm", loom_test::small_sizes("naive_gemm"));
  RecipeRunOptions options;
  const RecipeRunResult ahead = run_recipe(recipe, shipped_kernel("naive_gemm"), config, options);
  options.run_ahead = false;
  const RecipeRunResult at_issue = run_recipe(recipe, shipped_kernel("naive_gemm"), config, options);
  CHECK(ahead.ran_ahead);
  CHECK_FALSE(at_issue.ran_ahead);
  CHECK(ahead.check.ok);
  CHECK(at_issue.check.ok);
  CHECK(gpu_stats_to_json(ahead.stats) == gpu_stats_to_json(at_issue.stats));
  const LaunchRecipe tiled = make_launch_recipe("tiled_gemm", loom_test::small_sizes("tiled_gemm"));
  CHECK_FALSE(run_recipe(tiled, shipped_kernel("tiled_gemm"), config, RecipeRunOptions{}).ran_ahead);
}

// Which out-of-bounds access is reported first follows the order of execution: at issue, the
// simulated schedule's; run ahead, CTA by CTA and warp by warp, as a functional run finds it.
TEST_CASE("run-ahead: an out-of-bounds access names the thread, the address and the instruction") {
  const PtxKernel kernel = loom_test::decode_shipped("relu_add", {});
  const GpuConfig config = config_named("v100");
  auto message = [&](bool run_ahead) {
    GlobalMemory memory;
    const uint64_t a = memory.allocate(100 * 4, "a"), b = memory.allocate(100 * 4, "b"), y = memory.allocate(300 * 4, "y");
    LaunchConfig launch;
    launch.grid = {2, 1, 1};
    launch.block = {256, 1, 1};
    FunctionalModel model(kernel, launch,
                          bind_kernel_arguments(kernel, {KernelArgument::pointer(a), KernelArgument::pointer(b),
                                                         KernelArgument::pointer(y), KernelArgument::integer(300)}),
                          memory);
    try {
      if (run_ahead) {
        CtaRunAheadSource ahead(model);
        simulate_launch(config, ahead);
      } else {
        simulate_launch(config, model);
      }
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const bool run_ahead : {false, true}) {
    CAPTURE(run_ahead);
    const std::string m = message(run_ahead);
    CHECK(m.find("out-of-bounds global access by thread (ctaid ") != std::string::npos);
    CHECK(m.find("past the end of 'b'") != std::string::npos);
    CHECK(m.find("in 'ld.global.f32 %f1, [%rd8]'") != std::string::npos);
  }
  // relu_add loads b[i] first; thread 100 of CTA 0 is the first past b's 100 elements.
  const std::string ahead = message(true);
  CHECK(ahead.find("thread (ctaid 0,0,0; tid 100,0,0)") != std::string::npos);
  CHECK(ahead.find("0 bytes past the end of 'b'") != std::string::npos);
}

TEST_CASE("run-ahead: a warp's record stream gives back every field, across blocks and refills") {
  std::vector<StaticInstruction> statics(700);  // long enough for plain runs past 256
  for (size_t i = 0; i + 1 < statics.size(); i += 3) {
    statics[i].space = MemorySpace::global;   // a generic access reports where it resolved
    statics[i + 1].space = MemorySpace::shared;
  }
  std::mt19937_64 rng(11);
  auto pick = [&](uint64_t n) { return static_cast<uint64_t>(rng() % n); };
  ExecutedInstruction last_rows;  // the last rows drawn
  uint64_t rows_left = 0;         // rows still to draw in a burst
  auto random_instruction = [&](uint32_t pc) {
    ExecutedInstruction x;
    x.pc = pc;
    x.inst = &statics[pc];
    x.active_mask = pick(4) ? ~0u : static_cast<uint32_t>(rng());
    x.space = x.inst->space;
    // Rows come in bursts, as a wmma.load loop's do, so that many are like the last ones.
    uint64_t kind = pick(6);
    if (rows_left > 0) {
      --rows_left;
      kind = 1;
    } else if (kind == 1 && pick(2)) {
      rows_left = pick(40);
    }
    switch (kind) {
      case 0:  // no memory
        break;
      case 1: {  // rows at a stride (a wmma.load)
        x.n_segments = static_cast<uint16_t>(3 + pick(14));
        // Strides that fit 32 bits (the compact form), and ones that do not or go down.
        uint64_t base = rng() >> 8;
        const uint64_t strides[] = {64 + 64 * pick(40), uint64_t{1} << (31 + pick(3)), 0 - (64 + 64 * pick(40)),
                                    0 - (uint64_t{1} << 31), 0 - (uint64_t{1} << 32)};
        uint64_t stride = pick(2) ? strides[0] : strides[pick(5)];
        uint8_t lane = static_cast<uint8_t>(pick(8));
        if (last_rows.n_segments && pick(3)) {
          // Like the last rows, moved (the delta form: a move that fits 32 bits, up or down,
          // and ones that do not), or with one thing other than the move changed.
          const uint64_t moves[] = {32 * pick(1000), 0 - 32 * pick(1000), uint64_t{1} << 31, 0 - (uint64_t{1} << 31),
                                    (uint64_t{1} << 31) - 1, uint64_t{1} << 40};
          const MemorySegment& f = last_rows.segments[0];
          base = f.address + moves[pick(3) ? pick(2) : pick(6)];
          stride = last_rows.segments[1].address - f.address;
          lane = f.lane;
          x.space = last_rows.space;
          if (pick(6) == 0) lane ^= 1;
          if (pick(6) == 0) stride += 64;
          if (pick(6) == 0) x.space = x.space == MemorySpace::global ? MemorySpace::shared : MemorySpace::global;
        }
        for (int i = 0; i < x.n_segments; ++i) x.segments[static_cast<size_t>(i)] = {base + i * stride, 32, static_cast<uint8_t>(lane + i)};
        if (pick(3) == 0) x.segments[static_cast<size_t>(pick(x.n_segments))].bytes = 16;  // breaks the pattern
        if (pick(8) == 0)  // rows too long for the compact form
          for (int i = 0; i < x.n_segments; ++i) x.segments[static_cast<size_t>(i)].bytes = 65536;
        if (pick(8) == 0) {  // a span reported with the rows
          x.span_begin = base;
          x.span_end = base + 4096;
        }
        last_rows = x;
        break;
      }
      case 2:  // any segments
        x.n_segments = static_cast<uint16_t>(1 + pick(ExecutedInstruction::kMaxSegments));
        for (int i = 0; i < x.n_segments; ++i)
          x.segments[static_cast<size_t>(i)] = {rng(), static_cast<uint32_t>(1 + pick(16)), static_cast<uint8_t>(pick(32))};
        break;
      case 3: {  // lane addresses at a stride (0: a broadcast)
        x.lane_bytes = 4;
        const uint32_t first = static_cast<uint32_t>(rng()), stride = static_cast<uint32_t>(4 * pick(3));
        for (uint32_t l = 0; l < 32; ++l) x.lane_address[l] = first + l * stride;
        if (pick(3) == 0) x.lane_address[pick(32)] += 4;  // breaks the pattern
        x.span_begin = x.lane_address[0];
        x.span_end = x.span_begin + 128;
        break;
      }
      case 4:  // a generic access that resolved to shared, with no active lane
        x.space = MemorySpace::shared;
        break;
      default:
        x.lane_bytes = 8;
        for (uint32_t l = 0; l < 32; ++l) x.lane_address[l] = static_cast<uint32_t>(rng());
    }
    return x;
  };
  auto same = [](const ExecutedInstruction& got, const ExecutedInstruction& want) {
    CHECK(got.inst == want.inst);
    CHECK(got.pc == want.pc);
    CHECK(got.active_mask == want.active_mask);
    CHECK(got.space == want.space);
    CHECK(got.lane_bytes == want.lane_bytes);
    CHECK(got.span_begin == want.span_begin);
    CHECK(got.span_end == want.span_end);
    CHECK(got.warp_done == want.warp_done);
    CHECK_FALSE(got.warp_at_barrier);
    if (want.lane_bytes) {
      CHECK(got.lane_address == want.lane_address);
    } else {
      REQUIRE(got.n_segments == want.n_segments);
      for (int i = 0; i < want.n_segments; ++i) {
        const MemorySegment &g = got.segments[static_cast<size_t>(i)], &w = want.segments[static_cast<size_t>(i)];
        CHECK(g.address == w.address);
        CHECK(g.bytes == w.bytes);
        CHECK(g.lane == w.lane);
      }
    }
  };

  RecordArena arena;
  WarpRecordStream stream;
  stream.open(arena);
  std::vector<ExecutedInstruction> pending;  // recorded, not yet replayed
  size_t replayed = 0;
  constexpr size_t kTotal = 60000;
  size_t appended = 0;
  uint32_t pc = 0;
  uint64_t straight_left = 0;
  ExecutedInstruction out;
  while (replayed < kTotal) {
    // Record a batch (sometimes none), then replay some, sometimes until drained.
    const size_t batch = std::min<size_t>(kTotal - appended, pick(4) == 0 ? 0 : 1 + pick(300));
    const bool was_drained = stream.drained();
    for (size_t i = 0; i < batch; ++i) {
      // Straight runs of plain instructions (which share records; some longer than one
      // record holds) between instructions of any kind.
      const bool straight = straight_left > 0 && pc + 1 < statics.size();
      if (straight) {
        --straight_left;
        ++pc;
      } else {
        straight_left = pick(4) == 0 ? 250 + pick(300) : pick(10);
        pc = static_cast<uint32_t>(pick(statics.size() / 8));
      }
      ExecutedInstruction x = straight ? ExecutedInstruction{} : random_instruction(pc);
      if (straight) {
        x.pc = pc;
        x.inst = &statics[pc];
        x.active_mask = ~0u;
        x.space = x.inst->space;
      }
      x.warp_done = ++appended == kTotal;
      stream.append(arena, x);
      pending.push_back(x);
    }
    if (was_drained) stream.settle(arena);
    if (pending.empty()) continue;
    CHECK(stream.next_pc() == pending.front().pc);
    const size_t take = pick(2) == 0 ? pending.size() : 1 + pick(pending.size());
    for (size_t i = 0; i < take; ++i) {
      stream.replay(arena, statics, out);
      same(out, pending[i]);
      const bool last = i + 1 == pending.size();
      // The next instruction is known once it is recorded; at the end of what is, it is not.
      if (pending[i].warp_done || last)
        CHECK(out.next == nullptr);
      else
        CHECK(out.next == &statics[pending[i + 1].pc]);
      ++replayed;
    }
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(take));
    CHECK(stream.drained() == pending.empty());
  }
  stream.close(arena);
  // Blocks read through went back to the arena: one chunk served every block of the run.
  CHECK(arena.reserved_bytes() == size_t{32} << 20);
}

TEST_CASE("run-ahead: rows like the last compact ones take a 12-byte record, in the same block") {
  std::vector<StaticInstruction> statics(2);
  statics[0].space = statics[1].space = MemorySpace::global;
  RecordArena arena;
  WarpRecordStream stream;
  stream.open(arena);
  // wmma.loads of 16 rows of 32 bytes, 2,048 bytes apart, alternating between two pcs (two
  // matrices) and moving on by 32 bytes a pair (the k steps), as the WMMA GEMM's do.
  auto rows_load = [&](uint32_t pc, uint64_t first) { return wmma_load_rows(statics, pc, first); };
  auto first_of = [](int i) { return (i % 2 ? uint64_t{0x7f000000} : uint64_t{0x10000}) + 32 * static_cast<uint64_t>(i / 2); };
  constexpr int kLoads = 400;  // several blocks
  std::vector<uint32_t> sizes;
  for (int i = 0; i < kLoads; ++i) {
    const uint32_t before = stream.appended_bytes();
    stream.append(arena, rows_load(static_cast<uint32_t>(i % 2), first_of(i)));
    sizes.push_back(stream.appended_bytes() - before);
  }
  // The first load of each block takes the 24-byte form, every other one 12: a block of
  // 2,048 bytes holds 24 + 12 * 167 and the 16-byte jump (which appended_bytes leaves out).
  CHECK(sizes[0] == 24);
  int full = 0, deltas = 0;
  for (int i = 1; i < kLoads; ++i) {
    if (sizes[static_cast<size_t>(i)] == 12) ++deltas;
    if (sizes[static_cast<size_t>(i)] == 24) ++full;
  }
  CHECK(full == (kLoads - 1) / 168);
  CHECK(deltas == kLoads - 1 - full);
  ExecutedInstruction out;
  for (int i = 0; i < kLoads; ++i) {
    stream.replay(arena, statics, out);
    const ExecutedInstruction want = rows_load(static_cast<uint32_t>(i % 2), first_of(i));
    REQUIRE(out.n_segments == 16);
    CHECK(out.pc == want.pc);
    CHECK(out.space == MemorySpace::global);
    for (size_t r = 0; r < 16; ++r) {
      CHECK(out.segments[r].address == want.segments[r].address);
      CHECK(out.segments[r].bytes == 32);
      CHECK(out.segments[r].lane == r);
    }
  }
  CHECK(stream.drained());
  stream.close(arena);
}

TEST_CASE("run-ahead: rows after a jump never take a delta from a block given back and taken again") {
  std::vector<StaticInstruction> statics(2);
  statics[0].space = MemorySpace::global;
  auto rows_load = [&](uint64_t first) { return wmma_load_rows(statics, 0, first); };
  ExecutedInstruction filler;  // 12 bytes: a partial mask keeps it from joining the record before
  filler.pc = 1;
  filler.inst = &statics[1];
  filler.space = statics[1].space;
  filler.active_mask = 0xffff;
  RecordArena arena;
  WarpRecordStream first, second;
  first.open(arena);
  first.append(arena, rows_load(0x10000));  // 24 bytes: the block's CompactRows
  constexpr int kFillers = 168;              // 24 + 12 * 167 and the jump fill a block; the last is in the next
  for (int i = 0; i < kFillers; ++i) first.append(arena, filler);
  ExecutedInstruction out;
  for (int i = 0; i <= kFillers; ++i) first.replay(arena, statics, out);  // through the jump: the block goes back
  CHECK(first.drained());
  second.open(arena);  // takes that block and writes other rows where the CompactRows were
  second.append(arena, rows_load(0x50000));
  first.append(arena, rows_load(0x10020));  // like the first rows, 32 bytes on: a new CompactRows
  CHECK(first.appended_bytes() == 24 + 12 * kFillers + 24);
  first.settle(arena);
  first.replay(arena, statics, out);
  REQUIRE(out.n_segments == 16);
  CHECK(out.segments[0].address == 0x10020);
  CHECK(out.segments[15].address == 0x10020 + 2048 * 15);
  first.close(arena);
  second.close(arena);
}

TEST_CASE("run-ahead: a wmma.load and the arithmetic after it take one 24-byte record") {
  std::vector<StaticInstruction> statics(8);
  statics[0].space = MemorySpace::global;
  RecordArena arena;
  WarpRecordStream stream;
  stream.open(arena);
  stream.append(arena, wmma_load_rows(statics, 0, 0x10000));
  CHECK(stream.appended_bytes() == 24);  // the record and its rows: first, stride, bytes, lane, space
  for (uint32_t pc = 1; pc < 6; ++pc) {
    ExecutedInstruction plain;
    plain.pc = pc;
    plain.inst = &statics[pc];
    plain.space = statics[pc].space;
    plain.active_mask = ~0u;
    plain.warp_done = pc == 5;  // the last starts a record of its own
    stream.append(arena, plain);
  }
  CHECK(stream.appended_bytes() == 32);
  ExecutedInstruction out;
  for (uint32_t pc = 0; pc < 6; ++pc) {
    REQUIRE_FALSE(stream.drained());
    CHECK(stream.next_pc() == pc);
    stream.replay(arena, statics, out);
    CHECK(out.pc == pc);
    CHECK(out.n_segments == (pc == 0 ? 16 : 0));
    CHECK(out.warp_done == (pc == 5));
  }
  CHECK(out.segments[15].address == 0x10000 + 2048 * 15);
  CHECK(stream.drained());
  stream.close(arena);
}
