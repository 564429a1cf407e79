// Fidelity ladder, analytic systolic model (estimate_network) against the cycle model
// (simulate_network): equal on every count, DRAM byte and energy figure always, equal on
// cycles when DRAM is unlimited or the buffers are single-buffered, and within a measured
// tolerance on the shipped configs' real DRAM (docs/systolic-conventions.md, "Analytic model").
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "arch/systolic/systolic_analytic.h"
#include "arch/systolic/systolic_simulator.h"
#include "sim/error.h"

using namespace loom;

namespace {

const std::string kRoot = LOOM_SOURCE_DIR;
const std::vector<std::string> kConfigs = {"systolic_128x128_ws", "systolic_32x32_ws", "systolic_32x32_is",
                                           "systolic_32x32_os", "tpu_v1_like"};
const std::vector<std::string> kNetworks = {"networks/lenet5.json", "networks/alexnet.json",
                                            "networks/resnet50.json", "scalesim/example_conv.csv",
                                            "scalesim/example_gemm.csv"};

SystolicConfig config(const std::string& stem) { return load_systolic_config(kRoot + "/configs/" + stem + ".json"); }
Network network(const std::string& rel) { return load_workload(kRoot + "/workloads/" + rel); }

const EnergyTable& table() {
  static const EnergyTable t = EnergyTable::load("<embedded>:default_energy");
  return t;
}

NetworkResult cycle_model(const SystolicConfig& c, const Network& n, bool compat = false) {
  SimulationOptions o;
  o.scalesim_compat = compat;
  return simulate_network(c, n, table(), o);
}

// Everything but cycles and peak bandwidth: the plan and the energy are shared, so exact.
void check_same_counts(const LayerResult& a, const LayerResult& s) {
  CAPTURE(s.name);
  CHECK(a.name == s.name);
  CHECK(a.kind == s.kind);
  CHECK(a.gemm.m == s.gemm.m);
  CHECK(a.gemm.n == s.gemm.n);
  CHECK(a.gemm.k == s.gemm.k);
  CHECK(a.gemm.groups == s.gemm.groups);
  CHECK(a.macs == s.macs);
  CHECK(a.folds == s.folds);
  CHECK(a.cycles_compute == s.cycles_compute);
  CHECK(a.steady_state_cycles == s.steady_state_cycles);
  CHECK(a.sram == s.sram);
  CHECK(a.ifmap_fill_writes == s.ifmap_fill_writes);
  CHECK(a.filter_fill_writes == s.filter_fill_writes);
  CHECK(a.ofmap_fill_writes == s.ofmap_fill_writes);
  CHECK(a.ofmap_drain_reads == s.ofmap_drain_reads);
  CHECK(a.dram_read_bytes == s.dram_read_bytes);
  CHECK(a.dram_write_bytes == s.dram_write_bytes);
  CHECK(a.energy.mac_pj == s.energy.mac_pj);
  CHECK(a.energy.sram_ifmap_pj == s.energy.sram_ifmap_pj);
  CHECK(a.energy.sram_filter_pj == s.energy.sram_filter_pj);
  CHECK(a.energy.sram_ofmap_pj == s.energy.sram_ofmap_pj);
  CHECK(a.energy.dram_pj == s.energy.dram_pj);
}

// Same records; cycles too when `cycles_exact`.
void check_same(const NetworkResult& a, const NetworkResult& s, bool cycles_exact) {
  CHECK(a.arch_name == s.arch_name);
  CHECK(a.workload_name == s.workload_name);
  CHECK(a.array_pes == s.array_pes);
  CHECK(a.clock_hz == s.clock_hz);
  REQUIRE(a.layers.size() == s.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    check_same_counts(a.layers[i], s.layers[i]);
    if (cycles_exact) {
      CHECK(a.layers[i].cycles_total == s.layers[i].cycles_total);
      CHECK(a.layers[i].cycles_stall == s.layers[i].cycles_stall);
    }
  }
}

// Both models reject the input with the same error, or both accept it.
bool same_rejection(const SystolicConfig& c, const Network& n) {
  std::string cycle_error, analytic_error;
  try {
    cycle_model(c, n);
  } catch (const InputError& e) {
    cycle_error = std::string(e.what());
  }
  try {
    estimate_network(c, n, table());
  } catch (const InputError& e) {
    analytic_error = std::string(e.what());
  }
  CHECK(analytic_error == cycle_error);
  return cycle_error.empty();
}

}  // namespace

