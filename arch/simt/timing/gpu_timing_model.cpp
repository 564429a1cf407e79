#include "arch/simt/timing/gpu_timing_model.h"

#include <algorithm>
#include <bit>
#include <string>

#include "arch/simt/timing/bit_ops.h"
#include "arch/simt/timing/config_checks.h"
#include "arch/simt/timing/ready_scan.h"
#include "arch/simt/timing/timing_constants.h"
#include "sim/error.h"

namespace loom::simt {

// ---------------------------------------------------------------------------------------
// Launch set-up and CTAs

void GpuTimingModel::begin(const GpuConfig& device, WarpInstructionSource& source) {
  check_timing_config(device);
  const int64_t total = source.cta_count();
  if (total < 0) throw InputError("", "launch", "the grid has a negative number of CTAs");
  cta_ = source.cta_resources();
  if (total > 0) {
    check_launch(device, cta_, GridDims{total, 1, 1});
    occupancy_ = compute_occupancy(device, cta_);
  } else {
    occupancy_ = Occupancy{};
    occupancy_.shared_carveout = device.shared_bytes;
    occupancy_.l1_bytes = device.l1.bytes;
  }
  // The L1 is what this launch's carve-out leaves of the unified array.
  config_storage_ = config_for_launch(device, occupancy_);
  const GpuConfig& config = config_storage_;
  config_ = &config;
  source_ = &source;
  stats_ = GpuStats{};
  stats_.ctas = total;
  stats_.occupancy_limiter = occupancy_.limiter;
  stats_.shared_carveout_bytes = occupancy_.shared_carveout;
  stats_.l1_bytes = occupancy_.l1_bytes;
  units_ = FunctionalUnits::timings(config);
  mma_.reset(config.tensor, config.source_file);
  facts_.reset(config.register_banks, config.register_bank_ports);
  beyond_l1_.configure(config);

  const int subcores = config.subcores_per_sm;
  const size_t per_subcore = static_cast<size_t>((config.max_warps_per_sm + subcores - 1) / subcores);
  sms_.resize(static_cast<size_t>(config.sms));
  const size_t warp_slots = static_cast<size_t>(config.max_warps_per_sm);
  scoreboard_spill_.reserve(static_cast<size_t>(config.sms) * warp_slots);
  for (int i = 0; i < config.sms; ++i) {
    SmState& sm = sms_[static_cast<size_t>(i)];
    sm.warps.assign(warp_slots, WarpSlot{});
    sm.pipelines.resize(warp_slots);
    for (size_t slot = 0; slot < warp_slots; ++slot)
      sm.pipelines[slot].scoreboard.attach(scoreboard_spill_.of(static_cast<size_t>(i) * warp_slots + slot));
    sm.subcores.assign(static_cast<size_t>(subcores), SubCore{});
    sm.next_eval.assign(static_cast<size_t>(subcores), kNever);
    for (SubCore& sc : sm.subcores) {
      sc.sm = i;
      sc.index = static_cast<int>(&sc - sm.subcores.data());
      sc.warps.reserve(per_subcore);
      sc.ready.reserve(per_subcore);
    }
    sm.ctas.assign(static_cast<size_t>(occupancy_.ctas_per_sm), CtaContext{});
    for (CtaContext& cta : sm.ctas) cta.warp_slots.reserve(static_cast<size_t>(cta_.warps));
    sm.memory.configure(config, i, &beyond_l1_, &coalesced_);
    sm.live_ctas = 0;
    sm.next_retire = kNever;
  }
  const int slots = static_cast<int>(std::min<int64_t>(total, int64_t{config.sms} * occupancy_.ctas_per_sm));
  if (total > 0) source.reserve_slots(slots);
  ctas_.reset(total, slots);
  next_age_ = 0;
  now_ = end_ = iterations_ = evaluations_ = windows_ = window_end_ = rebased_at_ = rebases_ = 0;
  live_sms_.clear();
  live_sms_.reserve(static_cast<size_t>(config.sms));
  live_sms_changed_ = true;
  finished_ = total == 0;
  // Fill the SMs round-robin up to the occupancy limit.
  for (int round = 0; round < occupancy_.ctas_per_sm; ++round)
    for (int sm = 0; sm < config.sms && ctas_.has_pending(); ++sm) launch_cta(sm, 0);
}

void GpuTimingModel::launch_cta(int sm_index, int64_t t) {
  SmState& sm = sms_[static_cast<size_t>(sm_index)];
  int k = 0;
  while (sm.ctas[static_cast<size_t>(k)].live) ++k;
  const CtaScheduler::Dispatch d = ctas_.take();
  source_->start_cta(d.source_slot, d.cta_id);
  CtaContext& cta = sm.ctas[static_cast<size_t>(k)];
  cta.live = true;
  cta.source_slot = d.source_slot;
  cta.id = d.cta_id;
  cta.warps_live = cta_.warps;
  cta.retire_at = kNever;
  cta.warp_slots.clear();
  const int subcores = config_->subcores_per_sm;
  int slot = 0;
  for (int w = 0; w < cta_.warps; ++w) {
    while (sm.warps[static_cast<size_t>(slot)].cta >= 0) ++slot;  // the lowest free warp slot
    WarpSlot& wc = sm.warps[static_cast<size_t>(slot)];
    WarpPipeline& pipe = sm.pipelines[static_cast<size_t>(slot)];
    wc.cta = k;
    wc.warp = w;
    wc.source_slot = d.source_slot;
    wc.subcore = static_cast<int16_t>(slot % subcores);
    wc.age = next_age_++;
    wc.at_barrier = false;
    wc.drained_at = t;
    pipe.ibuffer.reset(config_->ibuffer_entries, t, config_->fetch_latency);
    pipe.scoreboard.clear();
    SubCore& sc = sm.subcores[static_cast<size_t>(wc.subcore)];
    wc.position = static_cast<int16_t>(sc.warps.size());
    sc.add_warp(ScheduledWarp{0, 0, wc.age, slot, ScheduledWarp::State::finished});
    wc.functional = source_->handle(d.source_slot, w);
    wc.done = source_->warp_done(d.source_slot, w);
    wc.next = nullptr;
    if (wc.done)
      --cta.warps_live;
    else
      prepare_next(sm, wc, pipe, source_->peek(d.source_slot, w), t);
    cta.warp_slots.push_back(slot);
    sm.wake(sc.index, t);
  }
  if (sm.live_ctas++ == 0) live_sms_changed_ = true;
  stats_.resident_ctas_per_sm = std::max(stats_.resident_ctas_per_sm, sm.live_ctas);
  if (cta.warps_live == 0) {
    cta.retire_at = t + 1;
    sm.next_retire = std::min(sm.next_retire, cta.retire_at);
  }
}

void GpuTimingModel::retire_cta(int sm_index, int k, int64_t t) {
  SmState& sm = sms_[static_cast<size_t>(sm_index)];
  CtaContext& cta = sm.ctas[static_cast<size_t>(k)];
  source_->retire_cta(cta.source_slot);
  ctas_.release(cta.source_slot);
  for (int slot : cta.warp_slots) {
    WarpSlot& w = sm.warps[static_cast<size_t>(slot)];
    SubCore& sc = sm.subcores[static_cast<size_t>(w.subcore)];
    sc.settle(t);
    const auto at = static_cast<size_t>(w.position);
    sc.remove_warp(at);
    for (size_t i = at; i < sc.warps.size(); ++i)
      sm.warps[static_cast<size_t>(sc.warps[i].slot)].position = static_cast<int16_t>(i);
    if (sc.warps.empty()) {
      sc.pending = StallReason::no_warp;
      sm.next_eval[static_cast<size_t>(sc.index)] = kNever;
    } else {
      sm.wake(sc.index, t);  // its first candidate may have changed
    }
    w.cta = -1;
    w.next = nullptr;
  }
  cta.live = false;
  cta.retire_at = kNever;
  if (--sm.live_ctas == 0) live_sms_changed_ = true;
  end_ = std::max(end_, t);
  if (ctas_.has_pending()) launch_cta(sm_index, t);
}

void GpuTimingModel::retire_due(int sm_index, int64_t t) {
  SmState& sm = sms_[static_cast<size_t>(sm_index)];
  for (size_t k = 0; k < sm.ctas.size(); ++k)
    if (sm.ctas[k].live && sm.ctas[k].retire_at <= t) retire_cta(sm_index, static_cast<int>(k), t);
  sm.next_retire = kNever;
  for (const CtaContext& cta : sm.ctas)
    if (cta.live) sm.next_retire = std::min(sm.next_retire, cta.retire_at);
}

// ---------------------------------------------------------------------------------------
// The cycle loop: windows of kSmWindowCycles, each SM in turn through the window, visiting
// only the cycles in which it has something to do.

bool GpuTimingModel::run_until(int64_t stop) {
  while (!finished_) {
    if (now_ >= stop) return false;
    // No SM runs before now_ in this window or any later one, so no cache lookup does.
    if (now_ - rebased_at_ >= rebase_period_) [[unlikely]]
      rebase_cache_times();
    const int64_t end = std::min(now_ + kSmWindowCycles, stop);
    if (live_sms_changed_) {
      live_sms_.clear();
      for (size_t s = 0; s < sms_.size(); ++s)
        if (sms_[s].live_ctas > 0) live_sms_.push_back(static_cast<int>(s));
      live_sms_changed_ = false;
    }
    // SMs whose CTAs all retire in this window drop out of the list only after it.
    const size_t n = live_sms_.size();
    const size_t first = n > 0 ? static_cast<size_t>(windows_ % static_cast<int64_t>(n)) : 0;
    ++windows_;
    for (size_t i = 0; i < n; ++i) {
      const int s = live_sms_[first + i < n ? first + i : first + i - n];
      if (sms_[static_cast<size_t>(s)].live_ctas > 0) run_sm(s, end);
    }
    if (ctas_.retired() == ctas_.total()) {
      finished_ = true;
      now_ = end_;
      break;
    }
    int64_t next = kNever;
    for (const int s : live_sms_) {
      const SmState& sm = sms_[static_cast<size_t>(s)];
      if (sm.live_ctas > 0) next = std::min(next, sm.next_visit());
    }
    if (next >= kNever)
      throw InputError("", "launch",
                       "deadlock at cycle " + std::to_string(end) +
                           ": every resident warp waits at a barrier that no other warp of its CTA will reach");
    now_ = std::max(next, end);
  }
  return true;
}

void GpuTimingModel::rebase_cache_times() {
  for (SmState& sm : sms_) sm.memory.rebase_times(now_);
  beyond_l1_.rebase_times(now_);
  rebased_at_ = now_;
  ++rebases_;
}

void GpuTimingModel::run_sm(int sm_index, int64_t end) {
  SmState& sm = sms_[static_cast<size_t>(sm_index)];
  const size_t n = sm.subcores.size();
  const int64_t from = sm.next_visit();
  window_end_ = end;
  hint_waking_warps(sm, from, end);
  // Every shipped config has four sub-cores: their loops, run at every visited cycle,
  // unrolled for that count.
  if (n == 4)
    run_sm_cycles<4>(sm_index, sm, from, end);
  else
    run_sm_cycles<0>(sm_index, sm, from, end);
}

template <size_t kSubcores>
void GpuTimingModel::run_sm_cycles(int sm_index, SmState& sm, int64_t from, int64_t end) {
  const size_t n = kSubcores > 0 ? kSubcores : sm.subcores.size();
  for (int64_t t = from; t < end; t = sm.next_visit<kSubcores>()) {
    if (sm.next_retire <= t) retire_due(sm_index, t);
    // Rotate which sub-core goes first, so none is always first at the MIO queue.
    const size_t first = static_cast<size_t>(static_cast<uint64_t>(t) % n);  // t >= 0
    if constexpr (kSubcores == 4) {
      // The sub-cores due now, as a mask rotated so that `first` is bit 0, walked bit by bit:
      // a branch per due sub-core rather than an unpredictable one per sub-core. Exact: an
      // evaluation moves no other sub-core's next evaluation to this cycle (wake() gets c + 1).
      uint32_t due = 0;
      for (size_t k = 0; k < 4; ++k) due |= static_cast<uint32_t>(sm.next_eval[k] <= t) << k;
      due = ((due | due << 4) >> first) & 0xfu;
      for (; due; due &= due - 1) evaluate(sm.subcores[(first + static_cast<size_t>(std::countr_zero(due))) & 3], t);
    } else {
      for (size_t i = 0; i < n; ++i) {
        const size_t k = first + i < n ? first + i : first + i - n;
        if (sm.next_eval[k] <= t) evaluate(sm.subcores[k], t);  // kNever for a sub-core without warps
      }
    }
    ++iterations_;
  }
}

void GpuTimingModel::hint_waking_warps(SmState& sm, int64_t from, int64_t end) const {
  // Warps that become ready inside the window (a load's data arrives, a unit frees up)
  // issue from cold state: a whole round of SMs has run since they last did. Hints for them
  // all at the window's start let those loads overlap. Warps ready already are left to the
  // hints at issue (the issuer, the next ready warp), which come closer to their use.
  for (const SubCore& sc : sm.subcores)
    for (size_t base = 0; base < sc.warps.size(); base += 64) {
      const size_t count = std::min<size_t>(64, sc.warps.size() - base);
      for (uint64_t waking = scan_waking(sc.ready.data() + base, count, from, end - 1); waking; waking &= waking - 1)
        prefetch(sm, sc.warps[base + static_cast<size_t>(std::countr_zero(waking))].slot);
    }
}

void GpuTimingModel::evaluate(SubCore& sc, int64_t c) {
  ++evaluations_;
  SmState& sm = sms_[static_cast<size_t>(sc.sm)];
  int64_t& next_eval = sm.next_eval[static_cast<size_t>(sc.index)];
  ScheduledWarp* warps = sc.warps.data();
  const int64_t* ready_at = sc.ready.data();
  const size_t n = sc.warps.size();
  // Where the last issuer is now (a retirement may have moved it; its age identifies it).
  size_t last = n;
  if (sc.issued_once) {
    if (sc.last_issuer < n && warps[sc.last_issuer].age == sc.last_issuer_age) {
      last = sc.last_issuer;
    } else {
      for (size_t i = 0; i < n; ++i)
        if (warps[i].age == sc.last_issuer_age) last = i;
    }
  }
  // Scheduling order. GTO: the last issuer, then positions 0..n-1 (oldest first) without
  // it. LRR: positions start..n-1, then 0..start-1 (warps are in age order).
  const bool gto = config_->scheduler == WarpSchedulerPolicy::gto;
  size_t start = 0;
  if (!gto && sc.issued_once) {
    while (start < n && warps[start].age <= sc.last_issuer_age) ++start;
    if (start == n) start = 0;
  }
  auto order = [&](size_t k) {
    if (!gto) return start + k < n ? start + k : start + k - n;
    if (last == n) return k;
    return k == 0 ? last : (k - 1 < last ? k - 1 : k);
  };
  // The first unfinished warp in that order is examined in full: its blocker names the
  // cycle's stall reason.
  size_t head = n;
  if (gto && last != n && warps[last].state != ScheduledWarp::State::finished)
    head = last;  // most evaluations under GTO: the last issuer comes first in the order
  else
    for (size_t k = 0; k < n && head == n; ++k)
      if (warps[order(k)].state != ScheduledWarp::State::finished) head = order(k);
  if (head == n) {
    sc.charge(c, StallReason::no_warp);
    next_eval = kNever;
    return;
  }
  StallReason first;
  int64_t wake;
  {
    const ScheduledWarp& e = warps[head];
    const Blocker own = e.state == ScheduledWarp::State::at_barrier ? Blocker{StallReason::barrier, kNever}
                        : e.fetch_until > c                         ? Blocker{StallReason::fetch, e.fetch_until}
                        : e.regs_until > c                          ? Blocker{StallReason::scoreboard, e.regs_until}
                                                                    : Blocker{StallReason::issued, c};
    const Blocker b = own.reason != StallReason::issued ? own : check_resources(sm, sc, e, c);
    if (b.reason == StallReason::issued) {
      issue(sm, sc, e.slot, sm.warps[static_cast<size_t>(e.slot)], c);
      sc.charge(c, StallReason::issued);
      next_eval = c + 1;
      return;
    }
    first = b.reason;
    wake = b.until;
  }
  // The others, in order, only as far as needed to know when they could issue: one
  // branch-free pass per 64 positions finds those ready now and the earliest of the rest;
  // only the ready ones are checked against the sub-core's and SM's resources. Everything
  // before `head` in the order has finished (ready == kNever), so positions can be walked in
  // ascending ranges: GTO [0, n) (the last issuer is `head` or finished), LRR [start, n) then
  // [0, start).
  auto scan = [&](size_t lo, size_t hi) {
    for (size_t base = lo; base < hi; base += 64) {
      const size_t top = std::min(hi, base + 64);
      // The head is included and its bit cleared afterwards: if it is ready it is in
      // `ready`, not in `soonest`; if not, its own blocker already put its ready cycle (or
      // an earlier one) into `wake`.
      const ReadyScan found = scan_ready(ready_at + base, top - base, c, kNever);
      uint64_t ready = found.ready;
      if (head >= base && head < top) ready &= ~(uint64_t{1} << (head - base));
      const int64_t soonest = found.soonest;
      wake = std::min(wake, soonest);
      if (ready == 0) continue;
      if (sc.read_free > c) {  // every candidate waits for the read stage
        wake = std::min(wake, sc.read_free);
        continue;
      }
      for (; ready; ready &= ready - 1) {
        const ScheduledWarp& e = warps[base + static_cast<size_t>(std::countr_zero(ready))];
        const Blocker b = check_resources(sm, sc, e, c);
        if (b.reason == StallReason::issued) {
          issue(sm, sc, e.slot, sm.warps[static_cast<size_t>(e.slot)], c);
          // The next ready warp in order issues next cycle if this one cannot.
          if (const uint64_t rest = ready & (ready - 1)) prefetch(sm, warps[base + static_cast<size_t>(std::countr_zero(rest))].slot);
          return true;
        }
        wake = std::min(wake, b.until);
      }
    }
    return false;
  };
  const bool issued = gto ? scan(0, n) : scan(start, n) || scan(0, start);
  if (issued) {
    sc.charge(c, StallReason::issued);
    next_eval = c + 1;
    return;
  }
  sc.charge(c, first);
  next_eval = std::max(wake, c + 1);
}

// Inlined into evaluate(), where it is asked about nearly every ready warp.
[[gnu::always_inline]] inline GpuTimingModel::Blocker GpuTimingModel::check_resources(SmState& sm, const SubCore& sc,
                                                                                       const ScheduledWarp& e,
                                                                                       int64_t c) const {
  if (sc.read_free > c) return {StallReason::register_bank, sc.read_free};
  // A unit is needed at dispatch, after the instruction's bank-conflict cycles.
  const int delay = e.dispatch_delay;
  switch (e.unit) {
    case Unit::control:
      break;
    case Unit::tensor:
      if (sc.tensor_free > c) return {StallReason::execution_unit, sc.tensor_free};
      break;
    case Unit::ldst: {
      if (!e.uses_mio) break;
      const int64_t agu_free = sc.units.free_at(units_[static_cast<size_t>(Unit::ldst)]);
      if (agu_free > c + delay) return {StallReason::execution_unit, agu_free - delay};
      if (sm.memory.mio_full_at(c)) return {StallReason::memory_pipe, sm.memory.mio_space_at()};
      break;
    }
    default: {
      const int64_t free = sc.units.free_at(units_[static_cast<size_t>(e.unit)]);
      if (free > c + delay) return {StallReason::execution_unit, free - delay};
    }
  }
  return {StallReason::issued, c};
}

// ---------------------------------------------------------------------------------------
// Issue: execute, then charge what the functional model reports

void GpuTimingModel::count(const StaticInstruction& inst) {
  const int lanes = executed_.active_mask == ~0u ? 32 : bit_count(executed_.active_mask);  // usually a full warp
  const size_t cls = static_cast<size_t>(inst.energy);
  ++stats_.warp_instructions;
  stats_.thread_instructions += lanes;
  ++stats_.warp_instructions_by_class[cls];
  stats_.thread_instructions_by_class[cls] += lanes;
  stats_.flops += int64_t{inst.flops_per_lane} * lanes + inst.flops_per_warp;
}

void GpuTimingModel::issue(SmState& sm, SubCore& sc, int slot, WarpSlot& w, int64_t c) {
  const StaticInstruction& peeked = *w.next;
  executed_.next_state = nullptr;
  source_->execute(w.source_slot, w.warp, executed_);
  if (executed_.next_state) w.functional.data = executed_.next_state;
  const StaticInstruction& inst = executed_.inst ? *executed_.inst : peeked;
  count(inst);
  WarpPipeline& pipe = sm.pipelines[static_cast<size_t>(slot)];
  pipe.ibuffer.consume(c, config_->fetch_latency);
  sc.last_issuer = static_cast<size_t>(w.position);
  sc.last_issuer_age = w.age;
  sc.issued_once = true;

  // Operand collection: bank conflicts delay the dispatch and hold the read stage.
  const int reads = w.read_cycles;
  stats_.register_bank_conflicts += reads - 1;
  sc.read_free = c + reads;
  const int64_t dispatch = c + reads - 1;

  int64_t ready = dispatch + 1, done = dispatch + 1;
  switch (inst.unit) {
    case Unit::control:
      break;
    case Unit::tensor: {
      const MmaTiming& mma = mma_.get(inst);
      sc.tensor_free = dispatch + mma.occupancy;
      ready = done = dispatch + mma.latency;
      ++stats_.tensor_mma_instructions;
      stats_.tensor_core_ops += mma.ops;
      stats_.tensor_busy_cycles += mma.busy_cycles;
      break;
    }
    case Unit::ldst: {
      if (uses_mio(inst)) sc.units.dispatch(units_[static_cast<size_t>(Unit::ldst)], dispatch);
      const MemoryTiming m = sm.memory.execute(inst, executed_, dispatch, stats_);
      ready = m.ready;
      done = m.done;
      break;
    }
    default:
      ready = done = sc.units.dispatch(units_[static_cast<size_t>(inst.unit)], dispatch);
  }
  pipe.scoreboard.make_room(inst, c);
  pipe.scoreboard.reserve(inst, ready);
  w.drained_at = std::max(w.drained_at, done);

  if (executed_.warp_done) {
    warp_finished(sm, w, c);
    return;
  }
  // Decoded instructions sit in one array in program order, so a next instruction that is
  // not the one after the branch means the branch was taken: refetch from the target.
  if (inst.is_branch && executed_.next != &peeked + 1) pipe.ibuffer.flush(c, config_->branch_latency);
  prepare_next(sm, w, pipe, *executed_.next, c);
  if (inst.is_barrier) {
    if (executed_.warp_at_barrier) {
      w.at_barrier = true;
      entry(sm, w).state = ScheduledWarp::State::at_barrier;
      refresh(sm, w);
    } else {
      release_barrier(sm, w.cta, c);  // this warp was the last to arrive
    }
  } else if (inst.is_exit) {
    release_barrier(sm, w.cta, c);  // exited lanes may complete a barrier
  }
}

// Inlined into issue(), once per instruction: a call's register saves were a tenth of it.
[[gnu::always_inline]] inline void GpuTimingModel::prepare_next(SmState& sm, WarpSlot& w, WarpPipeline& pipe,
                                                                const StaticInstruction& next, int64_t c) {
  w.next = &next;
  const StaticFactsCache::Facts& facts = facts_.of(next);
  w.read_cycles = static_cast<uint8_t>(facts.read_cycles);
  ScheduledWarp& e = entry(sm, w);
  e.fetch_until = pipe.ibuffer.head_ready();
  e.regs_until = pipe.scoreboard.clear_at(next, facts.registers, facts.wide_registers, c);
  e.state = ScheduledWarp::State::running;
  e.unit = w.next->unit;
  e.dispatch_delay = static_cast<uint8_t>(w.read_cycles - 1);
  e.uses_mio = w.next->unit == Unit::ldst && uses_mio(*w.next);
  refresh(sm, w);
  // Ready before this SM's window ends: it may issue in it, from cold state otherwise (its
  // operands land, a unit frees up; under GTO, ready next cycle, it issues again at once).
  // Hinting only that case left about one issue in three cold; now 1-6% are (performance.md).
  if (e.ready_at() < window_end_) source_->prefetch(w.functional, next);
}

void GpuTimingModel::prefetch(SmState& sm, int slot) const {
  const WarpSlot& w = sm.warps[static_cast<size_t>(slot)];
  if (!w.next) return;
  source_->prefetch(w.functional, *w.next);
  sm.pipelines[static_cast<size_t>(slot)].prefetch();
}

void GpuTimingModel::release_barrier(SmState& sm, int cta, int64_t c) {
  for (int slot : sm.ctas[static_cast<size_t>(cta)].warp_slots) {
    WarpSlot& w = sm.warps[static_cast<size_t>(slot)];
    if (!w.at_barrier || source_->warp_at_barrier(w.source_slot, w.warp)) continue;
    w.at_barrier = false;
    entry(sm, w).state = ScheduledWarp::State::running;
    refresh(sm, w);
    sm.wake(w.subcore, c + 1);
    if (entry(sm, w).ready_at() < window_end_) prefetch(sm, slot);  // the whole CTA wakes at once
  }
}

void GpuTimingModel::warp_finished(SmState& sm, WarpSlot& w, int64_t c) {
  w.done = true;
  w.next = nullptr;
  entry(sm, w).state = ScheduledWarp::State::finished;
  refresh(sm, w);
  CtaContext& cta = sm.ctas[static_cast<size_t>(w.cta)];
  release_barrier(sm, w.cta, c);  // a finished warp no longer holds a barrier back
  if (--cta.warps_live > 0) return;
  // The CTA retires once everything its warps issued has completed (stores included).
  int64_t drained = c + 1;
  for (int slot : cta.warp_slots) drained = std::max(drained, sm.warps[static_cast<size_t>(slot)].drained_at);
  cta.retire_at = drained;
  sm.next_retire = std::min(sm.next_retire, drained);
}

// ---------------------------------------------------------------------------------------

GpuStats GpuTimingModel::finish() {
  LOOM_CHECK(finished_, "simt timing", "finish() before the launch finished");
  stats_.cycles = end_;
  for (SmState& sm : sms_)
    for (SubCore& sc : sm.subcores) {
      sc.settle(end_);
      for (size_t r = 0; r < sc.cycles.size(); ++r) stats_.subcore_cycles[r] += sc.cycles[r];
    }
  int64_t accounted = 0;
  for (int64_t v : stats_.subcore_cycles) accounted += v;
  LOOM_CHECK(accounted == end_ * config_->sms * config_->subcores_per_sm, "simt timing",
             "sub-core cycles do not add up to cycles * sms * subcores");
  beyond_l1_.finish(stats_);
  return stats_;
}

}  // namespace loom::simt
