#include "arch/systolic/systolic_analytic.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "arch/systolic/layer_plan.h"
#include "arch/systolic/systolic_energy.h"
#include "arch/systolic/systolic_simulator.h"  // geometry_of (no SystemC in that header)

namespace loom {

namespace {

// What decides a layer's plan besides the config: its GEMM view (folds and fold costs) and
// its distinct ifmap elements (DRAM traffic). Layers equal on these get equal results.
struct ShapeKey {
  int64_t m = 0, n = 0, k = 0, groups = 0, ifmap_elements = 0;
  bool operator==(const ShapeKey&) const = default;
};

ShapeKey key_of(const Layer& layer) {
  const GemmView g = layer.gemm_view();
  return {g.m, g.n, g.k, g.groups, layer.ifmap_elements()};
}

struct LayerEstimate {
  int64_t cycles = 0;
  double peak_bytes_per_cycle = 0;
};

// The engine's per-fold quantities in closed form (systolic_engine.cpp): busy cycles, and the
// channel occupancy of its three transfers (prefetch into the fold's slot, the overflow that
// streams during the fold, the write-back).
class FoldTerms {
 public:
  explicit FoldTerms(const SystolicConfig& c)
      : c_(c),
        ifmap_slot_(c.sram.working_bytes(c.sram.ifmap_bytes)),
        filter_slot_(c.sram.working_bytes(c.sram.filter_bytes)),
        ofmap_slot_(c.sram.working_bytes(c.sram.ofmap_bytes)) {}

  int64_t busy(const FoldJob& j) const {
    return std::max({j.compute_cycles, port(j.sram.ifmap_reads, c_.sram.ifmap_words_per_cycle),
                     port(j.sram.filter_reads, c_.sram.filter_words_per_cycle),
                     port(j.sram.ofmap_reads + j.sram.ofmap_writes, c_.sram.ofmap_words_per_cycle)});
  }
  int64_t prefetch_bytes(const FoldJob& j) const {
    const FoldTraffic& t = j.dram;
    return std::min(t.ifmap_read_bytes, ifmap_slot_) + std::min(t.filter_read_bytes, filter_slot_) +
           std::min(t.psum_read_bytes, ofmap_slot_);
  }
  int64_t overflow_bytes(const FoldJob& j) const {
    const FoldTraffic& t = j.dram;
    return std::max<int64_t>(0, t.ifmap_read_bytes - ifmap_slot_) +
           std::max<int64_t>(0, t.filter_read_bytes - filter_slot_) +
           std::max<int64_t>(0, t.psum_read_bytes - ofmap_slot_);
  }
  // Cycles a transfer of `bytes` holds the channel (0 for no transfer).
  int64_t occupancy(int64_t bytes) const {
    if (bytes <= 0 || c_.dram.unlimited) return 0;
    return static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / c_.dram.bytes_per_cycle));
  }

 private:
  static int64_t port(int64_t words, int64_t per_cycle) {
    return per_cycle > 0 ? (words + per_cycle - 1) / per_cycle : 0;
  }
  const SystolicConfig& c_;
  int64_t ifmap_slot_, filter_slot_, ofmap_slot_;
};