TEST_CASE("analytic == cycle model with unlimited DRAM: shipped configs x networks x dataflows x conventions") {
  int compared = 0;
  for (const std::string& stem : kConfigs) {
    for (Dataflow df : {Dataflow::ws, Dataflow::is, Dataflow::os}) {
      SystolicConfig c = config(stem);
      c.dataflow = df;
      c.dram.unlimited = true;
      for (const std::string& rel : kNetworks) {
        const Network n = network(rel);
        CAPTURE(stem);
        CAPTURE(name_of(df));
        CAPTURE(rel);
        if (!same_rejection(c, n)) continue;
        for (bool compat : {false, true}) {
          CAPTURE(compat);
          const NetworkResult s = cycle_model(c, n, compat);
          const NetworkResult a = estimate_network(c, n, table(), compat);
          check_same(a, s, true);
          CHECK(a.totals().cycles_stall == 0);
          ++compared;
        }
      }
    }
  }
  CHECK(compared >= 120);
}

TEST_CASE("analytic == cycle model with unlimited DRAM and SRAM ports narrower than the array edge") {
  const Network n = network("networks/resnet50.json");
  for (const std::string& stem : {"systolic_32x32_ws", "systolic_32x32_is", "systolic_32x32_os"}) {
    SystolicConfig c = config(stem);
    c.dram.unlimited = true;
    c.sram.ifmap_words_per_cycle = 8;
    c.sram.filter_words_per_cycle = 16;
    c.sram.ofmap_words_per_cycle = 24;
    CAPTURE(stem);
    const NetworkResult s = cycle_model(c, n);
    check_same(estimate_network(c, n, table()), s, true);
    CHECK(s.totals().cycles_stall > 0);  // the ports really are a limit here
  }
}

TEST_CASE("analytic == cycle model with real DRAM when the buffers are single-buffered") {
  // One slot per buffer serialises every transfer with compute, so the closed form is exact.
  for (const std::string& stem : kConfigs) {
    SystolicConfig c = config(stem);
    c.sram.double_buffered = false;
    for (const std::string& rel : kNetworks) {
      const Network n = network(rel);
      CAPTURE(stem);
      CAPTURE(rel);
      if (!same_rejection(c, n)) continue;
      const NetworkResult s = cycle_model(c, n);
      check_same(estimate_network(c, n, table()), s, true);
    }
  }
}

TEST_CASE("analytic cycles within 2% of the cycle model per network on the shipped configs' real DRAM") {
  // Measured (docs/systolic-conventions.md): at most 1.3% per network, 9% per layer, on these
  // configs and networks; the analytic total never drops below the compute cycles.
  for (const std::string& stem : kConfigs) {
    const SystolicConfig c = config(stem);
    for (const std::string& rel : kNetworks) {
      const Network n = network(rel);
      CAPTURE(stem);
      CAPTURE(rel);
      const NetworkResult s = cycle_model(c, n);
      const NetworkResult a = estimate_network(c, n, table());
      check_same(a, s, false);
      for (const LayerResult& l : a.layers) {
        CHECK(l.cycles_total >= l.cycles_compute);
        CHECK(l.cycles_stall == l.cycles_total - l.cycles_compute);
        CHECK(l.dram_peak_bytes_per_cycle <= c.dram.bytes_per_cycle + 1e-9);
      }
      const double analytic = static_cast<double>(a.totals().cycles_total);
      const double cycle = static_cast<double>(s.totals().cycles_total);
      CHECK(std::fabs(analytic / cycle - 1.0) <= 0.02);
    }
  }
}

