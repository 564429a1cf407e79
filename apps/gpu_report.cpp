#include "apps/gpu_report.h"

#include <algorithm>

#include "apps/report_writer.h"
#include "sim/text_format.h"
#include "sim/text_file.h"

namespace loom {

using simt::GpuStats;
using simt::StallReason;

namespace {

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

int64_t subcore_cycles_total(const GpuStats& s) {
  int64_t total = 0;
  for (int64_t v : s.subcore_cycles) total += v;
  return total;
}

Json dim_json(const simt::Dim3& d) { return Json::array({d.x, d.y, d.z}); }

}  // namespace

GpuLaunchFigures gpu_launch_figures(const GpuLaunchOutcome& run, const simt::GpuConfig& config) {
  const GpuStats& s = run.stats;
  GpuLaunchFigures f;
  f.seconds = ratio(double(s.cycles), config.clock_hz);
  f.ipc = ratio(double(s.warp_instructions), double(s.cycles));
  f.flops_per_second = ratio(double(s.flops), f.seconds);
  f.peak_flops = s.tensor_mma_instructions > 0 ? config.peak_tensor_flops(simt::TensorPrecision::f16_f32)
                                               : config.peak_fp32_flops();
  f.l1_hit_rate = ratio(double(s.l1_sector_hits), double(s.l1_sector_accesses));
  f.l2_hit_rate = ratio(double(s.l2_sector_hits), double(s.l2_sector_accesses));
  f.dram_bytes_per_second = ratio(double(s.dram_read_bytes + s.dram_write_bytes), f.seconds);
  const double tensor_capacity =
      double(s.cycles) * config.sms * config.subcores_per_sm * config.tensor.per_subcore;
  f.tensor_utilization = ratio(double(s.tensor_busy_cycles), tensor_capacity);
  return f;
}

Json gpu_launch_to_json(const GpuLaunchOutcome& run, const simt::GpuConfig& config) {
  const GpuStats& s = run.stats;
  const GpuLaunchFigures f = gpu_launch_figures(run, config);
  Json stalls = Json::object();
  const double total = double(subcore_cycles_total(s));
  for (size_t i = 0; i < s.subcore_cycles.size(); ++i) {
    stalls[simt::stall_reason_name(StallReason(i))] = ratio(double(s.subcore_cycles[i]), total);
  }
  return {
      {"schema_version", kReportSchemaVersion},
      {"command", "gpu"},
      {"arch", config.name},
      {"kernel", run.kernel},
      {"entry", run.entry},
      {"issue_order", run.issue_order},
      {"execution", run.execution},
      {"grid", dim_json(run.grid)},
      {"block", dim_json(run.block)},
      {"sizes", run.sizes},
      {"verification", {{"ok", run.verified_ok}, {"detail", run.verification}}},
      {"cycles", s.cycles},
      {"seconds", f.seconds},
      {"clock_hz", config.clock_hz},
      {"occupancy", {{"ctas", s.ctas}, {"resident_ctas_per_sm", s.resident_ctas_per_sm},
                     {"limiter", s.occupancy_limiter}, {"shared_carveout_bytes", s.shared_carveout_bytes},
                     {"l1_bytes", s.l1_bytes}}},
      {"instructions", {{"warp", s.warp_instructions}, {"thread", s.thread_instructions}, {"ipc", f.ipc}}},
      {"flops", s.flops},
      {"flops_per_second", f.flops_per_second},
      {"peak_flops_per_second", f.peak_flops},
      {"stall_share", stalls},
      {"memory",
       {{"l1_sector_accesses", s.l1_sector_accesses},
        {"l1_hit_rate", f.l1_hit_rate},
        {"l2_sector_accesses", s.l2_sector_accesses},
        {"l2_hit_rate", f.l2_hit_rate},
        {"dram_read_bytes", s.dram_read_bytes},
        {"dram_write_bytes", s.dram_write_bytes},
        {"dram_bytes_per_second", f.dram_bytes_per_second},
        {"shared_requests", s.shared_requests},
        {"shared_bank_conflicts", s.shared_bank_conflicts()},
        {"register_bank_conflicts", s.register_bank_conflicts}}},
      {"tensor_cores",
       {{"mma_instructions", s.tensor_mma_instructions},
        {"core_ops", s.tensor_core_ops},
        {"utilization", f.tensor_utilization}}},
      {"energy_pj", run.energy_pj},
      {"energy", run.energy},
  };
}

std::string format_gpu_summary(const GpuLaunchOutcome& run, const simt::GpuConfig& config) {
  const GpuStats& s = run.stats;
  const GpuLaunchFigures f = gpu_launch_figures(run, config);
  std::string out;
  append_format(out, "%s (%s) on %s: grid (%u,%u,%u) x block (%u,%u,%u), %lld CTAs, %d resident per SM (limit: %s)\n",
                run.kernel.c_str(), run.entry.c_str(), config.name.c_str(), run.grid.x, run.grid.y, run.grid.z,
                run.block.x, run.block.y, run.block.z, static_cast<long long>(s.ctas), s.resident_ctas_per_sm,
                s.occupancy_limiter);
  append_format(out, "  cycles            %s  (%.3f us at %.0f MHz)\n", with_commas(s.cycles).c_str(), f.seconds * 1e6,
                config.clock_hz / 1e6);
  append_format(out, "  instructions      %s warp, %s thread; IPC %.2f (%.2f per SM)\n",
                with_commas(s.warp_instructions).c_str(), with_commas(s.thread_instructions).c_str(), f.ipc,
                f.ipc / config.sms);
  append_format(out, "  FLOP/s            %.3f T achieved, %.1f%% of the %.1f T peak\n", f.flops_per_second / 1e12,
                100 * ratio(f.flops_per_second, f.peak_flops), f.peak_flops / 1e12);
  append_format(out, "  tensor cores      %s MMAs, %s 4x4x4 ops, %.1f%% utilized\n",
                with_commas(s.tensor_mma_instructions).c_str(), with_commas(s.tensor_core_ops).c_str(),
                100 * f.tensor_utilization);
  append_format(out, "  L1 / shared       %s KiB L1, %s KiB shared carve-out per SM\n",
                with_commas(s.l1_bytes / 1024).c_str(), with_commas(s.shared_carveout_bytes / 1024).c_str());
  append_format(out, "  L1 / L2 hit rate  %.1f%% of %s sectors / %.1f%% of %s sectors\n", 100 * f.l1_hit_rate,
                with_commas(s.l1_sector_accesses).c_str(), 100 * f.l2_hit_rate,
                with_commas(s.l2_sector_accesses).c_str());
  append_format(out, "  DRAM              %s B read, %s B written, %.1f GB/s\n", with_commas(s.dram_read_bytes).c_str(),
                with_commas(s.dram_write_bytes).c_str(), f.dram_bytes_per_second / 1e9);
  append_format(out, "  bank conflicts    shared %s extra wavefronts over %s requests; register %s cycles\n",
                with_commas(s.shared_bank_conflicts()).c_str(), with_commas(s.shared_requests).c_str(),
                with_commas(s.register_bank_conflicts).c_str());
  // Stall reasons, largest share first.
  std::vector<std::pair<double, const char*>> shares;
  const double total = double(subcore_cycles_total(s));
  for (size_t i = 0; i < s.subcore_cycles.size(); ++i) {
    if (s.subcore_cycles[i] > 0) shares.push_back({ratio(double(s.subcore_cycles[i]), total), simt::stall_reason_name(StallReason(i))});
  }
  std::sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  out += "  sub-core cycles  ";
  for (const auto& [share, name] : shares) append_format(out, " %s %.1f%%", name, 100 * share);
  out += "\n";
  append_format(out, "  energy            %.3f uJ\n", run.energy_pj * 1e-6);
  append_format(out, "  output check      %s\n", run.verification.c_str());
  return out;
}

}  // namespace loom
