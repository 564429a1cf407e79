#include "apps/gpu_network_report.h"

#include "apps/report_writer.h"
#include "apps/text_format.h"
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
        {"reused_from_identical_launch", r.reused}}},
  };
}

}  // namespace

Json gpu_network_report_to_json(const std::vector<GpuLayerRun>& runs, const GpuNetworkContext& ctx) {
  Json layers = Json::array();
  int64_t cycles = 0, compute = 0, dram_read = 0, dram_write = 0;
  double energy = 0;
  for (const GpuLayerRun& r : runs) {
    layers.push_back(layer_json(r, ctx));
    cycles += r.stats.cycles;
    compute += std::min(ideal_cycles(r, ctx), r.stats.cycles);
    dram_read += r.stats.dram_read_bytes;
    dram_write += r.stats.dram_write_bytes;
    energy += r.energy.total_pj;
  }
  return {
      {"schema_version", kReportSchemaVersion},
      {"tool", {{"name", "loom"}, {"version", LOOM_VERSION}}},
      {"model", "simt"},
      {"arch", ctx.config->name},
      {"precision", simt::precision_name(ctx.precision)},
      {"network", {{"name", ctx.network->name}, {"source", ctx.network->source}, {"batch", ctx.network->batch}}},
      {"layers", layers},
      {"total",
       {{"cycles", {{"total", cycles}, {"compute", compute}, {"stall", cycles - compute}}},
        {"seconds", double(cycles) / ctx.config->clock_hz},
        {"utilization", cycles > 0 ? double(compute) / double(cycles) : 0.0},
        {"dram", {{"read_bytes", dram_read}, {"write_bytes", dram_write}}},
        {"energy_pj", {{"total", energy}}}}},
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
  int64_t cycles = 0, compute = 0, dram = 0;
  double energy = 0;
  for (const GpuLayerRun& r : runs) {
    const int64_t bytes = r.stats.dram_read_bytes + r.stats.dram_write_bytes;
    append_format(out, "%-28s %-18s %14s %10.2f %6.1f%% %14s %12.2f\n", r.layer->name.c_str(),
                  r.launch.recipe.kernel.c_str(), with_commas(r.stats.cycles).c_str(),
                  1e6 * double(r.stats.cycles) / ctx.config->clock_hz, 100 * utilization(r, ctx),
                  with_commas(bytes).c_str(), r.energy.total_pj * 1e-6);
    cycles += r.stats.cycles;
    compute += std::min(ideal_cycles(r, ctx), r.stats.cycles);
    dram += bytes;
    energy += r.energy.total_pj;
  }
  append_format(out, "%-28s %-18s %14s %10.2f %6.1f%% %14s %12.2f\n", "total", "", with_commas(cycles).c_str(),
                1e6 * double(cycles) / ctx.config->clock_hz, cycles > 0 ? 100.0 * double(compute) / double(cycles) : 0.0,
                with_commas(dram).c_str(), energy * 1e-6);
  return out;
}

}  // namespace loom
