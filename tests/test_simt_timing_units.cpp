// The SIMT timing model's elements on their own: coalescer, shared-memory banks, register
// banks, occupancy and launch checks, tensor-core decomposition, caches and servers.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <deque>
#include <list>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "arch/simt/gpu_config.h"
#include "arch/simt/timing/address_interleave.h"
#include "arch/simt/timing/bandwidth_server.h"
#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/coalescer.h"
#include "arch/simt/timing/instruction_buffer.h"
#include "arch/simt/timing/l1_to_l2_lines.h"
#include "arch/simt/timing/l2_subsystem.h"
#include "arch/simt/timing/mio_queue.h"
#include "arch/simt/timing/mshr_pool.h"
#include "arch/simt/timing/occupancy.h"
#include "arch/simt/timing/register_banks.h"
#include "arch/simt/timing/scoreboard.h"
#include "arch/simt/timing/sectored_tag_array.h"
#include "arch/simt/timing/shared_memory_banks.h"
#include "arch/simt/timing/tensor_core.h"
#include "sim/error.h"

using namespace loom;
using namespace loom::simt;

namespace {

ExecutedInstruction strided(uint64_t base, uint64_t stride, uint32_t bytes = 4, int lanes = 32) {
  ExecutedInstruction x;
  for (int i = 0; i < lanes; ++i)
    x.segments[static_cast<size_t>(x.n_segments++)] =
        MemorySegment{base + stride * static_cast<uint64_t>(i), bytes, static_cast<uint8_t>(i)};
  return x;
}

std::string launch_error(const GpuConfig& c, const CtaResources& r, const GridDims& g = {}) {
  try {
    check_launch(c, r, g);
  } catch (const InputError& e) {
    CHECK(e.field() == "launch");
    return e.what();
  }
  return "";
}

CtaResources cta(int threads, int registers = 32, int64_t shared = 0) {
  return CtaResources{threads, (threads + 31) / 32, registers, shared};
}

}  // namespace

TEST_CASE("simt timing: sector_count counts every sector mask's bits") {
  for (uint32_t mask = 0; mask < (1u << kMaxSectorsPerLine); ++mask) {
    CAPTURE(mask);
    CHECK(sector_count(mask) == std::popcount(mask));
    CHECK(bit_count(mask) == std::popcount(mask));
  }
}

TEST_CASE("simt timing: the coalescer groups sectors by line") {
  CoalescedAccess a;
  coalesce(strided(4096, 4), 128, 32, a);  // 32 consecutive floats
  CHECK(a.lines == 1);
  CHECK(a.sectors == 4);
  CHECK(a.requests[0].line == 32);
  CHECK(a.requests[0].sector_mask == 0xf);
  coalesce(strided(4096, 32), 128, 32, a);  // one float per sector
  CHECK(a.lines == 8);
  CHECK(a.sectors == 32);
  coalesce(strided(4096, 128), 128, 32, a);  // one float per line
  CHECK(a.lines == 32);
  CHECK(a.sectors == 32);
  coalesce(strided(4096 + 16, 4), 128, 32, a);  // misaligned: spills into a second line
  CHECK(a.lines == 2);
  CHECK(a.sectors == 5);
  coalesce(strided(4096, 0), 128, 32, a);  // every lane the same word
  CHECK(a.lines == 1);
  CHECK(a.sectors == 1);
  coalesce(strided(0, 16, 16), 128, 32, a);  // float4 per lane: 512 bytes
  CHECK(a.lines == 4);
  CHECK(a.sectors == 16);
  ExecutedInstruction none;
  coalesce(none, 128, 32, a);
  CHECK(a.lines == 0);
}

TEST_CASE("simt timing: the coalescer matches a plain grouping on random accesses") {
  // Segments walking up, walking down, and scattered (lines revisited out of order): lines
  // in order of first appearance, each with the union of its sectors. Every line and sector
  // geometry a config may have (1 to 4 sectors per line), since a segment's sectors are
  // grouped line by line as masks.
  struct Geometry {
    int line, sector;
  };
  for (const Geometry g : {Geometry{128, 32}, Geometry{64, 32}, Geometry{32, 32}, Geometry{64, 16}, Geometry{128, 64}}) {
    CAPTURE(g.line);
    CAPTURE(g.sector);
    std::mt19937_64 rng(5);
    CoalescedAccess a;
    for (int trial = 0; trial < 3000; ++trial) {
      ExecutedInstruction x;
      x.n_segments = static_cast<uint16_t>(1 + rng() % ExecutedInstruction::kMaxSegments);
      const int pattern = trial % 3;
      for (int i = 0; i < x.n_segments; ++i) {
        MemorySegment& seg = x.segments[static_cast<size_t>(i)];
        const uint64_t step = static_cast<uint64_t>(pattern == 2 ? rng() % 40 : i) * (16 + rng() % 200);
        seg.address = pattern == 1 ? 1000000 - step : 4096 + step;
        seg.bytes = static_cast<uint32_t>(rng() % 4 == 0 ? 0 : 1 + rng() % 80);
      }
      std::vector<LineRequest> want;
      const auto line_bytes = static_cast<uint64_t>(g.line), sector_bytes = static_cast<uint64_t>(g.sector);
      for (int i = 0; i < x.n_segments; ++i) {
        const MemorySegment& seg = x.segments[static_cast<size_t>(i)];
        for (uint64_t b = seg.address; b < seg.address + seg.bytes; ++b) {
          auto it = std::find_if(want.begin(), want.end(), [&](const LineRequest& r) { return r.line == b / line_bytes; });
          if (it == want.end()) it = want.insert(want.end(), LineRequest{b / line_bytes, 0});
          it->sector_mask |= 1u << (b % line_bytes / sector_bytes);
        }
      }
      coalesce(x, g.line, g.sector, a);
      REQUIRE(a.lines == static_cast<int>(want.size()));
      int sectors = 0;
      for (size_t r = 0; r < want.size(); ++r) {
        REQUIRE(a.requests[r].line == want[r].line);
        REQUIRE(a.requests[r].sector_mask == want[r].sector_mask);
        sectors += std::popcount(want[r].sector_mask);
      }
      REQUIRE(a.sectors == sectors);
    }
  }
}

