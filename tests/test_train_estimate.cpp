// The training estimator (training/): schedules, host effects, memory checks and the
// analytic identities of docs/training.md.
#include <doctest/doctest.h>

#include <cmath>

#include "arch/system/system_config.h"
#include "sim/error.h"
#include "training/gpipe_grid.h"
#include "training/train_estimate.h"

using namespace loom;

namespace {

// N devices of `arch` on a ring of custom links (bandwidth GB/s per direction, latency us).
SystemConfig ring_system(int n, const std::string& arch, double gb_s, double latency_us, double memory_gib = 0) {
  Json devices = Json::array();
  Json device = {{"name", "d"}, {"count", n}, {"arch", arch}};
  if (memory_gib > 0) device["memory_gib"] = memory_gib;
  devices.push_back(device);
  Json links = Json::array();
  for (int i = 0; i < n && n > 1; ++i) {
    if (n == 2 && i == 1) break;
    links.push_back({{"between", {"d" + std::to_string(i), "d" + std::to_string((i + 1) % n)}},
                     {"type", "custom"},
                     {"bandwidth_gb_s", gb_s},
                     {"latency_us", latency_us}});
  }
  const Json j = {{"schema", "loom-system/1"}, {"name", "test ring"}, {"devices", devices}, {"links", links}};
  return parse_system(j, "ring.json", ".");
}

Network chain_of_gemms(int layers, int64_t m, int64_t n, int64_t k) {
  Network net;
  net.name = "chain";
  for (int i = 0; i < layers; ++i) {
    Layer l;
    l.name = "fc" + std::to_string(i);
    l.kind = LayerKind::gemm;
    l.gemm = {m, n, k, 1};
    net.layers.push_back(l);
  }
  return net;
}

TrainOptions quick(int64_t batch) {
  TrainOptions o;
  o.batch = batch;
  o.effects = false;
  o.scaling_baseline = false;
  return o;
}

const std::string kSystolic = "configs/systolic_32x32_ws.json";
const std::string kV100 = "configs/v100.json";

}  // namespace

TEST_CASE("GPipe grid: equal stages idle (p-1)/(m+p-1) of the time") {
  for (int p : {2, 4, 8}) {
    for (int64_t m : {1, 4, 16}) {
      const std::vector<double> free(p, 0.0);
      const GpipeGrid g = gpipe_grid(std::vector<double>(p, 1.0), std::vector<double>(p, 2.0), free, free, m);
      CHECK(g.end == doctest::Approx(double(m + p - 1) * 3.0));
      CHECK(g.idle_fraction == doctest::Approx(double(p - 1) / double(m + p - 1)));
    }
  }
  // A send between stages delays the fill and the drain by one send per boundary each way.
  const GpipeGrid sent = gpipe_grid({1, 1}, {1, 1}, {0.5, 0}, {0.5, 0}, 1);
  CHECK(sent.end == doctest::Approx(1 + 0.5 + 1 + 1 + 0.5 + 1));
  const GpipeGrid inference = gpipe_grid({1, 1}, {0, 0}, {0.5, 0}, {0, 0}, 1);
  CHECK(inference.end == doctest::Approx(1 + 0.5 + 1));
}

TEST_CASE("data parallel: one bucket without overlap costs the ring all-reduce formula") {
  const int n = 4;
  const double bw = 10e9, lat = 5e-6;
  const SystemConfig system = ring_system(n, kSystolic, bw / 1e9, lat * 1e6);
  const Network net = chain_of_gemms(3, 64, 256, 256);
  TrainOptions o = quick(32);
  o.bucket_bytes = int64_t(1) << 40;  // everything in one bucket
  o.overlap = false;
  o.launch_overhead = false;
  const TrainResult r = estimate_training(system, net, o);
  const TrainingStep step = derive_training_step(net, 8, o.step);
  const double bytes = double(step.gradient_bytes());
  CHECK(bytes > 0);
  const double expected = 2.0 * (n - 1) / n * bytes / bw + 2.0 * (n - 1) * lat;
  CHECK(r.communication_seconds == doctest::Approx(expected).epsilon(1e-9));
  CHECK(r.breakdown.communication_exposed == doctest::Approx(expected).epsilon(1e-9));
  // Communication per link: every ring link carries each flow's 2(N-1)/N of the bytes.
  REQUIRE(r.links.size() == size_t(n));
  for (const LinkUse& l : r.links) {
    CHECK(double(l.bytes) == doctest::Approx(2.0 * (n - 1) / n * bytes).epsilon(1e-9));
    CHECK(l.busy_seconds == doctest::Approx(expected).epsilon(1e-9));
  }
  // Overlapping hides part of it behind backward; never more than all of it.
  o.overlap = true;
  o.bucket_bytes = 64 << 10;
  const TrainResult overlapped = estimate_training(system, net, o);
  CHECK(overlapped.breakdown.communication_exposed < r.breakdown.communication_exposed);
  CHECK(overlapped.step_seconds <= r.step_seconds);
}

TEST_CASE("data parallel: the batch must divide across the devices") {
  const SystemConfig system = ring_system(4, kSystolic, 10, 1);
  try {
    estimate_training(system, chain_of_gemms(2, 8, 64, 64), quick(30));
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.field() == "--batch");
    CHECK(std::string(e.what()).find("30 is not a multiple of 4") != std::string::npos);
  }
}

