#include "arch/systolic/dram_traffic.h"

#include <set>
#include <tuple>

#include "sim/error.h"

namespace loom {

namespace {

using SliceKey = std::tuple<int64_t, int64_t, int64_t>;  // group, row fold, col fold (-1 = all)

// Distinct ifmap elements and filter elements a fold touches, and the keys naming them.
struct FoldSlices {
  int64_t ifmap_elements = 0, filter_elements = 0;
  SliceKey ifmap_key, filter_key;
};

}  // namespace

LayerTraffic plan_dram_traffic(const Layer& layer, const std::vector<Fold>& folds,
                               const SystolicConfig& c) {
  const GemmView g = layer.gemm_view();
  const int64_t group_ifmap = layer.ifmap_elements() / g.groups;
  auto share = [](int64_t total, int64_t part, int64_t whole) { return (total * part + whole - 1) / whole; };

  // Slices per dataflow: ws rows=K cols=N; is rows=K cols=M; os rows=M cols=N.
  auto slices = [&](const Fold& f) {
    FoldSlices s;
    switch (c.dataflow) {
      case Dataflow::ws:
        s.ifmap_elements = share(group_ifmap, f.rows, g.k);
        s.ifmap_key = {f.group, f.row_fold, -1};
        s.filter_elements = f.rows * f.cols;
        s.filter_key = {f.group, f.row_fold, f.col_fold};
        break;
      case Dataflow::is:
        s.ifmap_elements = share(share(group_ifmap, f.rows, g.k), f.cols, g.m);
        s.ifmap_key = {f.group, f.row_fold, f.col_fold};
        s.filter_elements = f.rows * g.n;
        s.filter_key = {f.group, f.row_fold, -1};
        break;
      case Dataflow::os:
        s.ifmap_elements = share(group_ifmap, f.rows, g.m);
        s.ifmap_key = {f.group, f.row_fold, -1};
        s.filter_elements = g.k * f.cols;
        s.filter_key = {f.group, -1, f.col_fold};
        break;
    }
    return s;
  };

  const int64_t ifmap_half = c.sram.working_bytes(c.sram.ifmap_bytes);
  const int64_t filter_half = c.sram.working_bytes(c.sram.filter_bytes);
  const int64_t ofmap_half = c.sram.working_bytes(c.sram.ofmap_bytes);
  auto too_small = [&](const char* field, const std::string& what, int64_t need, int64_t have) {
    throw InputError(c.source_file, field,
                     "layer '" + layer.name + "' needs " + what + " of " + std::to_string(need) +
                         " bytes in one fold, but the working " +
                         (c.sram.double_buffered ? "half of the double-buffered buffer" : "buffer") +
                         " holds " + std::to_string(have) + " bytes; enlarge it or use a smaller array");
  };

  // Per-group footprints decide whether an operand stays resident for the whole group.
  const int64_t group_filter_bytes = bytes_for(g.k * g.n, c.filter_bits);
  const int64_t group_ifmap_bytes = bytes_for(group_ifmap, c.ifmap_bits);
  const bool ifmap_resident = group_ifmap_bytes <= ifmap_half;
  const bool filter_resident = group_filter_bytes <= filter_half;

  LayerTraffic t;
  t.folds.resize(folds.size());
  std::set<SliceKey> fetched_ifmap, fetched_filter;
  SliceKey last_ifmap{-1, -1, -1}, last_filter{-1, -1, -1};
  int64_t current_group = -1;
  for (size_t i = 0; i < folds.size(); ++i) {
    const Fold& f = folds[i];
    if (f.group != current_group) {  // a new group shares no data with the previous one
      fetched_ifmap.clear();
      fetched_filter.clear();
      current_group = f.group;
    }
    const FoldSlices s = slices(f);
    const int64_t ifmap_bytes = bytes_for(s.ifmap_elements, c.ifmap_bits);
    const int64_t filter_bytes = bytes_for(s.filter_elements, c.filter_bits);

    // Feasibility: the stationary tile must fit; streamed operands need one edge vector.
    switch (c.dataflow) {
      case Dataflow::ws:
        if (filter_bytes > filter_half) too_small("sram.filter_kib", "a stationary filter tile", filter_bytes, filter_half);
        if (bytes_for(f.rows, c.ifmap_bits) > ifmap_half) too_small("sram.ifmap_kib", "an ifmap edge vector", bytes_for(f.rows, c.ifmap_bits), ifmap_half);
        break;
      case Dataflow::is:
        if (ifmap_bytes > ifmap_half) too_small("sram.ifmap_kib", "a stationary ifmap tile", ifmap_bytes, ifmap_half);
        if (bytes_for(f.rows, c.filter_bits) > filter_half) too_small("sram.filter_kib", "a filter edge vector", bytes_for(f.rows, c.filter_bits), filter_half);
        break;
      case Dataflow::os:
        if (bytes_for(f.rows, c.ifmap_bits) > ifmap_half) too_small("sram.ifmap_kib", "an ifmap edge vector", bytes_for(f.rows, c.ifmap_bits), ifmap_half);
        if (bytes_for(f.cols, c.filter_bits) > filter_half) too_small("sram.filter_kib", "a filter edge vector", bytes_for(f.cols, c.filter_bits), filter_half);
        break;
    }
    if (bytes_for(f.cols, c.ofmap_bits) > ofmap_half) too_small("sram.ofmap_kib", "an ofmap output vector", bytes_for(f.cols, c.ofmap_bits), ofmap_half);

    FoldTraffic& ft = t.folds[i];
    const bool ifmap_needed = ifmap_resident ? fetched_ifmap.insert(s.ifmap_key).second : s.ifmap_key != last_ifmap;
    const bool filter_needed = filter_resident ? fetched_filter.insert(s.filter_key).second : s.filter_key != last_filter;
    if (ifmap_needed) ft.ifmap_read_bytes = ifmap_bytes;
    if (filter_needed) ft.filter_read_bytes = filter_bytes;
    last_ifmap = s.ifmap_key;
    last_filter = s.filter_key;

    // Outputs: ws/is accumulate T x cols partial sums over consecutive K folds.
    const int64_t out_tile_bytes = bytes_for(f.temporal * f.cols, c.ofmap_bits);
    if (c.dataflow == Dataflow::os) {
      ft.ofmap_write_bytes = bytes_for(f.rows * f.cols, c.ofmap_bits);
    } else {
      const bool spill = out_tile_bytes > ofmap_half;
      if (f.last_k || spill) ft.ofmap_write_bytes = out_tile_bytes;
      if (!f.first_k && spill) ft.psum_read_bytes = out_tile_bytes;
    }
    t.read_bytes += ft.ifmap_read_bytes + ft.filter_read_bytes + ft.psum_read_bytes;
    t.write_bytes += ft.ofmap_write_bytes;
  }
  return t;
}

}  // namespace loom