TEST_CASE("simt timing: shared-memory wavefronts are the busiest bank's distinct words") {
  CHECK(shared_wavefronts(strided(0, 4), 32, 4) == 1);
  CHECK(shared_wavefronts(strided(0, 8), 32, 4) == 2);
  CHECK(shared_wavefronts(strided(0, 128), 32, 4) == 32);
  CHECK(shared_wavefronts(strided(0, 0), 32, 4) == 1);    // broadcast
  CHECK(shared_wavefronts(strided(0, 12), 32, 4) == 1);   // odd stride: conflict-free
  CHECK(shared_wavefronts(strided(0, 16, 16), 32, 4) == 4);  // float4: 512 bytes, 4 passes
  ExecutedInstruction pairs = strided(0, 4, 4, 16);          // lanes 16..31 repeat lanes 0..15
  for (int i = 0; i < 16; ++i) pairs.segments[static_cast<size_t>(pairs.n_segments++)] = pairs.segments[static_cast<size_t>(i)];
  CHECK(shared_wavefronts(pairs, 32, 4) == 1);
  ExecutedInstruction two_words = strided(0, 0, 4, 16);  // half the lanes word 0, half word 32 (bank 0)
  for (int i = 0; i < 16; ++i) two_words.segments[static_cast<size_t>(two_words.n_segments++)] = MemorySegment{128, 4, 0};
  CHECK(shared_wavefronts(two_words, 32, 4) == 2);
}

TEST_CASE("simt timing: wavefronts from an access's span agree with the lane-by-lane count") {
  // ld/st report the bytes their lanes span; the bank pass settles narrow spans from that
  // alone. Random accesses, some narrow and some wide, counted with and without the span.
  std::mt19937_64 rng(7);
  int narrow = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int lanes = 1 + static_cast<int>(rng() % 32);
    const uint32_t bytes = uint32_t{1} << (rng() % 4);
    const uint64_t window = uint64_t{8} << (rng() % 8);  // 8 .. 1024 bytes
    const uint64_t base = (rng() % 4096) & ~uint64_t{bytes - 1};
    ExecutedInstruction x;
    uint64_t lo = ~uint64_t{0}, end = 0;
    for (int l = 0; l < lanes; ++l) {
      const uint64_t a = base + ((rng() % window) & ~uint64_t{bytes - 1});
      x.segments[static_cast<size_t>(x.n_segments++)] = MemorySegment{a, bytes, static_cast<uint8_t>(l)};
      lo = std::min(lo, a);
      end = std::max(end, a + bytes);
    }
    const int without = shared_wavefronts(x, 32, 4);
    x.span_begin = lo;
    x.span_end = end;
    CHECK(shared_wavefronts(x, 32, 4) == without);
    narrow += (end - 1) / 4 - lo / 4 < 32;
  }
  CHECK(narrow > 1000);  // the fast path was taken often
  CHECK(narrow < 3900);  // and so was the full count
}

TEST_CASE("simt timing: a full warp's lane form gives the wavefronts its segments give") {
  // A 4-byte shared ld/st of a full warp reports 32 lane addresses (lane_bytes) instead of
  // segments; the bank pass must count it as it counts the same lanes as segments, with
  // the span and without, for power-of-two banks and for others.
  std::mt19937_64 rng(8);
  int wide = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const uint64_t window = uint64_t{16} << (rng() % 8);  // 16 .. 2048 bytes
    const uint64_t base = (rng() % 4096) & ~uint64_t{3};
    ExecutedInstruction segments, lanes;
    lanes.lane_bytes = 4;
    uint64_t lo = ~uint64_t{0}, end = 0;
    for (int l = 0; l < 32; ++l) {
      const uint64_t a = base + ((rng() % window) & ~uint64_t{3});
      segments.segments[static_cast<size_t>(segments.n_segments++)] = MemorySegment{a, 4, static_cast<uint8_t>(l)};
      lanes.lane_address[static_cast<size_t>(l)] = static_cast<uint32_t>(a);
      lo = std::min(lo, a);
      end = std::max(end, a + 4);
    }
    std::array<MemorySegment, 32> scratch;
    const MemorySegment* view = nullptr;
    REQUIRE(memory_segments(lanes, scratch, view) == 32);
    for (int l = 0; l < 32; ++l) {
      CHECK(view[l].address == segments.segments[static_cast<size_t>(l)].address);
      CHECK(view[l].bytes == 4);
      CHECK(view[l].lane == l);
    }
    for (const auto& [banks, bank_bytes] : {std::pair{32, 4}, std::pair{16, 8}, std::pair{24, 4}}) {
      const int want = shared_wavefronts(segments, banks, bank_bytes);
      CHECK(shared_wavefronts(lanes, banks, bank_bytes) == want);
      lanes.span_begin = segments.span_begin = lo;
      lanes.span_end = segments.span_end = end;
      CHECK(shared_wavefronts(lanes, banks, bank_bytes) == want);
      CHECK(shared_wavefronts(segments, banks, bank_bytes) == want);
      lanes.span_begin = lanes.span_end = segments.span_begin = segments.span_end = 0;
      wide += banks == 32 && want > 1;
    }
  }
  CHECK(wide > 500);  // conflicts, read from the lanes, were counted often
}