TEST_CASE("breakdown adds up to the step, and the step is deterministic") {
  const SystemConfig system = ring_system(2, kV100, 25, 2);
  const Network net = load_workload("workloads/networks/resnet50.json");
  TrainOptions o = quick(64);
  o.loader_samples_per_second = 100;  // slow loader: the devices wait
  const TrainResult r = estimate_training(system, net, o);
  const StepBreakdown& b = r.breakdown;
  CHECK(b.input_wait > 0);
  CHECK(r.samples_per_second == doctest::Approx(100.0));  // the loader makes 100 samples/s for the node
  const double sum = b.forward + b.backward + b.update + b.communication_exposed + b.launch_exposed + b.input_wait +
                     b.pipeline_bubble;
  CHECK(sum == doctest::Approx(r.step_seconds).epsilon(1e-9));
  CHECK(b.gemm + b.elementwise == doctest::Approx(b.forward + b.backward + b.update).epsilon(1e-9));
  const TrainResult again = estimate_training(system, net, o);
  CHECK(train_result_to_json(again).dump() == train_result_to_json(r).dump());
}

TEST_CASE("host effects: launch overhead shows on small kernels, CUDA Graphs remove it") {
  const SystemConfig system = single_device_system(load_architecture(kV100));
  const Network net = load_workload("workloads/networks/lenet5.json");
  TrainOptions o = quick(1);
  const TrainResult launched = estimate_training(system, net, o);
  CHECK(launched.breakdown.launch_exposed > 0);
  o.cuda_graphs = true;
  const TrainResult graphed = estimate_training(system, net, o);
  CHECK(graphed.breakdown.launch_exposed < launched.breakdown.launch_exposed);
  CHECK(graphed.breakdown.launch_exposed <= system.host.graph_launch_seconds + 1e-12);
  o.cuda_graphs = false;
  o.launch_overhead = false;
  CHECK(estimate_training(system, net, o).breakdown.launch_exposed == 0);
}

TEST_CASE("effects: each switch is re-estimated flipped; fusion and NHWC save time on a V100") {
  const SystemConfig system = single_device_system(load_architecture(kV100));
  const Network net = load_workload("workloads/networks/resnet50.json");
  TrainOptions o = quick(32);
  o.effects = true;
  o.layout = TensorLayout::nchw;
  const TrainResult r = estimate_training(system, net, o);
  bool saw_fusion = false, saw_layout = false;
  for (const EffectCost& e : r.effects) {
    CHECK(e.step_seconds == doctest::Approx(r.step_seconds));
    if (e.name == "fusion") {
      saw_fusion = true;
      CHECK(e.setting == "off");
      CHECK(e.flipped_step_seconds < e.step_seconds);
    }
    if (e.name == "layout_nchw") {
      saw_layout = true;
      CHECK(e.setting == "on");
      CHECK(e.flipped_step_seconds < e.step_seconds);  // NHWC skips the transposes
    }
  }
  CHECK(saw_fusion);
  CHECK(saw_layout);
}

TEST_CASE("tensor and pipeline parallel split the model; scaling efficiency is at most 1") {
  const SystemConfig system = ring_system(4, kV100, 150, 2);
  const Network net = load_workload("workloads/networks/resnet50.json");
  TrainOptions o = quick(64);
  o.scaling_baseline = true;
  o.parallel = Parallelism::data;
  const TrainResult data = estimate_training(system, net, o);
  o.parallel = Parallelism::tensor;
  const TrainResult tensor = estimate_training(system, net, o);
  o.parallel = Parallelism::pipeline;
  o.micro_batches = 8;
  const TrainResult pipe = estimate_training(system, net, o);
  for (const TrainResult* r : {&data, &tensor, &pipe}) {
    CHECK(r->scaling_efficiency > 0);
    CHECK(r->scaling_efficiency <= 1.0 + 1e-9);
  }
  CHECK(tensor.memory[0].footprint.weights < data.memory[0].footprint.weights);
  CHECK(pipe.stages == 4);
  CHECK(pipe.micro_batches == 8);
  CHECK(pipe.stage_layers.size() == 4);
  CHECK(pipe.bubble_fraction > 0);
  CHECK(pipe.breakdown.pipeline_bubble > 0);
  o.micro_batches = 6;  // 64 is not a multiple of 6
  CHECK_THROWS_AS(estimate_training(system, net, o), InputError);
}

TEST_CASE("memory: a step that does not fit is flagged, one that fits nowhere is an error") {
  const Network net = load_workload("workloads/networks/resnet50.json");
  TrainOptions o = quick(64);
  // 4 devices of 1 GiB at batch 64: pipeline parallelism keeps every micro-batch's
  // activations (1.08 GiB per stage), data parallelism needs 0.97 GiB per device.
  o.parallel = Parallelism::pipeline;
  const TrainResult flagged = estimate_training(ring_system(4, kV100, 150, 2, 1.0), net, o);
  CHECK_FALSE(flagged.fits);
  CHECK(flagged.samples_per_second > 0);  // still estimated
  REQUIRE(!flagged.warnings.empty());
  CHECK(flagged.warnings[0].find("does not fit") != std::string::npos);
  CHECK(flagged.warnings[0].find("--parallel data") != std::string::npos);
  o.parallel = Parallelism::data;
  CHECK(estimate_training(ring_system(4, kV100, 150, 2, 1.0), net, o).fits);
  try {
    estimate_training(ring_system(2, kV100, 150, 2, 0.001), net, o);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.field() == "memory");
    CHECK(std::string(e.what()).find("fits") != std::string::npos);
  }
}
