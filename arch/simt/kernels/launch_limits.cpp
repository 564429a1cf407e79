#include "arch/simt/kernels/launch_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "arch/simt/gpu_analytic.h"
#include "arch/simt/simt_limits.h"
#include "sim/error.h"

namespace loom::simt {

namespace {

constexpr double kSaturated = 4611686018427387904.0;  // 2^62

int64_t saturate(double x) { return x < kSaturated ? static_cast<int64_t>(std::ceil(x)) : int64_t{1} << 62; }

// "2.9e+09", for counts far beyond what commas help with.
std::string short_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

// Threads of the launch, as a double: three 32-bit grid and block dimensions overflow 64 bits.
double threads_of(const LaunchRecipe& r) {
  return static_cast<double>(r.grid.x) * r.grid.y * r.grid.z * (static_cast<double>(r.block.x) * r.block.y * r.block.z);
}

double size_of(const LaunchRecipe& r, const char* key) { return static_cast<double>(r.sizes.at(key)); }

// Per-thread loop trips of a grid-stride loop over n elements.
double grid_stride_trips(const LaunchRecipe& r, double n) {
  return std::ceil(n / threads_of(r));
}

// Upper bounds on the warp instructions of the shipped microbenchmarks, from each kernel's
// loop structure (validate/kernels/*.cu): per warp (or per launch for the one-thread
// kernels), a fixed part plus the loop body times the trips, rounded up from the functional
// model's counts. tests/test_limits.cpp checks each one against the model.
double microbenchmark_bound(const LaunchRecipe& r, double warps) {
  const std::string& k = r.kernel;
  if (k == "relu_add") return warps * 26;
  if (k == "triad") return warps * (20 + 11 * grid_stride_trips(r, size_of(r, "n")));
  if (k == "reduction") return warps * 100;
  if (k == "stream_read") {
    return warps * (24 + size_of(r, "passes") * (10 + 5.5 * grid_stride_trips(r, size_of(r, "n"))));
  }
  if (k == "naive_gemm") return warps * (48 + 6 * size_of(r, "K"));
  if (k == "fma_chain") return warps * (256 + size_of(r, "steps"));
  if (k == "mma_chain") return warps * (48 + 2 * size_of(r, "steps"));
  if (k == "pointer_chase") return 20 + 4 * size_of(r, "steps");
  if (k == "shared_chase") return 48 + 2 * size_of(r, "steps") + 8 * size_of(r, "count");
  if (k == "address_chase") return 64 + 2 * size_of(r, "steps") + 5 * size_of(r, "footprint") / size_of(r, "stride");
  return -1;
}

void fail(const std::string& file, const std::string& field, const std::string& why) {
  throw InputError(file, field, why);
}

void check_buffers(const LaunchRecipe& r, const GpuConfig& config, const std::string& file, const std::string& field,
                   const std::string& what) {
  const int64_t bytes = launch_buffer_bytes(r);
  if (bytes > kMaxLaunchBufferBytes) {
    fail(file, field,
         what + " needs " + short_number(static_cast<double>(bytes)) +
             " bytes of buffers; loom simulates launches of up to 2 GiB of buffers (it holds each buffer two to "
             "three times in host memory)");
  }
  if (bytes > config.dram_bytes) {
    fail(file, field,
         what + " needs " + short_number(static_cast<double>(bytes)) + " bytes of buffers, more than the " +
             short_number(static_cast<double>(config.dram_bytes)) + " bytes of memory of " + config.name +
             " (dram_bytes)");
  }
}

std::string describe(const LaunchRecipe& r) {
  std::string text = r.kernel;
  if (!r.sizes.empty()) text += ' ' + format_size_list(r.kernel, r.sizes);
  return text;
}

}  // namespace

int64_t launch_buffer_bytes(const LaunchRecipe& recipe) {
  double bytes = 0;
  for (const BufferSpec& b : recipe.buffers) bytes += static_cast<double>(b.count) * element_bytes(b.type);
  return saturate(bytes);
}

int64_t warp_instruction_estimate(const LaunchRecipe& r, const GpuConfig& config) {
  if (r.kernel == "wmma_gemm" || r.kernel == "tiled_gemm" || r.kernel == "conv_implicit_gemm") {
    return estimate_launch(r, config).warp_instructions;  // exact (docs/simt-model.md, "Analytic model")
  }
  const double warp = std::max(1, config.warp_size);
  const double ctas = static_cast<double>(r.grid.x) * r.grid.y * r.grid.z;
  const double warps = ctas * std::ceil(static_cast<double>(r.block.x) * r.block.y * r.block.z / warp);
  const double bound = is_catalog_kernel(r.kernel) ? microbenchmark_bound(r, warps) : -1;
  return saturate(bound >= 0 ? bound : warps);  // a custom kernel: at least one instruction per warp
}

void check_launch_limits(const LaunchRecipe& recipe, const GpuConfig& config) {
  const bool custom = !is_catalog_kernel(recipe.kernel);
  check_buffers(recipe, config, "", custom ? "--args" : "--size", "the launch " + describe(recipe));
  const int64_t estimate = warp_instruction_estimate(recipe, config);
  if (estimate > kMaxSimulatedWarpInstructions) {
    fail("", custom ? "--grid" : "--size",
         "the launch " + describe(recipe) + " would execute " + (custom ? "at least " : "about ") +
             short_number(static_cast<double>(estimate)) +
             " warp instructions; loom simulates up to 2.5e9 per run (15 to 40 minutes for the GEMM kernels): "
             "use smaller sizes" +
             (custom ? " or a smaller grid" : ""));
  }
}

void check_network_limits(const Network& network, const GpuConfig& config, GpuPrecision precision) {
  std::set<std::pair<std::string, std::map<std::string, int64_t>>> seen;  // distinct launches
  double total = 0, largest = 0;
  const Layer* largest_layer = nullptr;
  for (const Layer& layer : network.layers) {
    const LayerLaunch launch = launch_for_layer(layer, precision);
    const LaunchRecipe& r = launch.recipe;
    if (!seen.emplace(r.kernel, r.sizes).second) continue;  // a repeat is not simulated again
    const std::string field = "layer '" + layer.name + "'";
    check_buffers(r, config, network.source_file, field, "its kernel " + describe(r));
    const double estimate = static_cast<double>(warp_instruction_estimate(r, config));
    total += estimate;
    if (estimate > largest) largest = estimate, largest_layer = &layer;
  }
  if (total > static_cast<double>(kMaxSimulatedWarpInstructions)) {
    fail(network.source_file, "layers",
         "this network's kernels would execute about " + short_number(total) + " warp instructions on the " +
             config.name + " cycle model at " + precision_name(precision) + " (layer '" + largest_layer->name +
             "' alone " + short_number(largest) +
             "); loom simulates up to 2.5e9 per run (15 to 40 minutes for the GEMM kernels): use the analytic "
             "GPU model (loom roofline, loom sweep) or fewer layers per run");
  }
}

}  // namespace loom::simt