TEST_CASE("simt timing: register read cycles follow the busiest bank") {
  StaticInstruction s;
  s.n_src = 3;
  s.src[0] = 2, s.src[1] = 4, s.src[2] = 6;
  CHECK(register_read_cycles(s, 2, 1) == 3);
  CHECK(register_read_cycles(s, 2, 2) == 2);
  CHECK(register_read_cycles(s, 4, 1) == 2);  // 2, 6 in bank 2; 4 in bank 0
  s.src[1] = 3, s.src[2] = 2;                 // 2 read twice counts once; 3 in bank 1
  CHECK(register_read_cycles(s, 2, 1) == 1);
  s.n_src = 0;
  CHECK(register_read_cycles(s, 2, 1) == 1);
}

TEST_CASE("simt timing: occupancy is limited by each resource in turn, which is named") {
  GpuConfig c;  // V100: 2048 threads, 64 warps, 32 CTAs, 64K registers, 96 KiB shared
  struct Case {
    CtaResources r;
    int ctas;
    const char* limiter;
  };
  c.max_threads_per_sm = 1024;  // a Turing-like thread limit below 64 warps x 32
  const Case cases[] = {
      {cta(256), 4, "threads"},
      {cta(128, 128), 4, "registers"},          // 128 x 32 = 4096 per warp, 16K per CTA
      {cta(64, 33), 16, "threads"},             // 33 regs -> 1280 per warp: 25 CTAs by registers
      {cta(64, 40, 20000), 4, "shared"},        // 20000 -> 20224 bytes: 4 in 96 KiB
  };
  for (const Case& k : cases) {
    CAPTURE(k.r.threads);
    CAPTURE(k.r.registers_per_thread);
    const Occupancy o = compute_occupancy(c, k.r);
    CHECK(o.ctas_per_sm == k.ctas);
    CHECK(std::string(o.limiter) == k.limiter);
  }
  c.max_threads_per_sm = 2048;
  const Occupancy small = compute_occupancy(c, cta(32, 16));  // 64 by threads and warps, 128 by registers
  CHECK(small.ctas_per_sm == 32);
  CHECK(std::string(small.limiter) == "ctas");
  c.max_warps_per_sm = 32;
  const Occupancy w = compute_occupancy(c, cta(256));
  CHECK(w.ctas_per_sm == 4);
  CHECK(std::string(w.limiter) == "warps");
  CHECK(registers_per_warp(c, 33) == 1280);
  CHECK(registers_per_warp(c, 32) == 1024);
  CHECK(compute_occupancy(c, cta(64, 33)).registers_per_cta == 2560);
}

TEST_CASE("simt timing: each launch gets the smallest carve-out that keeps its occupancy, the rest is L1") {
  GpuConfig c;  // V100: 128 KiB unified; carve-outs as the CUDA guide lists them
  c.l1.bytes = c.l1_shared_bytes - c.shared_bytes;  // as a config file sets it: 32 KiB
  c.shared_carveouts = {0, 8 * 1024, 16 * 1024, 32 * 1024, 64 * 1024, 96 * 1024};
  struct Case {
    CtaResources r;
    int ctas;
    int64_t carveout_kib;
  };
  const Case cases[] = {
      {cta(256), 8, 0},                // no shared memory: all 128 KiB are L1
      {cta(256, 32, 1), 8, 8},         // 1 byte -> 256 B per CTA, 2 KiB in all: 8 KiB
      {cta(256, 32, 2048), 8, 16},     // 8 x 2 KiB = 16 KiB fits exactly
      {cta(256, 32, 2049), 8, 32},     // 8 x 2304 B = 18 KiB: the next, 32 KiB
      {cta(64, 32, 20000), 4, 96},     // 4 x 20224 B: only the largest holds them
      {cta(1024, 32, 49152), 2, 96},   // 2 x 48 KiB = 96 KiB
  };
  for (const Case& k : cases) {
    CAPTURE(k.r.threads);
    CAPTURE(k.r.shared_bytes);
    const Occupancy o = compute_occupancy(c, k.r);
    CHECK(o.ctas_per_sm == k.ctas);
    CHECK(o.shared_carveout == k.carveout_kib * 1024);
    CHECK(o.l1_bytes == c.l1_shared_bytes - o.shared_carveout);
    CHECK(o.shared_carveout >= int64_t{o.ctas_per_sm} * o.shared_per_cta);  // shared memory never limits more
    const GpuConfig launch = config_for_launch(c, o);
    CHECK(launch.l1.bytes == o.l1_bytes);
    CHECK(launch.shared_bytes == c.shared_bytes);  // the capacity occupancy is judged against
  }
  // Without a list the carve-out is fixed at shared_bytes, and the L1 is the config's.
  GpuConfig fixed = c;
  fixed.shared_carveouts.clear();
  const Occupancy f = compute_occupancy(fixed, cta(256));
  CHECK(f.shared_carveout == fixed.shared_bytes);
  CHECK(f.l1_bytes == fixed.l1.bytes);
  // The system's reserve (compute capability 8.0 and later) counts per CTA: a kernel without
  // shared memory at 8 CTAs per SM needs 8 KiB, at 32 CTAs 32 KiB.
  c.shared_reserved_per_cta = 1024;
  CHECK(compute_occupancy(c, cta(256)).shared_per_cta == 1024);
  CHECK(compute_occupancy(c, cta(256)).shared_carveout == 8 * 1024);
  CHECK(compute_occupancy(c, cta(32, 16)).ctas_per_sm == 32);
  CHECK(compute_occupancy(c, cta(32, 16)).shared_carveout == 32 * 1024);
  CHECK(compute_occupancy(c, cta(256, 32, 2048)).shared_per_cta == 3072);  // 2 KiB + 1 KiB
  CHECK(launch_error(c, cta(64, 32, 98304)).find("plus 1024 reserved by the system") != std::string::npos);
}