TEST_CASE("analytic: two threads estimating different configs give the serial results") {
  const Network n = network("networks/resnet50.json");
  const SystolicConfig big = config("systolic_128x128_ws");
  const SystolicConfig small = config("systolic_32x32_os");
  const NetworkResult serial_big = estimate_network(big, n, table());
  const NetworkResult serial_small = estimate_network(small, n, table());
  std::vector<NetworkResult> big_runs(20), small_runs(20);
  std::thread a([&] {
    for (NetworkResult& r : big_runs) r = estimate_network(big, n, table());
  });
  std::thread b([&] {
    for (NetworkResult& r : small_runs) r = estimate_network(small, n, table());
  });
  a.join();
  b.join();
  for (size_t i = 0; i < big_runs.size(); ++i) {
    check_same(big_runs[i], serial_big, true);
    check_same(small_runs[i], serial_small, true);
    CHECK(big_runs[i].totals().dram_peak_bytes_per_cycle == serial_big.totals().dram_peak_bytes_per_cycle);
    CHECK(small_runs[i].totals().dram_peak_bytes_per_cycle == serial_small.totals().dram_peak_bytes_per_cycle);
  }
}

TEST_CASE("analytic: impossible layers throw the cycle model's InputError") {
  Layer fc;
  fc.name = "fc";
  fc.gemm = {16, 256, 256, 1};
  Network n;
  n.name = "bad";
  n.source_file = "bad.json";
  n.layers = {fc};
  SystolicConfig c = config("systolic_32x32_ws");

  SUBCASE("a stationary tile larger than its buffer") {
    c.sram.filter_bytes = 1024;  // a 32x32 int8 filter tile needs 1 KiB; the working half holds 512 B
    CHECK_THROWS_AS(estimate_network(c, n, table()), InputError);
    CHECK_FALSE(same_rejection(c, n));
    try {
      estimate_network(c, n, table());
    } catch (const InputError& e) {
      CHECK(e.field() == "sram.filter_kib");
    }
  }
  SUBCASE("more folds than loom plans") {
    c.rows = c.cols = 1;
    n.layers[0].gemm = {1, 20000, 20000, 1};  // 4 x 10^8 folds
    CHECK_THROWS_AS(estimate_network(c, n, table()), InputError);
    CHECK_FALSE(same_rejection(c, n));
  }
  SUBCASE("a repeated impossible shape is reported at its first layer") {
    c.sram.filter_bytes = 1024;
    Layer ok;
    ok.name = "ok";
    ok.gemm = {16, 8, 8, 1};
    Layer again = fc;
    again.name = "fc_again";
    n.layers = {ok, fc, again};
    CHECK_FALSE(same_rejection(c, n));
  }
}

TEST_CASE("analytic: repeated layer shapes are planned once but keep their own names") {
  const Network n = network("networks/resnet50.json");
  const SystolicConfig c = config("systolic_32x32_ws");
  const NetworkResult a = estimate_network(c, n, table());
  REQUIRE(a.layers.size() == n.layers.size());
  for (size_t i = 0; i < n.layers.size(); ++i) {
    CHECK(a.layers[i].name == n.layers[i].name);
    CHECK(a.layers[i].kind == std::string(n.layers[i].kind_name()));
  }
  // Each layer alone gives what it gives inside the network.
  for (size_t i : {size_t{5}, size_t{20}, n.layers.size() - 1}) {
    Network one = n;
    one.layers = {n.layers[i]};
    const LayerResult alone = estimate_network(c, one, table()).layers.at(0);
    check_same_counts(alone, a.layers[i]);
    CHECK(alone.cycles_total == a.layers[i].cycles_total);
    CHECK(alone.dram_peak_bytes_per_cycle == a.layers[i].dram_peak_bytes_per_cycle);
  }
}
