// loom's training estimates against the published throughputs of
// validate/published/training_throughput.json. The accepted bands are loom's claims, stated
// with their reasons in docs/validation.md ("Training throughput"): loom times its own
// shipped kernels, not cuDNN's, so it is expected below the published figures.
#include <doctest/doctest.h>

#include "arch/system/system_config.h"
#include "sim/json_reader.h"
#include "training/train_estimate.h"

using namespace loom;

namespace {

const Json& reference_case(const std::string& name) {
  static const Json file = load_json_file("validate/published/training_throughput.json");
  for (const Json& c : file.at("cases")) {
    if (c.at("name") == name) return c;
  }
  FAIL("no case " << name);
  static const Json none;
  return none;
}

TrainResult estimate_case(const Json& c, PrecisionPolicy precision, int64_t batch) {
  TrainOptions o;
  o.batch = batch;
  o.step.precision = precision;
  o.effects = false;
  return estimate_training(load_system(c.at("system")), load_workload(c.at("workload")), o);
}

}  // namespace

TEST_CASE("reference: one V100, ResNet-50, mixed precision") {
  const Json& c = reference_case("resnet50_v100_mixed");
  const TrainResult r = estimate_case(c, PrecisionPolicy::mixed_fp16, c.at("batch"));
  const double low = c.at("samples_per_second").at("min"), high = c.at("samples_per_second").at("max");
  MESSAGE("loom " << r.samples_per_second << " images/s; published " << low << " to " << high);
  // Within 35% below the published range and never above it.
  CHECK(r.samples_per_second >= 0.65 * low);
  CHECK(r.samples_per_second <= high);
}

TEST_CASE("reference: FP32 to mixed precision speed-up on one V100") {
  const Json& c = reference_case("resnet50_v100_fp32_to_mixed_speedup");
  // Batch 128: FP32 at 256 needs more than a 16 GiB V100 holds (loom says so).
  const double mixed = estimate_case(c, PrecisionPolicy::mixed_fp16, 128).samples_per_second;
  const double fp32 = estimate_case(c, PrecisionPolicy::fp32, 128).samples_per_second;
  MESSAGE("loom speed-up " << mixed / fp32 << "; published " << c.at("speedup").at("min") << " to "
                           << c.at("speedup").at("max"));
  // Mixed precision is at least the published speed-up faster. loom's FP32 path runs the
  // shipped 16x16 shared-memory tiled GEMM, far from cuDNN's FP32 kernels, so loom's
  // speed-up exceeds the published one (docs/validation.md); the upper bound records how far.
  CHECK(mixed / fp32 >= double(c.at("speedup").at("min")));
  CHECK(mixed / fp32 <= 4.0 * double(c.at("speedup").at("max")));
}

TEST_CASE("reference: DGX-1, 8 V100, ResNet-50, mixed precision, data parallel") {
  const Json& c = reference_case("resnet50_dgx1_mixed");
  const TrainResult r = estimate_case(c, PrecisionPolicy::mixed_fp16, c.at("batch"));
  const double published = c.at("samples_per_second").at("value");
  MESSAGE("loom " << r.samples_per_second << " images/s, scaling efficiency " << r.scaling_efficiency
                  << "; published " << published);
  CHECK(r.devices == 8);
  CHECK(r.samples_per_second >= 0.7 * published);
  CHECK(r.samples_per_second <= 1.1 * published);
  CHECK(r.scaling_efficiency > 0.9);
  CHECK(r.scaling_efficiency <= 1.0);
}