TEST_CASE("simt timing: check_launch names the limit a CTA can never meet") {
  const GpuConfig c;
  CHECK(launch_error(c, cta(1024, 64)) == "");
  CHECK(launch_error(c, cta(1025)).find("threads per CTA 1025 exceed max_threads_per_cta 1024") != std::string::npos);
  CHECK(launch_error(c, cta(64, 32, 100000)).find("max_shared_per_cta 98304") != std::string::npos);
  GpuConfig small_carveout = c;
  small_carveout.shared_bytes = 32 * 1024;
  CHECK(launch_error(small_carveout, cta(64, 32, 40000)).find("carve-out shared_bytes 32768") != std::string::npos);
  CHECK(launch_error(c, cta(64, 256)).find("registers per thread 256 exceed max_registers_per_thread 255") !=
        std::string::npos);
  CHECK(launch_error(c, cta(1024, 65)).find("registers per CTA 73728") != std::string::npos);
  CHECK(launch_error(c, cta(0)).find("at least one thread") != std::string::npos);
  CHECK(launch_error(c, cta(64), GridDims{int64_t{1} << 32, 1, 1}).find("max_grid_x") != std::string::npos);
  CHECK(launch_error(c, cta(64), GridDims{1, 70000, 1}).find("grid y 70000 exceeds max_grid_yz 65535") !=
        std::string::npos);
  CHECK(launch_error(c, cta(64), GridDims{1, 1, 65536}).find("grid z") != std::string::npos);
}

TEST_CASE("simt timing: tensor-core decomposition of warp MMAs") {
  TensorCoreConfig v100;  // 2 per sub-core, 4x4x4, pipeline 4, no overhead
  const MmaTiming m = decompose_mma(v100, 16, 16, 16, TensorPrecision::f16_f32, "");
  CHECK(m.sets == 4);
  CHECK(m.steps_per_set == 4);
  CHECK(m.ops == 64);
  CHECK(m.occupancy == 32);  // 4096 FMAs / (2 x 64 FMAs per cycle)
  CHECK(m.latency == 35);    // occupancy + pipeline_latency - 1
  CHECK(m.busy_cycles == 64);
  // Other shapes: same FMAs, same occupancy.
  CHECK(decompose_mma(v100, 32, 8, 16, TensorPrecision::f16_f16, "").occupancy == 32);
  CHECK(decompose_mma(v100, 16, 8, 16, TensorPrecision::f16_f32, "").occupancy == 16);  // mma.m16n8k16
  // A deeper pipeline: the accumulator dependency between sets binds.
  TensorCoreConfig deep = v100;
  deep.pipeline_latency = 20;
  const MmaTiming d = decompose_mma(deep, 16, 16, 16, TensorPrecision::f16_f32, "");
  CHECK(d.occupancy == 32);
  CHECK(d.latency == 3 * 20 + 7 + 20);
  // Step overhead: every step costs each core it uses.
  TensorCoreConfig slow = v100;
  slow.step_overhead = 1;
  CHECK(decompose_mma(slow, 16, 16, 16, TensorPrecision::f16_f32, "").occupancy == 32 + 16);
  // One tensor core per sub-core: twice the occupancy.
  TensorCoreConfig one = v100;
  one.per_subcore = 1;
  CHECK(decompose_mma(one, 16, 16, 16, TensorPrecision::f16_f32, "").occupancy == 64);
  // Turing rates: INT8 2x, INT4 4x, INT1 16x the FP16 rate.
  TensorCoreConfig turing = v100;
  turing.rate_s8 = 2, turing.rate_s4 = 4, turing.rate_b1 = 16, turing.rate_tf32 = 0.5;
  CHECK(decompose_mma(turing, 16, 16, 16, TensorPrecision::s8_s32, "").occupancy == 16);
  CHECK(decompose_mma(turing, 8, 8, 32, TensorPrecision::s4_s32, "").occupancy == 4);   // 2048 FMAs / (4 x 128)
  CHECK(decompose_mma(turing, 8, 8, 128, TensorPrecision::b1_s32, "").occupancy == 4);  // 8192 / (16 x 128)
  CHECK(decompose_mma(turing, 16, 16, 8, TensorPrecision::tf32_f32, "").occupancy == 32);  // half rate
  // Ampere/Hopper-like: one wide core per sub-core (rate 4 or 8 over 4x4x4), mma.m16n8k16.
  TensorCoreConfig ampere = v100;
  ampere.per_subcore = 1, ampere.rate_f16 = 4, ampere.pipeline_latency = 18;
  const MmaTiming a = decompose_mma(ampere, 16, 8, 16, TensorPrecision::f16_f32, "");
  CHECK(a.occupancy == 8);  // 2048 FMAs / 256 per cycle
  CHECK(a.latency == 7 + 18);
  TensorCoreConfig hopper = ampere;
  hopper.rate_f16 = 8, hopper.pipeline_latency = 20;
  const MmaTiming h = decompose_mma(hopper, 16, 8, 16, TensorPrecision::f16_f32, "");
  CHECK(h.occupancy == 4);  // K = 16 is all one set: the rest of the rate shortens each op
  CHECK(h.latency == 24);   // last op starts at 3.5, + 20
  CHECK(h.busy_cycles == 4);
  try {
    decompose_mma(v100, 16, 16, 16, TensorPrecision::s8_s32, "v100.json");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "v100.json: tensor: this GPU's tensor cores do not support s8 MMAs (tensor.rate_s8 is 0)");
  }
}

