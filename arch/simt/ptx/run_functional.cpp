#include "arch/simt/ptx/run_functional.h"

#include "sim/error.h"
#include "sim/text_file.h"

namespace loom::simt {

namespace {
// Long enough to amortise switching warps, short enough that warps spinning on each other's
// shared-memory flags still make progress.
constexpr int kQuantum = 4096;

// std::popcount compiles to a library call without -mpopcnt; this is branch-free and inline.
int lanes_in(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return static_cast<int>((((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

std::string cta_name(const CtaState& c) {
  return "CTA (" + std::to_string(c.ctaid.x) + "," + std::to_string(c.ctaid.y) + "," + std::to_string(c.ctaid.z) + ")";
}
}  // namespace

FunctionalRunStats run_functional(FunctionalModel& model, int64_t max_warp_instructions) {
  FunctionalRunStats stats;
  const PtxKernel& kernel = model.kernel();
  const int warps = model.warps_per_cta();
  model.reserve_slots(1);
  ExecutedInstruction out;
  for (int64_t id = 0; id < model.cta_count(); ++id) {
    model.start_cta(0, id);
    while (true) {
      bool unfinished = false, progressed = false;
      for (int w = 0; w < warps; ++w) {
        if (model.warp_done(0, w)) continue;
        unfinished = true;
        int steps = 0;
        while (steps < kQuantum && !model.warp_done(0, w) && !model.warp_at_barrier(0, w)) {
          model.execute(0, w, out);
          stats.thread_instructions += lanes_in(out.active_mask);
          ++steps;
        }
        stats.warp_instructions += steps;
        progressed |= steps > 0;
        if (stats.warp_instructions > max_warp_instructions)
          throw InputError(kernel.source_name, "instruction limit",
                           "kernel '" + kernel.name + "' executed more than " + with_commas(max_warp_instructions) +
                               " warp instructions without finishing (" + cta_name(model.cta(0)) + ": " +
                               model.describe_waiting_warps(0) + "); expected a kernel that terminates, or a higher limit");
      }
      if (!unfinished) break;
      if (!progressed)
        throw InputError(kernel.source_name, "barrier deadlock",
                         "kernel '" + kernel.name + "' deadlocked in " + cta_name(model.cta(0)) + ": " +
                             model.describe_waiting_warps(0) +
                             "; expected every barrier to be reached by all warps of the CTA (or by its thread count)");
    }
    model.retire_cta(0);
    ++stats.ctas;
  }
  return stats;
}

}  // namespace loom::simt
