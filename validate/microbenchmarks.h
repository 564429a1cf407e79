// Microbenchmarks: the figures that calibrate a GPU config (latencies of shared memory, L1,
// L2 and DRAM; DRAM and L2 bandwidth; FP32 and tensor-core latency and throughput), each
// measured the same way on the real GPU (validate/runner/) and on loom's model
// (`loom validate`). A probe is two launches of a shipped kernel that differ only in how
// much work they do (more steps, more passes, more elements); the figure is the extra work
// over the extra time, so what both launches share (launch latency, the cold first pass,
// ramp-up and drain) cancels out. docs/validation.md lists the probes and their sizes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loom::validate {

enum class Quantity {
  latency_cycles,     // SM cycles per dependent step
  bandwidth_gb_s,     // 10^9 bytes per second
  throughput_tflops,  // 10^12 floating-point operations per second
};
const char* quantity_unit(Quantity q);  // "cycles", "GB/s", "TFLOP/s"

struct MicrobenchmarkDef {
  std::string name;  // e.g. "l2_hit_latency"
  Quantity quantity;
  std::string summary;
};
const std::vector<MicrobenchmarkDef>& microbenchmark_catalog();
// nullptr when `name` is not a known microbenchmark.
const MicrobenchmarkDef* find_microbenchmark(const std::string& name);

// What a probe's sizes depend on: from the GPU config (loom) or the device (runner).
struct ProbeTarget {
  int sms = 1;
  int max_threads_per_sm = 2048;
  int64_t l2_bytes = 0;
};

using SizeMap = std::map<std::string, int64_t>;

struct Probe {
  std::string microbenchmark;
  std::string kernel;  // a shipped kernel
  SizeMap small, large;
};
// The probe of microbenchmark `name` for `target` (InputError for an unknown name).
Probe make_probe(const std::string& name, const ProbeTarget& target);

// The work the large launch does beyond the small one (steps, bytes or FLOPs, by the
// microbenchmark's quantity), from the two launches' sizes. InputError when the sizes are
// not a valid pair for this microbenchmark (e.g. a measured file's runs were edited).
double work_difference(const std::string& name, const SizeMap& small, const SizeMap& large);

// The figure from the two launches' times (microseconds): extra work over extra time.
// Latencies are converted to cycles at `clock_mhz`. InputError-free: returns NaN when the
// large launch was not slower (no figure can be derived).
double derive_figure(Quantity q, double work, double small_us, double large_us, double clock_mhz);

}  // namespace loom::validate