TEST_CASE("simt timing: bandwidth servers, MSHRs, the MIO queue, buffers and scoreboards") {
  BandwidthServer b;
  b.reset(32);
  CHECK(b.pass(10, 32) == 10);   // one cycle's worth: no added latency
  CHECK(b.pass(10, 32) == 11);   // queued behind the first
  CHECK(b.pass(100, 128) == 103);
  b.reset(18.4);
  int64_t last = 0;
  for (int i = 0; i < 1000; ++i) last = b.pass(0, 32);
  CHECK(last == 1739);  // 32000 / 18.4 = 1739.1: fractions are kept
  // Sizes that repeat and change (the server keeps the last size's cycles), against the
  // rule written out, and after a reset to another rate.
  std::mt19937_64 sizes(10);
  for (const double rate : {18.4, 32.0, 7.0}) {
    b.reset(rate);
    double free_at = 0;
    int64_t arrival = 0;
    for (int i = 0; i < 2000; ++i) {
      const double bytes = 32.0 * static_cast<double>(1 + sizes() % 4) * (sizes() % 3 == 0 ? 1.0 : 0.5);
      arrival += static_cast<int64_t>(sizes() % 6);
      free_at = std::max(static_cast<double>(arrival), free_at) + bytes / rate;
      const int64_t want = std::max(arrival, static_cast<int64_t>(std::ceil(free_at)) - 1);
      REQUIRE(b.pass(arrival, bytes) == want);
    }
  }

  MshrPool m;
  m.reset(2);
  CHECK(m.acquire(0) == 0);
  m.hold_until(50);
  CHECK(m.acquire(1) == 1);
  m.hold_until(30);
  CHECK(m.acquire(2) == 30);  // both held: wait for the earliest release
  m.hold_until(60);
  CHECK(m.acquire(55) == 55);  // 50 released meanwhile
  // The pool's two forms: a log while MSHRs are free, a heap while all are held, and back.
  m.reset(4);
  for (const int64_t release : {10, 20, 30, 40}) {
    CHECK(m.acquire(0) == 0);
    m.hold_until(release);
  }
  CHECK(m.acquire(1) == 10);  // full: becomes a heap, and the earliest release frees one
  m.hold_until(100);
  CHECK(m.acquire(35) == 35);  // 20 and 30 released: half free, a log again
  m.hold_until(200);
  CHECK(m.acquire(36) == 36);  // three held (40, 100, 200)
  m.hold_until(300);
  CHECK(m.acquire(37) == 40);  // full again, with nothing released by 37
  m.hold_until(400);
  CHECK(m.acquire(450) == 450);  // a long gap frees them all at once
  // Against a sorted multiset of release cycles, over random misses with ties and a pool
  // that fills: every acquire gives the same cycle.
  // Latencies up to 400 cycles (L2 hits) and up to 5000 (DRAM queues), with occasional
  // idle gaps of up to 3000 cycles that free everything held.
  std::mt19937_64 rng(9);
  for (const int64_t latency : {400, 5000})
  for (const int capacity : {1, 3, 16, 512, 1 << 30}) {  // the last: a pool that never fills
    m.reset(capacity);
    std::multiset<int64_t> held;
    int64_t t = 0, mismatches = 0;
    size_t most_held = 0, most_kept = 0;
    for (int i = 0; i < 20000; ++i) {
      t += static_cast<int64_t>(rng() % 3) + (rng() % 500 == 0 ? static_cast<int64_t>(rng() % 3000) : 0);
      while (!held.empty() && *held.begin() <= t) held.erase(held.begin());
      int64_t want = t;
      if (static_cast<int>(held.size()) >= capacity) {
        want = *held.begin();
        held.erase(held.begin());
      }
      const int64_t got = m.acquire(t);
      mismatches += got != want;
      const int64_t release = got + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(latency));
      m.hold_until(release);
      held.insert(release);
      most_held = std::max(most_held, held.size());
      most_kept = std::max(most_kept, m.kept());
    }
    CHECK(mismatches == 0);
    // The log, stale releases and all, stays within the capacity and within twice the MSHRs
    // held (or 512), whatever the capacity.
    CHECK(most_kept <= static_cast<size_t>(capacity));
    CHECK(most_kept <= std::max<size_t>(512, 2 * most_held));
  }

  MioQueue q;
  q.reset();
  for (int i = 0; i <= kMioQueueEntries; ++i) {  // one in service, the rest queued
    const int64_t s = q.begin(0);
    q.end(s + 10);  // each takes 10 cycles
  }
  CHECK(q.full_at(0));
  CHECK(q.space_at() == 10);  // the second instruction's start
  CHECK_FALSE(q.full_at(10));

  InstructionBuffer ib;
  ib.reset(2, 0, 1);
  CHECK(ib.head_ready() == 1);
  ib.consume(1, 1);
  CHECK(ib.head_ready() == 1);  // the second entry was already there
  ib.consume(1, 3);
  CHECK(ib.head_ready() == 2);  // refilled one cycle after the first issue
  ib.flush(5, 7);
  CHECK(ib.head_ready() == 12);

  Scoreboard sb;
  StaticInstruction use;
  use.n_src = 1;
  use.src[0] = 70;
  CHECK(sb.clear_at(use, 0) == 0);
  StaticInstruction w326, w70;
  w326.n_dst = w70.n_dst = 1;
  w326.dst[0] = 326;
  w70.dst[0] = 70;
  sb.reserve(w326, 40);  // same filter bit as 70 (mod 256), different register
  CHECK(sb.clear_at(use, 0) == 0);
  sb.reserve(w70, 25);
  CHECK(sb.clear_at(use, 0) == 25);
  CHECK(sb.clear_at(use, 25) == 25);  // landed
  CHECK(sb.pending() == 1);
}

