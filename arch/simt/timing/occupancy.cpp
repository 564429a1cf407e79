#include "arch/simt/timing/occupancy.h"

#include <algorithm>
#include <string>

#include "arch/simt/timing/timing_constants.h"
#include "sim/error.h"

namespace loom::simt {

namespace {

int64_t round_up(int64_t value, int64_t unit) { return (value + unit - 1) / unit * unit; }

[[noreturn]] void launch_error(const std::string& what) { throw InputError("", "launch", what); }

std::string n(int64_t v) { return std::to_string(v); }

// A CTA's shared memory as allocated: its own and the system's reserve, in whole units.
int64_t shared_allocated(const GpuConfig& c, const CtaResources& cta) {
  return round_up(cta.shared_bytes + c.shared_reserved_per_cta, kSharedAllocationUnit);
}

}  // namespace

int64_t registers_per_warp(const GpuConfig& config, int registers_per_thread) {
  return round_up(int64_t{registers_per_thread} * config.warp_size, kRegisterAllocationUnit);
}

void check_launch(const GpuConfig& c, const CtaResources& cta, const GridDims& grid) {
  if (cta.threads < 1 || cta.warps < 1)
    launch_error("a CTA needs at least one thread (got " + n(cta.threads) + " threads, " + n(cta.warps) + " warps)");
  if (cta.threads > c.max_threads_per_cta)
    launch_error("threads per CTA " + n(cta.threads) + " exceed max_threads_per_cta " + n(c.max_threads_per_cta));
  if (int64_t{cta.warps} * c.warp_size > c.max_threads_per_sm)
    launch_error("threads per CTA " + n(cta.threads) + " (" + n(cta.warps) + " warps) exceed max_threads_per_sm " +
                 n(c.max_threads_per_sm));
  if (cta.warps > c.max_warps_per_sm)
    launch_error("warps per CTA " + n(cta.warps) + " exceed max_warps_per_sm " + n(c.max_warps_per_sm));
  if (cta.shared_bytes < 0) launch_error("shared memory per CTA must not be negative (got " + n(cta.shared_bytes) + ")");
  if (cta.shared_bytes > c.max_shared_per_cta)
    launch_error("shared memory per CTA " + n(cta.shared_bytes) + " bytes exceeds max_shared_per_cta " +
                 n(c.max_shared_per_cta));
  if (shared_allocated(c, cta) > c.shared_bytes)
    launch_error("shared memory per CTA " + n(cta.shared_bytes) + " bytes" +
                 (c.shared_reserved_per_cta > 0 ? " (plus " + n(c.shared_reserved_per_cta) + " reserved by the system)"
                                                : std::string()) +
                 " exceeds the shared-memory carve-out shared_bytes " + n(c.shared_bytes));
  if (cta.registers_per_thread < 0 || cta.registers_per_thread > c.max_registers_per_thread)
    launch_error("registers per thread " + n(cta.registers_per_thread) + " exceed max_registers_per_thread " +
                 n(c.max_registers_per_thread));
  const int64_t cta_registers = registers_per_warp(c, cta.registers_per_thread) * cta.warps;
  if (cta_registers > c.registers_per_sm)
    launch_error("registers per CTA " + n(cta_registers) + " (" + n(cta.registers_per_thread) + " per thread, " +
                 "allocated per warp in units of 256) exceed registers_per_sm " + n(c.registers_per_sm));
  if (grid.x < 0 || grid.y < 0 || grid.z < 0)
    launch_error("grid dimensions must not be negative");
  if (grid.x > c.max_grid_x) launch_error("grid x " + n(grid.x) + " exceeds max_grid_x " + n(c.max_grid_x));
  if (grid.y > c.max_grid_yz) launch_error("grid y " + n(grid.y) + " exceeds max_grid_yz " + n(c.max_grid_yz));
  if (grid.z > c.max_grid_yz) launch_error("grid z " + n(grid.z) + " exceeds max_grid_yz " + n(c.max_grid_yz));
}

Occupancy compute_occupancy(const GpuConfig& c, const CtaResources& cta) {
  Occupancy o;
  o.registers_per_cta = registers_per_warp(c, cta.registers_per_thread) * cta.warps;
  o.shared_per_cta = shared_allocated(c, cta);
  constexpr int64_t kUnlimited = int64_t{1} << 40;
  const struct {
    const char* name;
    int64_t limit;
  } limits[] = {
      {"threads", c.max_threads_per_sm / (int64_t{cta.warps} * c.warp_size)},
      {"warps", c.max_warps_per_sm / cta.warps},
      {"registers", o.registers_per_cta > 0 ? c.registers_per_sm / o.registers_per_cta : kUnlimited},
      {"shared", o.shared_per_cta > 0 ? c.shared_bytes / o.shared_per_cta : kUnlimited},
      {"ctas", c.max_ctas_per_sm},
  };
  int64_t best = kUnlimited + 1;
  for (const auto& l : limits)
    if (l.limit < best) {
      best = l.limit;
      o.limiter = l.name;
    }
  o.ctas_per_sm = static_cast<int>(std::max<int64_t>(best, 0));
  o.shared_carveout = launch_carveout(c, o.ctas_per_sm, o.shared_per_cta);
  // What the launch leaves of the largest carve-out joins the L1 (the whole array less the
  // carve-out, in a config read from a file).
  o.l1_bytes = c.l1.bytes + (c.shared_bytes - o.shared_carveout);
  return o;
}

int64_t launch_carveout(const GpuConfig& c, int ctas_per_sm, int64_t shared_per_cta) {
  const int64_t needed = int64_t{ctas_per_sm} * shared_per_cta;
  for (const int64_t carveout : c.shared_carveouts)
    if (carveout >= needed) return carveout;
  return c.shared_bytes;
}

GpuConfig config_for_launch(const GpuConfig& config, const Occupancy& occupancy) {
  GpuConfig launch = config;
  launch.l1.bytes = occupancy.l1_bytes;
  launch.l1.associativity = l1_associativity_at(config.l1, occupancy.l1_bytes);
  return launch;
}

}  // namespace loom::simt
