// Measurement files: what a real GPU did, recorded by the CUDA runner (validate/runner/) or
// transcribed from published papers, in one documented schema (docs/validation.md,
// "Measurement files"). The runner writes them with to_json(); `loom validate` reads them
// with load_measurements(), which checks every field and names the file and JSON path of
// anything wrong (unknown keys included), so a file from another loom version or a
// hand-edited one fails clearly instead of comparing the wrong things.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arch/simt/ptx/functional_state.h"  // Dim3
#include "sim/json_reader.h"

namespace loom::validate {

inline constexpr const char* kMeasurementSchema = "loom-gpu-measurements";
inline constexpr int kMeasurementSchemaVersion = 1;

// Where the numbers come from: timed by loom's runner, or copied from a publication (then
// every figure names one of the file's sources).
enum class Origin { measured, published };
const char* origin_name(Origin origin);

// Kernel times over repeated runs, microseconds (CUDA events around each launch).
struct TimeStats {
  double median_us = 0;
  double min_us = 0, max_us = 0;  // spread
  double p10_us = 0, p90_us = 0;
  int repeats = 0;
};

// The device as the CUDA runtime reports it (0 / "" where unknown, e.g. in published files).
struct DeviceInfo {
  std::string name;                // cudaDeviceProp::name, e.g. "NVIDIA H200"
  std::string compute_capability;  // "9.0"
  int sms = 0;
  double sm_clock_mhz = 0;      // the clock cycles are converted at (max SM clock unless locked)
  double memory_clock_mhz = 0;
  int memory_bus_bits = 0;
  int64_t memory_bytes = 0;
  int64_t l2_bytes = 0;
  int max_threads_per_sm = 0;
  int64_t shared_bytes_per_sm = 0;
  std::string driver_version;   // CUDA version the driver supports, e.g. "13.0"
  std::string runtime_version;  // CUDA runtime the runner was built with
};

// One launch of a shipped kernel (arch/simt/kernels/kernel_catalog.h) at given sizes.
struct KernelRun {
  std::string kernel;
  std::map<std::string, int64_t> sizes;  // every size parameter of the kernel
  simt::Dim3 grid, block;                // as launched: must equal loom's recipe
  TimeStats time;
  bool verified = false;  // its output matched the CPU reference
};

// A derived figure (a latency, a bandwidth, a throughput; validate/microbenchmarks.h names
// the known ones and how each is computed from its runs). Measured ones carry their runs;
// published ones carry a value and a source, and loom runs its own probe for them.
struct Microbenchmark {
  std::string name;
  double value = 0;
  std::string unit;
  std::vector<KernelRun> runs;
  std::string source;  // a source id (published files)
  std::string note;
};

// A library kernel timed as the speed of light (e.g. cuBLAS GEMM); not simulated.
struct LibraryReference {
  std::string name;  // "cublas_sgemm", "cublas_hgemm_tensor_op"
  std::map<std::string, int64_t> sizes;
  TimeStats time;
  double flops = 0;  // useful FLOPs of one call
};

// A published figure loom compares its own with: a datasheet peak (computed from the
// config) or an application rate. value, or a [low, high] range.
struct PublishedFigure {
  std::string name;  // validate/published_figures.h names the known ones
  double low = 0, high = 0;
  std::string unit;
  std::string source;
  std::string note;
};

struct Source {
  std::string id;
  std::string citation;
};

struct MeasurementFile {
  std::string path;  // where it was read from ("" when built in memory)
  Origin origin = Origin::measured;
  std::string date;  // YYYY-MM-DD
  DeviceInfo device;
  int warmups = 0, repeats = 0;
  double launch_overhead_us = 0;  // median time of an empty kernel measured the same way
  std::string note;
  std::vector<Source> sources;
  std::vector<KernelRun> kernels;
  std::vector<Microbenchmark> microbenchmarks;
  std::vector<LibraryReference> references;
  std::vector<PublishedFigure> figures;
};

// Reads and checks a measurement file. InputError (file, JSON path, rule) on: bad JSON, a
// wrong schema name or version, unknown keys, a kernel loom does not ship, sizes the kernel
// does not take, a grid/block different from loom's recipe for those sizes, a source id
// that is not declared, non-positive times.
MeasurementFile load_measurements(const std::string& path);
MeasurementFile parse_measurements(const Json& json, const std::string& path);

Json to_json(const MeasurementFile& file);
Json to_json(const TimeStats& time);
Json to_json(const KernelRun& run);

// Median, extremes and 10th/90th percentiles of repeated timings (microseconds).
TimeStats summarize_times(std::vector<double> times_us);

}  // namespace loom::validate