TEST_CASE("simt timing: the instruction buffer's ring wraps like a queue of ready cycles") {
  // consume() finds the youngest entry and the next head by masks; a plain queue (oldest
  // first, the consumed entry refilled at the back) must give the same head cycles through
  // many wrap-arounds, for every buffer size, with flushes in between.
  for (int entries = 1; entries <= kMaxIbufferEntries; ++entries) {
    InstructionBuffer ib;
    ib.reset(entries, 3, 2);
    std::deque<int64_t> queue(static_cast<size_t>(entries), 5);
    int64_t now = 3;
    for (int step = 0; step < 40; ++step) {
      now += 1 + (step * 7) % 3;
      REQUIRE(ib.head_ready() == queue.front());
      const int latency = 1 + step % 4;
      ib.consume(now, latency);
      const int64_t consumed = queue.front();
      queue.pop_front();
      // The youngest entry left (with one entry, the one just consumed) bounds the refill.
      queue.push_back(std::max(now + latency, queue.empty() ? consumed : queue.back()));
      if (step % 13 == 12) {
        ib.flush(now, 6);
        std::fill(queue.begin(), queue.end(), now + 6);
      }
    }
    CHECK(ib.head_ready() == queue.front());
  }
}

TEST_CASE("simt timing: sectored tag array, hits and victims match a plain LRU list") {
  // Random streams of hints, lookups and fills through arrays of 1 to 70 ways (sets of 1, 2,
  // 3 and 4: set indices by shift and mask, and by division) against one std::list per set,
  // most recent first: same hits, same victims, same dirty sectors handed back. Lines
  // cluster, so sets see runs of repeat hits, hits deep in the list, fills of empty ways and
  // evictions.
  int hits = 0, misses = 0, evictions = 0, false_hints = 0;
  for (int ways : {1, 2, 3, 8, 16, 24, 64, 65, 70, 128, 256})  // 256: a V100 L1 set
    for (int sets : {1, 2, 3, 4}) {
      SectoredTagArray tags;
      tags.configure(int64_t{sets} * ways * 128, 128, ways, 1);
      std::vector<std::list<uint64_t>> lru(static_cast<size_t>(sets));
      std::map<uint64_t, uint8_t> dirty_of, valid_of;
      std::mt19937_64 rng(static_cast<uint64_t>(ways * 10 + sets));
      const uint64_t span = static_cast<uint64_t>(3 * sets * ways);
      std::vector<uint64_t> stream(4001);
      uint64_t recent = 0;
      for (uint64_t& line : stream) line = recent = rng() % 3 == 0 ? recent : rng() % span;
      // As the L1 does for a load of several lines, most lines are probed one step early,
      // before the previous line's lookup (which may allocate over the probed way), and
      // looked up from the probe; the rest by find alone.
      // Probes change nothing (the checks below would see it) and never call a resident line
      // absent; they name a way for an absent one only on a fingerprint match. The sectors
      // read at a probed way are the line's own, and none where the way holds another line.
      auto probe = [&](uint64_t line) {
        const int way = tags.probe(line);
        const std::list<uint64_t>& order = lru[line % static_cast<uint64_t>(sets)];
        const bool resident = std::find(order.begin(), order.end(), line) != order.end();
        if (resident) CHECK(way != SectoredTagArray::kAbsent);
        else false_hints += way != SectoredTagArray::kAbsent;
        CHECK(tags.valid_probed(line, way) == (resident ? valid_of[line] : 0));
        return way;
      };
      int probed_way = SectoredTagArray::kAbsent;
      bool probed_early = false;
      for (int i = 0; i < 4000; ++i) {
        const uint64_t line = stream[static_cast<size_t>(i)];
        CAPTURE(ways);
        CAPTURE(sets);
        CAPTURE(i);
        if (!probed_early) probed_way = probe(line);  // the same line again: after its fill
        std::list<uint64_t>& order = lru[line % static_cast<uint64_t>(sets)];
        const auto at = std::find(order.begin(), order.end(), line);
        const uint64_t next = stream[static_cast<size_t>(i) + 1];
        probed_early = next != line;
        const int next_way = probed_early ? probe(next) : SectoredTagArray::kAbsent;
        CacheLine* found = i % 4 == 3 ? tags.find(line) : tags.find_probed(line, probed_way);
        probed_way = next_way;
        REQUIRE((found != nullptr) == (at != order.end()));
        if (found) {
          ++hits;
          CHECK(found->dirty == dirty_of[line]);
          order.splice(order.begin(), order, at);
          continue;
        }
        ++misses;
        uint64_t expected_line = 0;
        uint8_t expected_dirty = 0;
        if (static_cast<int>(order.size()) == ways) {
          ++evictions;
          expected_line = order.back();
          expected_dirty = dirty_of[expected_line];
          order.pop_back();
        } else {
          expected_line = ~uint64_t{0};  // an empty way: tag 0, so "line" 0 - 1
        }
        order.push_front(line);
        uint64_t evicted = 0;
        uint8_t dirty = 0;
        CacheLine* fresh = tags.allocate(line, evicted, dirty);
        REQUIRE(fresh != nullptr);
        CHECK(evicted == expected_line);
        CHECK(dirty == expected_dirty);
        dirty_of[line] = fresh->dirty = static_cast<uint8_t>(rng() & 15);
        valid_of[line] = fresh->valid = static_cast<uint8_t>(1 + rng() % 15);
      }
    }
  CHECK(hits > 20000);
  CHECK(misses > 20000);
  CHECK(evictions > 10000);
  CHECK(false_hints < misses / 100);
}