LayerEstimate estimate_layer(const std::vector<FoldJob>& jobs, const SystolicConfig& c) {
  LayerEstimate e;
  if (jobs.empty()) return e;
  const FoldTerms terms(c);
  const int64_t latency = c.dram.unlimited ? 0 : c.dram.latency_cycles;
  // Per transfer: occupancy, plus latency once when a transfer exists.
  auto exposed = [&](int64_t bytes) { return bytes > 0 ? terms.occupancy(bytes) + latency : 0; };
  const size_t n = jobs.size();
  double peak = 0;
  auto note_peak = [&](const FoldJob& j, int64_t period) {
    const int64_t bytes = j.dram.ifmap_read_bytes + j.dram.filter_read_bytes + j.dram.psum_read_bytes +
                          j.dram.ofmap_write_bytes;
    peak = std::max(peak, static_cast<double>(bytes) / static_cast<double>(std::max<int64_t>(period, 1)));
  };

  // The first fold waits for its prefetch; the last write-back ends the layer.
  int64_t cycles = exposed(terms.prefetch_bytes(jobs[0])) + exposed(jobs[n - 1].dram.ofmap_write_bytes);
  if (!c.sram.double_buffered) {
    // One slot: fold f's write-back and fold f + 1's prefetch are issued when fold f ends
    // and fold f + 1 waits for both, so every transfer is exposed and only the overflow
    // overlaps the fold that streams it. This is the engine's schedule exactly.
    for (size_t f = 0; f < n; ++f) {
      const int64_t period = std::max(terms.busy(jobs[f]), exposed(terms.overflow_bytes(jobs[f])));
      note_peak(jobs[f], period);
      cycles += period;
      if (f + 1 < n) {
        const int64_t write = jobs[f].dram.ofmap_write_bytes, next = terms.prefetch_bytes(jobs[f + 1]);
        if (write > 0 || next > 0) cycles += terms.occupancy(write) + terms.occupancy(next) + latency;
      }
    }
  } else {
    // Two slots: while fold f runs the channel moves fold f - 1's write-back, fold f + 1's
    // prefetch and fold f's own overflow. A fold lasts the longest of its busy cycles, that
    // channel work (plus latency if it streams), and the two-fold pipeline bound
    // (busy + hidden work + latency) / 2.
    for (size_t f = 0; f < n; ++f) {
      const int64_t write_before = f > 0 ? jobs[f - 1].dram.ofmap_write_bytes : 0;
      const int64_t prefetch_after = f + 1 < n ? terms.prefetch_bytes(jobs[f + 1]) : 0;
      const int64_t overflow = terms.overflow_bytes(jobs[f]);
      const int64_t hidden = terms.occupancy(write_before) + terms.occupancy(prefetch_after);
      const int64_t busy = terms.busy(jobs[f]);
      int64_t period = std::max(busy, hidden + exposed(overflow));
      if (write_before > 0 || prefetch_after > 0) period = std::max(period, (busy + hidden + latency + 1) / 2);
      note_peak(jobs[f], period);
      cycles += period;
    }
  }
  e.cycles = cycles;
  e.peak_bytes_per_cycle = c.dram.unlimited ? peak : std::min(peak, c.dram.bytes_per_cycle);
  return e;
}

}  // namespace

NetworkResult estimate_network(const SystolicConfig& c, const Network& network, const EnergyTable& energy,
                               bool scalesim_compat) {
  const ArrayGeometry geometry = geometry_of(c, scalesim_compat);
  check_folds_bound(network, c, geometry);  // the same limit as the cycle model
  // Plan each distinct shape once, in layer order, so the first impossible layer is the
  // one the cycle model reports; the cycle bound sums every layer as the cycle model does.
  std::vector<ShapeKey> keys;
  std::vector<PlannedLayer> planned;
  std::vector<size_t> shape_of(network.layers.size());
  double bound = 0;
  for (size_t i = 0; i < network.layers.size(); ++i) {
    const Layer& layer = network.layers[i];
    const ShapeKey key = key_of(layer);
    const auto it = std::find(keys.begin(), keys.end(), key);
    shape_of[i] = static_cast<size_t>(it - keys.begin());
    if (it == keys.end()) {
      planned.push_back(plan_layer(layer, c, geometry, network.source_file));
      keys.push_back(key);
    }
    bound += cycles_bound(planned[shape_of[i]], c);
  }
  check_cycles_bound(bound, c, network);

  std::vector<LayerResult> shapes;
  shapes.reserve(planned.size());
  for (PlannedLayer& p : planned) {
    LayerResult r = std::move(p.result);
    const LayerEstimate e = estimate_layer(p.jobs, c);
    r.cycles_total = e.cycles;
    if (scalesim_compat) {
      // SCALE-Sim reports the index of a layer's last cycle (N - 1), not the count N.
      r.cycles_total -= 1;
      r.cycles_compute -= 1;
    }
    r.cycles_stall = r.cycles_total - r.cycles_compute;
    r.dram_read_bytes = p.dram_read_bytes;
    r.dram_write_bytes = p.dram_write_bytes;
    r.dram_peak_bytes_per_cycle = e.peak_bytes_per_cycle;
    r.energy = price_layer(r, c, energy);
    shapes.push_back(std::move(r));
  }

  NetworkResult out;
  out.arch_name = c.name;
  out.workload_name = network.name;
  out.array_pes = c.rows * c.cols;
  out.clock_hz = c.clock_hz;
  out.layers.reserve(network.layers.size());
  for (size_t i = 0; i < network.layers.size(); ++i) {
    LayerResult r = shapes[shape_of[i]];
    r.name = network.layers[i].name;
    r.kind = network.layers[i].kind_name();
    out.layers.push_back(std::move(r));
  }
  return out;
}

}  // namespace loom
