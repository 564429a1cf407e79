#include "apps/layer_table.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "sim/text_format.h"

namespace loom {

namespace {

constexpr const char* kRowFormat = "%-*s %8s %6s %7s %6lld %13lld %12lld %6.1f%% %10.3f %11.2f\n";

void row(std::string& out, int width, const LayerResult& l, const NetworkResult& run) {
  const std::string name = l.name.size() > static_cast<size_t>(width) ? l.name.substr(0, width) : l.name;
  auto dim = [&](int64_t v) { return l.has_gemm_shape() ? std::to_string(v) : std::string("-"); };
  append_format(out, kRowFormat, width, name.c_str(), dim(l.gemm.m).c_str(), dim(l.gemm.n).c_str(), dim(l.gemm.k).c_str(),
       static_cast<long long>(l.folds), static_cast<long long>(l.cycles_total),
       static_cast<long long>(l.cycles_stall), 100.0 * l.utilization(run.array_pes),
       static_cast<double>(l.dram_read_bytes + l.dram_write_bytes) / 1e6, l.energy.total_pj() / 1e6);
}

}  // namespace

std::string format_layer_table(const NetworkResult& run) {
  int width = 5;
  for (const LayerResult& l : run.layers) width = std::max(width, static_cast<int>(l.name.size()));
  width = std::min(width, 32);
  std::string out;
  append_format(out, "%-*s %8s %6s %7s %6s %13s %12s %7s %10s %11s\n", width, "layer", "M", "N", "K", "folds", "cycles",
       "stall", "util", "DRAM MB", "energy uJ");
  for (const LayerResult& l : run.layers) row(out, width, l, run);
  out += std::string(static_cast<size_t>(width) + 90, '-') + "\n";
  const LayerResult t = run.totals();
  row(out, width, t, run);
  append_format(out, "%d layers, %lld MACs, %lld cycles = %.3f ms at %.0f MHz, %.3f mJ\n",
       static_cast<int>(run.layers.size()), static_cast<long long>(t.macs), static_cast<long long>(t.cycles_total),
       1e3 * static_cast<double>(t.cycles_total) / run.clock_hz, run.clock_hz / 1e6, t.energy.total_pj() / 1e9);
  return out;
}

}  // namespace loom