TEST_CASE("simt timing: a probe's way shows sectors only of the line it was asked for") {
  // One set holding line 7; another line whose fingerprint matches 7's is probed at 7's
  // way (a false hint), and must read no sectors there. A set of four ways and one of 128
  // (four AVX-512 compares).
  for (int ways : {4, 128}) {
    CAPTURE(ways);
    SectoredTagArray tags;
    tags.configure(int64_t{ways} * 128, 128, ways, 1);
    uint64_t evicted = 0;
    uint8_t dirty = 0;
    tags.allocate(7, evicted, dirty)->valid = 0b0110;
    const int way = tags.probe(7);
    REQUIRE(way != SectoredTagArray::kAbsent);
    CHECK(tags.valid_probed(7, way) == 0b0110);
    uint64_t twin = 8;
    while (tags.probe(twin) == SectoredTagArray::kAbsent) ++twin;  // 16-bit fingerprints: found within ~65,536
    CHECK(tags.probe(twin) == way);
    CHECK(tags.valid_probed(twin, way) == 0);
    CHECK(tags.find_probed(twin, way) == nullptr);
    CHECK(tags.valid_probed(9, SectoredTagArray::kAbsent) == 0);
    // Both resident, 7 in the lower way: the twin's lookup passes 7's matching fingerprint
    // to find its own, and 7, no longer the newest, is found by the scan again.
    tags.allocate(twin, evicted, dirty)->valid = 0b1001;
    REQUIRE(tags.find(7) != nullptr);
    CHECK(tags.find(7)->valid == 0b0110);
    REQUIRE(tags.find(twin) != nullptr);
    CHECK(tags.find(twin)->valid == 0b1001);
    CHECK(tags.find(7)->valid == 0b0110);
  }
}

TEST_CASE("simt timing: sectored tag array, LRU and interleaving") {
  SectoredTagArray t;
  t.configure(4 * 128, 128, 2, 1);  // 2 sets x 2 ways
  uint64_t evicted = 99;
  uint8_t dirty = 99;
  CHECK(t.find(0) == nullptr);
  CacheLine* zero = t.allocate(0, evicted, dirty);
  zero->valid = 1;
  zero->dirty = 1;
  CHECK(dirty == 0);  // an invalid way was taken
  t.allocate(2, evicted, dirty)->dirty = 3;  // same set (even lines)
  CHECK(t.find(0) != nullptr);  // 0 becomes most recent
  t.allocate(4, evicted, dirty);
  CHECK(evicted == 2);  // the least recently used went
  CHECK(dirty == 3);
  CHECK(t.find(2) == nullptr);
  CHECK(t.find(0)->valid == 1);
  CHECK(t.find(4)->valid == 0);
  t.allocate(6, evicted, dirty);  // now 0 is the least recently used
  CHECK(evicted == 0);
  CHECK(dirty == 1);
  SectoredTagArray none;
  none.configure(0, 128, 4, 1);
  CHECK_FALSE(none.enabled());
  CHECK(none.allocate(1, evicted, dirty) == nullptr);
  // Interleaving: consecutive lines hit every unit once per block.
  for (int units : {8, 12, 32}) {
    std::vector<int> hits(static_cast<size_t>(units));
    for (uint64_t line = 1000 * static_cast<uint64_t>(units); line < 1001 * static_cast<uint64_t>(units); ++line)
      ++hits[static_cast<size_t>(interleave(line, units))];
    for (int h : hits) CHECK(h == 1);
  }
}

TEST_CASE("simt timing: sector arrival times survive rebasing, and a past one becomes the new base") {
  SectoredTagArray t;
  t.configure(4 * 128, 128, 2, 1);
  uint64_t evicted = 0;
  uint8_t dirty = 0;
  CacheLine* line = t.allocate(5, evicted, dirty);
  line->valid = 0b1011;  // sector 2 invalid: its stale field is left alone
  const int64_t far = int64_t{3} << 32;  // beyond 32 bits of cycles
  t.set_arrival(*line, 0, 100);
  t.set_arrival(*line, 1, 7000);
  t.set_arrival(*line, 3, 0xffffffffLL);  // the last cycle the base of 0 can hold
  CHECK(t.arrival(*line, 3) == 0xffffffffLL);
  t.rebase_times(50);  // nothing has arrived yet
  CHECK(t.time_base() == 50);
  CHECK(t.arrival(*line, 0) == 100);
  CHECK(t.arrival(*line, 1) == 7000);
  CHECK(t.arrival(*line, 3) == 0xffffffffLL);
  t.rebase_times(1000);  // sector 0 arrived at 100: kept as arriving at 1000
  CHECK(t.arrival(*line, 0) == 1000);
  CHECK(t.arrival(*line, 1) == 7000);
  t.rebase_times(999);  // never backwards
  CHECK(t.time_base() == 1000);
  // Far past the first base: rebasing step by step keeps every time exact.
  for (int64_t now = 1000; now < far; now += int64_t{1} << 30) t.rebase_times(now);
  t.set_arrival(*line, 1, far + 123);
  CHECK(t.arrival(*line, 1) == far + 123);
  CHECK(t.arrival(*line, 0) == t.time_base());
  CHECK(t.arrival(*line, 3) == t.time_base());
  // Beyond the range, either way: a clear error, never a wrapped time.
  CHECK_THROWS_AS(t.set_arrival(*line, 0, t.time_base() + (int64_t{1} << 32)), loom::InputError);
  CHECK_THROWS_AS(t.set_arrival(*line, 0, t.time_base() - 1), loom::InputError);
}

