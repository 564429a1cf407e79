#include "apps/report_writer.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/text_format.h"
#include "sim/error.h"

namespace loom {

namespace {

Json sram_json(int64_t reads, int64_t writes) { return {{"reads", reads}, {"writes", writes}}; }

}  // namespace

Json layer_to_json(const LayerResult& l, const NetworkResult& run) {
  const EnergyBreakdown& e = l.energy;
  Json j = {
      {"name", l.name},
      {"kind", l.kind},
      {"macs", l.macs},
      {"folds", l.folds},
      {"cycles", {{"total", l.cycles_total}, {"compute", l.cycles_compute}, {"stall", l.cycles_stall}}},
      {"time_s", static_cast<double>(l.cycles_total) / run.clock_hz},
      {"utilization", l.utilization(run.array_pes)},
      {"mapping_efficiency", l.mapping_efficiency(run.array_pes)},
      {"sram",
       {{"ifmap", sram_json(l.sram.ifmap_reads, l.ifmap_fill_writes)},
        {"filter", sram_json(l.sram.filter_reads, l.filter_fill_writes)},
        {"ofmap", sram_json(l.sram.ofmap_reads + l.ofmap_drain_reads, l.sram.ofmap_writes + l.ofmap_fill_writes)},
        {"array_side",
         {{"ifmap_reads", l.sram.ifmap_reads},
          {"filter_reads", l.sram.filter_reads},
          {"ofmap_reads", l.sram.ofmap_reads},
          {"ofmap_writes", l.sram.ofmap_writes}}}}},
      {"dram",
       {{"read_bytes", l.dram_read_bytes},
        {"write_bytes", l.dram_write_bytes},
        {"avg_bytes_per_cycle", l.dram_avg_bytes_per_cycle()},
        {"peak_bytes_per_cycle", l.dram_peak_bytes_per_cycle},
        {"avg_gb_s", l.dram_avg_bytes_per_cycle() * run.clock_hz / 1e9}}},
      {"energy_pj",
       {{"mac", e.mac_pj},
        {"sram_ifmap", e.sram_ifmap_pj},
        {"sram_filter", e.sram_filter_pj},
        {"sram_ofmap", e.sram_ofmap_pj},
        {"dram", e.dram_pj},
        {"total", e.total_pj()}}},
  };
  if (l.has_gemm_shape()) {
    j["gemm"] = {{"m", l.gemm.m}, {"n", l.gemm.n}, {"k", l.gemm.k}, {"groups", l.gemm.groups}};
  }
  return j;
}

Json report_to_json(const NetworkResult& run, const RunContext& ctx) {
  Json layers = Json::array();
  for (const LayerResult& l : run.layers) layers.push_back(layer_to_json(l, run));
  return {
      {"schema_version", kReportSchemaVersion},
      {"tool", {{"name", "loom"}, {"version", LOOM_VERSION}}},
      {"command", "run"},
      {"fidelity", "cycle"},
      {"conventions", ctx.scalesim_compat ? "scalesim-compat" : "loom"},
      {"arch",
       {{"name", ctx.config->name},
        {"file", ctx.config->source_file},
        {"rows", ctx.config->rows},
        {"cols", ctx.config->cols},
        {"dataflow", name_of(ctx.config->dataflow)},
        {"clock_hz", ctx.config->clock_hz},
        {"energy_table", ctx.config->energy_table}}},
      {"workload",
       {{"name", ctx.network->name},
        {"file", ctx.network->source_file},
        {"batch", ctx.network->batch},
        {"layers", ctx.network->layers.size()}}},
      {"layers", layers},
      {"totals", layer_to_json(run.totals(), run)},
  };
}

std::string layers_to_csv(const NetworkResult& run) {
  std::ostringstream out;
  out << "name,kind,m,n,k,groups,macs,folds,cycles_total,cycles_compute,cycles_stall,utilization,"
         "mapping_efficiency,sram_ifmap_reads,sram_ifmap_writes,sram_filter_reads,sram_filter_writes,"
         "sram_ofmap_reads,sram_ofmap_writes,dram_read_bytes,dram_write_bytes,dram_avg_bytes_per_cycle,"
         "dram_peak_bytes_per_cycle,energy_mac_pj,energy_sram_ifmap_pj,energy_sram_filter_pj,"
         "energy_sram_ofmap_pj,energy_dram_pj,energy_total_pj\n";
  auto row = [&](const LayerResult& l) {
    const EnergyBreakdown& e = l.energy;
    out << csv_quoted(l.name) << ',' << l.kind << ',';
    if (l.has_gemm_shape()) {
      out << l.gemm.m << ',' << l.gemm.n << ',' << l.gemm.k << ',' << l.gemm.groups << ',';
    } else {
      out << ",,,,";
    }
    out << l.macs << ',' << l.folds << ',' << l.cycles_total << ',' << l.cycles_compute
        << ',' << l.cycles_stall << ',' << format_number(l.utilization(run.array_pes)) << ','
        << format_number(l.mapping_efficiency(run.array_pes)) << ',' << l.sram.ifmap_reads << ',' << l.ifmap_fill_writes
        << ',' << l.sram.filter_reads << ',' << l.filter_fill_writes << ','
        << l.sram.ofmap_reads + l.ofmap_drain_reads << ',' << l.sram.ofmap_writes + l.ofmap_fill_writes << ','
        << l.dram_read_bytes << ',' << l.dram_write_bytes << ',' << format_number(l.dram_avg_bytes_per_cycle()) << ','
        << format_number(l.dram_peak_bytes_per_cycle) << ',' << format_number(e.mac_pj) << ',' << format_number(e.sram_ifmap_pj) << ','
        << format_number(e.sram_filter_pj) << ',' << format_number(e.sram_ofmap_pj) << ',' << format_number(e.dram_pj) << ','
        << format_number(e.total_pj()) << '\n';
  };
  for (const LayerResult& l : run.layers) row(l);
  row(run.totals());
  return out.str();
}

void write_report_files(const std::string& out_dir, const std::string& report_json,
                        const std::string& layers_csv, const std::string& resolved_json) {
  make_output_dir(out_dir);
  const std::filesystem::path dir(out_dir);
  write_file_atomically((dir / "resolved_config.json").string(), resolved_json);
  write_file_atomically((dir / "layers.csv").string(), layers_csv);
  write_file_atomically((dir / "report.json").string(), report_json);  // last: its presence means complete
}


}  // namespace loom
