// What a resumed `loom run` relies on, in process: a layer taken from the store
// (sim/layer_store.h) is not simulated again and does not change the layers simulated
// around it (each starts with the array idle and DRAM drained), and a checkpoint record
// (apps/layer_record_json.h) reads back to the same bits, doubles included.
#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "apps/layer_record_json.h"
#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/network_on_gpu.h"
#include "arch/systolic/systolic_simulator.h"

using namespace loom;

namespace {

const std::string kRoot = LOOM_SOURCE_DIR;

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Simulates `network` twice: once whole, keeping every layer's timing, then with the
// layers `taken` handed back from the store. The second run simulates only the others.
void check_skipping(const std::string& config_file, const std::string& network_file, const std::vector<size_t>& taken) {
  CAPTURE(config_file);
  CAPTURE(network_file);
  const SystolicConfig config = load_systolic_config(kRoot + config_file);
  const Network network = load_workload(kRoot + network_file);
  const EnergyTable energy = EnergyTable::load(config.energy_table);
  std::map<size_t, LayerTiming> kept;
  SimulationOptions whole;
  whole.store.keep = [&](size_t i, const LayerTiming& t) { kept[i] = t; };
  const NetworkResult full = simulate_network(config, network, energy, whole);
  REQUIRE(kept.size() == network.layers.size());

  std::vector<size_t> simulated;
  SimulationOptions resumed;
  resumed.store.find = [&](size_t i) -> std::optional<LayerTiming> {
    for (size_t t : taken) {
      if (t == i) return kept.at(i);
    }
    return std::nullopt;
  };
  resumed.store.keep = [&](size_t i, const LayerTiming&) { simulated.push_back(i); };
  const NetworkResult again = simulate_network(config, network, energy, resumed);
  CHECK(simulated.size() == network.layers.size() - taken.size());
  for (size_t t : taken) CHECK(std::find(simulated.begin(), simulated.end(), t) == simulated.end());
  REQUIRE(again.layers.size() == full.layers.size());
  for (size_t i = 0; i < full.layers.size(); ++i) {
    CAPTURE(full.layers[i].name);
    CHECK(again.layers[i].cycles_total == full.layers[i].cycles_total);
    CHECK(again.layers[i].dram_read_bytes == full.layers[i].dram_read_bytes);
    CHECK(again.layers[i].dram_write_bytes == full.layers[i].dram_write_bytes);
    CHECK(same_bits(again.layers[i].dram_peak_bytes_per_cycle, full.layers[i].dram_peak_bytes_per_cycle));
    CHECK(same_bits(again.layers[i].energy.total_pj(), full.layers[i].energy.total_pj()));
  }
}

}  // namespace

TEST_CASE("systolic: layers taken from the store are not simulated and leave the others' timing unchanged") {
  // Not only a finished prefix: every other layer, so each simulated one follows a skipped one.
  check_skipping("/configs/tpu_v1_like.json", "/workloads/networks/resnet50.json", {0, 2, 4, 6, 8, 10, 30, 52});
  check_skipping("/configs/systolic_32x32_ws.json", "/workloads/networks/alexnet.json", {0, 1, 3});
  check_skipping("/configs/systolic_32x32_os.json", "/workloads/networks/lenet5.json", {1, 2});
}

TEST_CASE("GPU: layers taken from the store are not simulated; a repeat of one is still marked reused") {
  const simt::GpuConfig config = simt::load_gpu_config(kRoot + "/configs/v100.json");
  const Network network = load_workload(kRoot + "/workloads/networks/lenet5.json");
  std::map<size_t, Json> kept;
  LayerStore<simt::GpuStats> whole;
  whole.keep = [&](size_t i, const simt::GpuStats& s) { kept[i] = gpu_stats_to_json(s); };
  const auto full = simt::run_network_on_gpu(network, config, simt::GpuPrecision::fp32, {}, whole);
  REQUIRE(kept.size() == network.layers.size());

  std::vector<size_t> simulated;
  LayerStore<simt::GpuStats> resumed;
  resumed.find = [&](size_t i) -> std::optional<simt::GpuStats> {
    if (i >= 2) return std::nullopt;
    return gpu_stats_from_json(Json::parse(kept.at(i).dump()));
  };
  resumed.keep = [&](size_t i, const simt::GpuStats&) { simulated.push_back(i); };
  const auto again = simt::run_network_on_gpu(network, config, simt::GpuPrecision::fp32, {}, resumed);
  CHECK(simulated == std::vector<size_t>{2, 3, 4});
  REQUIRE(again.size() == full.size());
  for (size_t i = 0; i < full.size(); ++i) {
    CHECK(gpu_stats_to_json(again[i].stats) == gpu_stats_to_json(full[i].stats));
    CHECK(again[i].reused == full[i].reused);
    CHECK(same_bits(again[i].energy.total_pj, full[i].energy.total_pj));
  }
}

TEST_CASE("checkpoint records read back to the same bits") {
  const std::vector<double> values = {0.0,
                                      0.1,
                                      1.0 / 3.0,
                                      48.5708840656432,
                                      2.0 / 3.0 * 1e-7,
                                      std::nextafter(1.0, 2.0),
                                      std::nextafter(48.57, 0.0),
                                      DBL_MIN,
                                      std::numeric_limits<double>::denorm_min(),
                                      DBL_MAX,
                                      123456789.123456789,
                                      1e300 / 7};
  for (double v : values) {
    CAPTURE(v);
    LayerTiming t;
    t.cycles = (int64_t{1} << 62) + 12345;  // beyond a double's 53 bits
    t.dram_read_bytes = 7;
    t.dram_write_bytes = 9;
    t.dram_peak_bytes_per_cycle = v;
    const LayerTiming back = layer_timing_from_json(Json::parse(layer_timing_to_json(t).dump()));
    CHECK(back.cycles == t.cycles);
    CHECK(back.dram_read_bytes == 7);
    CHECK(back.dram_write_bytes == 9);
    CHECK(same_bits(back.dram_peak_bytes_per_cycle, v));
  }
}