TEST_CASE("simt timing: an L1 miss maps onto the L2 lines and sectors its bytes are in") {
  // Every geometry with 16..256-byte lines and 8..128-byte sectors that the config checks
  // allow, every sector mask: the pieces equal a byte-by-byte grouping, in address order.
  int geometries = 0;
  for (int l1_line = 16; l1_line <= 256; l1_line *= 2)
    for (int l1_sector = l1_line / kMaxSectorsPerLine; l1_sector <= l1_line; l1_sector *= 2)
      for (int l2_line = std::max(16, l1_line / kMaxSectorsPerLine); l2_line <= 256; l2_line *= 2)
        for (int l2_sector = l2_line / kMaxSectorsPerLine; l2_sector <= l2_line; l2_sector *= 2) {
          L1ToL2Lines lines;
          lines.configure(l1_line, l1_sector, l2_line, l2_sector);
          ++geometries;
          const uint32_t all = (uint32_t{1} << (l1_line / l1_sector)) - 1;
          for (uint32_t mask = 1; mask <= all; ++mask)
            for (const uint64_t line : {uint64_t{0}, uint64_t{77}}) {
              std::vector<L2Piece> want;
              for (uint32_t s = 0; s < 32; ++s) {
                if (!(mask >> s & 1)) continue;
                const uint64_t begin = line * static_cast<uint64_t>(l1_line) + s * static_cast<uint64_t>(l1_sector);
                for (uint64_t b = begin; b < begin + static_cast<uint64_t>(l1_sector); ++b) {
                  const uint64_t l2 = b / static_cast<uint64_t>(l2_line);
                  if (want.empty() || want.back().line != l2) want.push_back(L2Piece{l2, 0});
                  want.back().mask |= 1u << (b % static_cast<uint64_t>(l2_line) / static_cast<uint64_t>(l2_sector));
                }
              }
              L2Piece got[L1ToL2Lines::kMaxPieces];
              const int n = lines.split(line, mask, got);
              REQUIRE(n == static_cast<int>(want.size()));
              for (int p = 0; p < n; ++p) {
                REQUIRE(got[p].line == want[static_cast<size_t>(p)].line);
                REQUIRE(got[p].mask == want[static_cast<size_t>(p)].mask);
              }
            }
        }
  CHECK(geometries > 100);
}

TEST_CASE("simt timing: an L2 read at the way its prefetch probed gives what a plain read gives") {
  // A multi-line load probes (and hints) the L2 for every line the L1 lacks, then reads
  // them in order at the probed ways; earlier reads of the same load may allocate and evict
  // in between. Two L2s, one read at probed ways and one plainly, must agree on every
  // cycle and count, with L2 lines smaller than, equal to and larger than L1 lines (larger:
  // two L1 lines share an L2 line, so no probe may be reused).
  // Also L2 sectors larger than the L1's (64 bytes), in L2 lines inside an L1 line: a probe
  // is reused there, and the sectors of a miss are not a field of the L1 mask.
  struct Geometry {
    int line, sector;
  };
  for (const Geometry g : {Geometry{64, 32}, Geometry{128, 32}, Geometry{256, 64}, Geometry{64, 64}, Geometry{128, 64}}) {
    const int l2_line = g.line;
    CAPTURE(g.line);
    CAPTURE(g.sector);
    GpuConfig c;
    c.l2_bytes = 64 * 1024;  // small, so that loads evict one another's lines
    c.l2_slices = 4;
    c.l2_line_bytes = g.line;
    c.l2_sector_bytes = g.sector;  // at most four sectors a line (check_timing_config)
    c.l2_associativity = 4;
    L2Subsystem probed, plain;
    probed.configure(c);
    plain.configure(c);
    GpuStats with, without;
    std::mt19937_64 rng(static_cast<uint64_t>(l2_line) * 1000 + static_cast<uint64_t>(g.sector));  // one stream per geometry
    int reused = 0;
    int64_t t = 0;
    for (int load = 0; load < 3000; ++load) {
      // Up to 16 distinct L1 lines, as a wmma.load's rows, from a space four times the L2.
      std::vector<uint64_t> lines;
      while (lines.size() < 1 + rng() % 16) {
        const uint64_t line = rng() % 2048;
        if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
      }
      // A load reads some of the sectors it probed (those its L1 lacked).
      std::vector<uint32_t> masks, reads;
      std::vector<L2Subsystem::Probe> probes;
      for (const uint64_t line : lines) {
        masks.push_back(1u + static_cast<uint32_t>(rng() % 15));
        uint32_t read = masks.back() & static_cast<uint32_t>(rng() % 16);
        reads.push_back(read != 0 ? read : masks.back());
        probes.push_back(probed.prefetch(line, masks.back()));
        reused += probes.back().way != L2Subsystem::kUnprobed;
      }
      for (size_t i = 0; i < lines.size(); ++i, ++t) {
        const int sm = static_cast<int>(rng() % 4);
        CHECK(probed.load(sm, lines[i], reads[i], t, with, &probes[i]) == plain.load(sm, lines[i], reads[i], t, without));
      }
    }
    CHECK(with.l2_sector_hits == without.l2_sector_hits);
    CHECK(with.l2_sector_accesses == without.l2_sector_accesses);
    CHECK(with.dram_read_bytes == without.dram_read_bytes);
    CHECK(with.dram_write_bytes == without.dram_write_bytes);
    CHECK(without.l2_sector_hits > 0);
    CHECK(without.l2_sector_hits < without.l2_sector_accesses);
    if (l2_line <= 128)
      CHECK(reused > 1000);  // probes are reused
    else
      CHECK(reused == 0);  // an L2 line shared by two L1 lines is never probed for reuse
  }
}
