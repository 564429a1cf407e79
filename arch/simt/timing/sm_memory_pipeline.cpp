#include "arch/simt/timing/sm_memory_pipeline.h"

#include <algorithm>
#include <bit>

#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/shared_memory_banks.h"
#include "arch/simt/timing/timing_constants.h"

namespace loom::simt {

void SmMemoryPipeline::configure(const GpuConfig& c, int sm, L2Subsystem* beyond_l1, CoalescedAccess* scratch) {
  sm_ = sm;
  beyond_l1_ = beyond_l1;
  coalesced_ = scratch;
  mio_.reset();
  l1_.configure(c);
  line_bytes_ = c.l1.line_bytes;
  sector_bytes_ = c.l1.sector_bytes;
  hit_latency_ = c.l1.hit_latency;
  shared_banks_ = c.shared_banks;
  shared_bank_bytes_ = c.shared_bank_bytes;
  shared_word_shift_ = is_power_of_two(static_cast<uint64_t>(c.shared_banks)) &&
                               is_power_of_two(static_cast<uint64_t>(c.shared_bank_bytes))
                           ? std::countr_zero(static_cast<unsigned>(c.shared_bank_bytes))
                           : -1;
  shared_latency_ = c.shared_latency;
}

MemoryTiming SmMemoryPipeline::execute(const StaticInstruction& inst, const ExecutedInstruction& x,
                                       int64_t dispatch, GpuStats& stats) {
  switch (inst.space) {
    case MemorySpace::param:
    case MemorySpace::constant:
      return {dispatch + kParamLoadLatency, dispatch + kParamLoadLatency};
    case MemorySpace::shared:
      return shared(x, dispatch, stats);
    default:
      return inst.is_store ? store(x, dispatch, stats) : load(x, inst.bypass_l1, dispatch, stats);
  }
}

MemoryTiming SmMemoryPipeline::load(const ExecutedInstruction& x, bool bypass_l1, int64_t dispatch,
                                    GpuStats& stats) {
  CoalescedAccess& a = *coalesced_;
  coalesce(x, line_bytes_, sector_bytes_, a);
  ++stats.global_load_requests;
  // A bypassing load still passes the L1 stage (counted as accesses, never as hits), as
  // Nsight counts ld.global.cg in the L1TEX sectors with a 0% hit rate.
  stats.l1_sector_accesses += a.sectors;
  // A request of several lines (a wmma.load's 16 rows, an uncoalesced load) looks them up
  // one after another, each in tag state that is rarely in the host's caches: probe them
  // all first, so the host's misses overlap, and the lookups start where the probes ended
  // (in one pass over the set where they share one, as a wmma.load's rows do: probe_all).
  // Where the L1 lacks a line or some of its sectors, probe (and hint) the L2 tags too: a
  // second pass reads the L1 lines' sectors once the first pass's hints have brought them
  // in. (A wmma.load's rows are one sector each, so most of its misses are of sectors of
  // lines the L1 holds.) Requests have distinct lines, in L1 and so in L2, so no lookup
  // allocates a line probed for a later one, and each probe still says where its lookup
  // will look; a fill may evict a later line from the L1, whose L2 read is then unprobed.
  const bool probed = a.lines > 1;
  int way[CoalescedAccess::kMaxLines];
  L2Subsystem::Probe l2_probe[CoalescedAccess::kMaxLines];
  if (probed) {
    if (bypass_l1) {
      std::fill_n(way, a.lines, SectoredTagArray::kAbsent);
    } else {
      uint64_t lines[CoalescedAccess::kMaxLines];
      for (int i = 0; i < a.lines; ++i) lines[i] = a.requests[i].line;
      l1_.probe_all(lines, a.lines, way);
    }
    for (int i = 0; i < a.lines; ++i) {
      const LineRequest& r = a.requests[i];
      l2_probe[i] = l1_.lacks(r.line, way[i], r.sector_mask) ? beyond_l1_->prefetch(r.line, r.sector_mask)
                                                             : L2Subsystem::kNoProbe;
    }
  }
  int64_t t = mio_.begin(dispatch);
  int64_t ready = t + hit_latency_;
  for (int i = 0; i < a.lines; ++i) {
    if (i > 0) ++t;  // one tag lookup per cycle
    const LineRequest& r = a.requests[i];
    const L2Subsystem::Probe* l2_probed = probed ? &l2_probe[i] : nullptr;
    if (bypass_l1) {
      // .cg: every sector comes from L2, whatever L1 holds, and nothing is installed in L1.
      ready = std::max(ready, fetch_from_l2(r.line, r.sector_mask, t, stats, l2_probed));
      continue;
    }
    L1Lookup lookup = probed ? l1_.lookup_probed(r.line, way[i], r.sector_mask, t) : l1_.lookup(r.line, r.sector_mask, t);
    const uint32_t present = r.sector_mask & ~lookup.missing;
    stats.l1_sector_hits += sector_count(present);
    if (present) ready = std::max(ready, lookup.ready);
    if (lookup.missing) {
      const int64_t back = fetch_from_l2(r.line, lookup.missing, t, stats, l2_probed);
      l1_.fill(r.line, lookup, back);
      ready = std::max(ready, back);
    }
  }
  mio_.end(t + 1);
  return {ready, ready};
}

int64_t SmMemoryPipeline::fetch_from_l2(uint64_t line, uint32_t sectors, int64_t& t, GpuStats& stats,
                                        const L2Subsystem::Probe* l2_probed) {
  t = l1_.mshrs().acquire(t);
  const int64_t back = beyond_l1_->load(sm_, line, sectors, t, stats, l2_probed);
  l1_.mshrs().hold_until(back);
  return back;
}

MemoryTiming SmMemoryPipeline::store(const ExecutedInstruction& x, int64_t dispatch, GpuStats& stats) {
  CoalescedAccess& a = *coalesced_;
  coalesce(x, line_bytes_, sector_bytes_, a);
  ++stats.global_store_requests;
  int64_t t = mio_.begin(dispatch);
  int64_t done = t + 1;
  for (int i = 0; i < a.lines; ++i) {
    if (i > 0) ++t;
    done = std::max(done, beyond_l1_->store(sm_, a.requests[i].line, a.requests[i].sector_mask, t, stats));
  }
  mio_.end(t + 1);
  return {dispatch + 1, done};
}

MemoryTiming SmMemoryPipeline::shared(const ExecutedInstruction& x, int64_t dispatch, GpuStats& stats) {
  const int wavefronts = shared_word_shift_ >= 0 && one_wavefront_by_span(x, shared_word_shift_, shared_banks_)
                             ? 1
                             : shared_wavefronts(x, shared_banks_, shared_bank_bytes_);
  ++stats.shared_requests;
  stats.shared_wavefronts += wavefronts;
  const int64_t start = mio_.begin(dispatch);
  mio_.end(start + wavefronts);
  const int64_t ready = start + shared_latency_ + wavefronts - 1;
  return {ready, ready};
}

}  // namespace loom::simt
