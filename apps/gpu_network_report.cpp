#include "apps/gpu_network_report.h"

#include "apps/report_writer.h"
#include "sim/text_format.h"
#include "sim/text_file.h"

namespace loom {

using simt::GpuLayerRun;

namespace {

double peak_flops(const GpuNetworkContext& ctx) {
  return ctx.precision == simt::GpuPrecision::fp16 ? ctx.config->peak_tensor_flops(simt::TensorPrecision::f16_f32)
                                                   : ctx.config->peak_fp32_flops();
}

// Cycles the layer's useful FLOPs need at the config's peak rate: the "compute" part of the
// run's cycles; the rest is stall (memory, latency, padding, occupancy, tails).
int64_t ideal_cycles(const GpuLayerRun& r, const GpuNetworkContext& ctx) {
  const double per_cycle = peak_flops(ctx) / ctx.config->clock_hz;
  return per_cycle > 0 ? static_cast<int64_t>(r.launch.useful_flops / per_cycle + 0.5) : 0;
}

double utilization(const GpuLayerRun& r, const GpuNetworkContext& ctx) {
  return r.stats.cycles > 0 ? double(ideal_cycles(r, ctx)) / double(r.stats.cycles) : 0.0;
}

Json layer_json(const GpuLayerRun& r, const GpuNetworkContext& ctx) {
  const simt::GpuStats& s = r.stats;
  const int64_t compute = std::min(ideal_cycles(r, ctx), s.cycles);
  Json energy = r.energy.to_json();
  return {
      {"name", r.layer->name},
      {"type", r.layer->kind_name()},
      {"macs", r.layer->macs()},
      {"kernel", r.launch.recipe.kernel},
      {"kernel_sizes", r.launch.recipe.sizes},
      {"cycles", {{"total", s.cycles}, {"compute", compute}, {"stall", s.cycles - compute}}},
      {"seconds", double(s.cycles) / ctx.config->clock_hz},
      {"utilization", utilization(r, ctx)},
      {"dram", {{"read_bytes", s.dram_read_bytes}, {"write_bytes", s.dram_write_bytes}}},
      {"energy_pj", energy},
      {"gpu",
       {{"warp_instructions", s.warp_instructions},
        {"ipc", s.cycles > 0 ? double(s.warp_instructions) / double(s.cycles) : 0.0},
        {"l1_hit_rate", s.l1_sector_accesses > 0 ? double(s.l1_sector_hits) / double(s.l1_sector_accesses) : 0.0},
        {"l2_hit_rate", s.l2_sector_accesses > 0 ? double(s.l2_sector_hits) / double(s.l2_sector_accesses) : 0.0},
        {"tensor_mma_instructions", s.tensor_mma_instructions},
        {"resident_ctas_per_sm", s.resident_ctas_per_sm},
        {"l1_bytes", s.l1_bytes},
        {"reused_from_identical_launch", r.reused}}},
  };
}

struct NetworkTotals {
  int64_t cycles = 0, compute = 0, dram_read = 0, dram_write = 0;
  double energy_pj = 0;
};

NetworkTotals totals_of(const std::vector<GpuLayerRun>& runs, const GpuNetworkContext& ctx) {
  NetworkTotals t;
  for (const GpuLayerRun& r : runs) {
    t.cycles += r.stats.cycles;
    t.compute += std::min(ideal_cycles(r, ctx), r.stats.cycles);
    t.dram_read += r.stats.dram_read_bytes;
    t.dram_write += r.stats.dram_write_bytes;
    t.energy_pj += r.energy.total_pj;
  }
  return t;
}

}  // namespace

Json gpu_network_report_to_json(const std::vector<GpuLayerRun>& runs, const GpuNetworkContext& ctx) {
  Json layers = Json::array();
  for (const GpuLayerRun& r : runs) layers.push_back(layer_json(r, ctx));
  const NetworkTotals t = totals_of(runs, ctx);
  return {
      {"schema_version", kReportSchemaVersion},
      {"tool", {{"name", "loom"}, {"version", LOOM_VERSION}}},
      {"model", "simt"},
      {"arch", ctx.config->name},
      {"precision", simt::precision_name(ctx.precision)},
      {"network", {{"name", ctx.network->name}, {"source", ctx.network->source}, {"batch", ctx.network->batch}}},
      {"layers", layers},
      {"total",
       {{"cycles", {{"total", t.cycles}, {"compute", t.compute}, {"stall", t.cycles - t.compute}}},
        {"seconds", double(t.cycles) / ctx.config->clock_hz},
        {"utilization", t.cycles > 0 ? double(t.compute) / double(t.cycles) : 0.0},
        {"dram", {{"read_bytes", t.dram_read}, {"write_bytes", t.dram_write}}},
        {"energy_pj", {{"total", t.energy_pj}}}}},
  };
}

std::string gpu_network_layers_csv(const std::vector<GpuLayerRun>& runs, const GpuNetworkContext& ctx) {
  std::string out = "layer,type,kernel,macs,cycles,seconds,utilization,dram_read_bytes,dram_write_bytes,energy_pj\n";
  for (const GpuLayerRun& r : runs) {
    out += csv_quoted(r.layer->name) + "," + r.layer->kind_name() + "," + r.launch.recipe.kernel + "," +
           std::to_string(r.layer->macs()) + "," + std::to_string(r.stats.cycles) + "," +
           format_number(double(r.stats.cycles) / ctx.config->clock_hz) + "," + format_number(utilization(r, ctx)) +
           "," + std::to_string(r.stats.dram_read_bytes) + "," + std::to_string(r.stats.dram_write_bytes) + "," +
           format_number(r.energy.total_pj) + "\n";
  }
  return out;
}

std::string format_gpu_network_table(const std::vector<GpuLayerRun>& runs, const GpuNetworkContext& ctx) {
  std::string out;
  append_format(out, "%-28s %-18s %14s %10s %7s %14s %12s\n", "layer", "kernel", "cycles", "time_us", "util",
                "dram_bytes", "energy_uJ");
  for (const GpuLayerRun& r : runs) {
    append_format(out, "%-28s %-18s %14s %10.2f %6.1f%% %14s %12.2f\n", r.layer->name.c_str(),
                  r.launch.recipe.kernel.c_str(), with_commas(r.stats.cycles).c_str(),
                  1e6 * double(r.stats.cycles) / ctx.config->clock_hz, 100 * utilization(r, ctx),
                  with_commas(r.stats.dram_read_bytes + r.stats.dram_write_bytes).c_str(), r.energy.total_pj * 1e-6);
  }
  const NetworkTotals t = totals_of(runs, ctx);
  append_format(out, "%-28s %-18s %14s %10.2f %6.1f%% %14s %12.2f\n", "total", "", with_commas(t.cycles).c_str(),
                1e6 * double(t.cycles) / ctx.config->clock_hz,
                t.cycles > 0 ? 100.0 * double(t.compute) / double(t.cycles) : 0.0,
                with_commas(t.dram_read + t.dram_write).c_str(), t.energy_pj * 1e-6);
  return out;
}

}  // namespace loom
