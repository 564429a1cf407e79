#include "validate/microbenchmarks.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/error.h"
#include "sim/text_file.h"

namespace loom::validate {

const char* quantity_unit(Quantity q) {
  switch (q) {
    case Quantity::latency_cycles: return "cycles";
    case Quantity::bandwidth_gb_s: return "GB/s";
    case Quantity::throughput_tflops: return "TFLOP/s";
  }
  return "";
}

const std::vector<MicrobenchmarkDef>& microbenchmark_catalog() {
  static const std::vector<MicrobenchmarkDef> catalog{
      {"shared_latency", Quantity::latency_cycles, "shared-memory load to use, one thread chasing a chain in shared memory"},
      {"l1_hit_latency", Quantity::latency_cycles, "global load hitting L1: address chase (p = *p) over 8 KiB"},
      {"l2_hit_latency", Quantity::latency_cycles, "global load missing L1, hitting L2: address chase over up to 1 MiB, larger than L1"},
      {"dram_latency", Quantity::latency_cycles, "global load from DRAM: address chase through lines evicted from L2"},
      {"fp32_latency", Quantity::latency_cycles, "dependent FP32 FMA chain, one warp"},
      {"tensor_latency", Quantity::latency_cycles, "dependent 16x16x16 WMMA chain (FP16 in, FP32 accumulate), one warp"},
      {"dram_bandwidth", Quantity::bandwidth_gb_s, "STREAM triad over every SM (12 bytes per element)"},
      {"l2_bandwidth", Quantity::bandwidth_gb_s, "repeated ld.global.cg passes over a quarter of L2, every SM"},
      {"fp32_throughput", Quantity::throughput_tflops, "independent FP32 FMA chains, 32 warps per SM"},
      {"tensor_throughput", Quantity::throughput_tflops, "independent WMMA chains (FP16 in, FP32 accumulate), 16 warps per SM"},
  };
  return catalog;
}

const MicrobenchmarkDef* find_microbenchmark(const std::string& name) {
  for (const MicrobenchmarkDef& d : microbenchmark_catalog())
    if (d.name == name) return &d;
  return nullptr;
}

namespace {

constexpr int64_t kKiB = 1024, kMiB = 1024 * 1024;
constexpr int64_t kChaseStride = 128;  // one 128-byte line per step: every step a new line

int64_t floor_pow2(int64_t v) { return v < 1 ? 1 : int64_t{1} << (63 - __builtin_clzll(static_cast<uint64_t>(v))); }
int64_t ceil_pow2(int64_t v) { return v <= 1 ? 1 : floor_pow2(v - 1) * 2; }

const MicrobenchmarkDef& require(const std::string& name) {
  const MicrobenchmarkDef* d = find_microbenchmark(name);
  if (!d) throw InputError("", "microbenchmark", "one of " + names_of(microbenchmark_catalog()) + ", got \"" + name + "\"");
  return *d;
}

Probe with_steps(const std::string& name, const std::string& kernel, SizeMap base, int64_t small_steps) {
  Probe p{name, kernel, base, base};
  p.small["steps"] = small_steps;
  p.large["steps"] = 2 * small_steps;
  return p;
}

int64_t size_of(const SizeMap& s, const std::string& key, const std::string& which) {
  const auto it = s.find(key);
  if (it == s.end()) throw InputError("", which, "sizes with \"" + key + "\"");
  return it->second;
}

// The one size `key` grows from the small launch to the large; every other size is equal.
int64_t growth(const std::string& name, const SizeMap& small, const SizeMap& large, const std::string& key) {
  for (const auto& [k, v] : small)
    if (k != key && (!large.count(k) || large.at(k) != v))
      throw InputError("", name, "the two runs to differ only in \"" + key + "\" (they differ in \"" + k + "\")");
  const int64_t d = size_of(large, key, name) - size_of(small, key, name);
  if (d <= 0) throw InputError("", name, "the second run to have the larger \"" + key + "\"");
  return d;
}

}  // namespace

Probe make_probe(const std::string& name, const ProbeTarget& t) {
  require(name);
  const int64_t sms = std::max(1, t.sms);
  const int64_t l2 = t.l2_bytes > 0 ? t.l2_bytes : 4 * kMiB;
  if (name == "shared_latency") return with_steps(name, "shared_chase", {{"count", 1024}, {"stride", 1}}, 1024);
  // The global-latency probes chase addresses (address_chase, p = *p), so a step's dependent
  // path is the load alone. The kernel builds its ring first: the same footprint in both
  // launches, so the build cancels in the difference.
  if (name == "l1_hit_latency")
    return with_steps(name, "address_chase", {{"footprint", 8 * kKiB}, {"stride", kChaseStride}}, 1024);
  if (name == "l2_hit_latency") {
    // Larger than any L1 (256 KiB on Hopper), at most a quarter of L2. The small launch makes
    // one pass; the large one adds a second, all L2 hits. (The ring's build writes every line
    // into L2, which allocates on writes, so the first pass hits L2 as well.)
    const int64_t footprint = std::min(kMiB, floor_pow2(l2 / 4));
    return with_steps(name, "address_chase", {{"footprint", footprint}, {"stride", kChaseStride}},
                      footprint / kChaseStride);
  }
  if (name == "dram_latency") {
    // Both launches stay within the first pass over 4x L2: every step misses to DRAM. The
    // ring's build writes the whole footprint first, in order, so by the time the chase starts
    // its first lines have long been evicted from L2.
    return with_steps(name, "address_chase", {{"footprint", ceil_pow2(4 * l2)}, {"stride", kChaseStride}}, 4096);
  }
  if (name == "fp32_latency") return with_steps(name, "fma_chain", {{"blocks", 1}, {"threads", 32}}, 1024);
  if (name == "tensor_latency") return with_steps(name, "mma_chain", {{"blocks", 1}, {"threads", 32}}, 256);
  if (name == "fp32_throughput") return with_steps(name, "fma_chain", {{"blocks", 4 * sms}, {"threads", 256}}, 1024);
  if (name == "tensor_throughput") return with_steps(name, "mma_chain", {{"blocks", 2 * sms}, {"threads", 256}}, 256);
  if (name == "dram_bandwidth") {
    Probe p{name, "triad", {{"n", 1 << 22}, {"blocks", 0}}, {{"n", 1 << 23}, {"blocks", 0}}};
    return p;
  }
  // l2_bandwidth: a quarter of L2, read with .cg (L1 bypassed); the large launch adds passes.
  // Every SM full of 256-thread CTAs; 4 vs 12 passes, so the difference is long enough to
  // swamp the waves' ramp-up (a few thousand cycles a pass).
  const int64_t n = floor_pow2(l2 / 4) / 4, blocks = sms * std::max(1, t.max_threads_per_sm / 256);
  return Probe{name, "stream_read", {{"n", n}, {"passes", 4}, {"blocks", blocks}},
               {{"n", n}, {"passes", 12}, {"blocks", blocks}}};
}

double work_difference(const std::string& name, const SizeMap& small, const SizeMap& large) {
  const MicrobenchmarkDef& def = require(name);
  if (def.quantity == Quantity::latency_cycles) return static_cast<double>(growth(name, small, large, "steps"));
  if (name == "dram_bandwidth") return 12.0 * static_cast<double>(growth(name, small, large, "n"));  // 2 loads + 1 store
  if (name == "l2_bandwidth")
    return 4.0 * static_cast<double>(size_of(small, "n", name)) * static_cast<double>(growth(name, small, large, "passes"));
  const double steps = static_cast<double>(growth(name, small, large, "steps"));
  const double threads = static_cast<double>(size_of(small, "blocks", name) * size_of(small, "threads", name));
  if (name == "fp32_throughput") return 2.0 * threads * steps;  // one FMA per thread per step
  return 2.0 * 16 * 16 * 16 * (threads / 32) * steps;           // one 16x16x16 MMA per warp per step
}

double derive_figure(Quantity q, double work, double small_us, double large_us, double clock_mhz) {
  const double dt = large_us - small_us;
  if (!(dt > 0) || !(work > 0)) return std::numeric_limits<double>::quiet_NaN();
  switch (q) {
    case Quantity::latency_cycles: return dt * clock_mhz / work;
    case Quantity::bandwidth_gb_s: return work / (dt * 1e3);
    case Quantity::throughput_tflops: return work / (dt * 1e6);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace loom::validate
