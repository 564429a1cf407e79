#include "arch/systolic/systolic_engine.h"

#include <algorithm>

#include "sim/error.h"
#include "sim/systemc_context.h"

namespace loom {

SystolicEngine::SystolicEngine(sc_core::sc_module_name name)
    : sc_core::sc_module(name), ifmap_("ifmap_sram"), filter_("filter_sram"), ofmap_("ofmap_sram"), dram_("dram") {
  SC_METHOD(step);
  sensitive << kick_;
  dont_initialize();
}

namespace {
SystolicEngine& the_systolic_engine() {
  static SystolicEngine engine("systolic");
  return engine;
}
const bool kRegistered = (sim::register_engine([] { the_systolic_engine(); }), true);
}  // namespace

SystolicEngine& systolic_engine() {
  sim::build_all_engines();
  return the_systolic_engine();
}

void SystolicEngine::configure(const SystolicConfig& c) {
  const int slots = c.sram.double_buffered ? 2 : 1;
  ifmap_.configure(slots, c.sram.working_bytes(c.sram.ifmap_bytes), c.sram.ifmap_words_per_cycle);
  filter_.configure(slots, c.sram.working_bytes(c.sram.filter_bytes), c.sram.filter_words_per_cycle);
  ofmap_.configure(slots, c.sram.working_bytes(c.sram.ofmap_bytes), c.sram.ofmap_words_per_cycle);
  dram_.configure(c.dram.unlimited, c.dram.bytes_per_cycle, c.dram.latency_cycles);
  slots_ = static_cast<size_t>(ifmap_.slots());
}

std::vector<LayerTiming> SystolicEngine::run(const std::vector<std::vector<FoldJob>>& layers,
                                             const LayerDone& on_layer_done) {
  LOOM_CHECK(phase_ == Phase::idle, "systolic_engine", "run() while a job is active");
  layers_ = &layers;
  on_layer_done_ = on_layer_done;
  timings_.assign(layers.size(), LayerTiming{});
  layer_ = 0;
  if (!layers.empty()) {
    phase_ = Phase::layer_begin;
    kick_.notify(sc_core::SC_ZERO_TIME);
    sim::run_until_idle();
  }
  LOOM_CHECK(phase_ == Phase::idle, "systolic_engine", "kernel went idle with work left");
  layers_ = nullptr;
  return std::move(timings_);
}

int64_t SystolicEngine::busy_cycles(const FoldJob& job) const {
  return std::max({job.compute_cycles, ifmap_.port_cycles(job.sram.ifmap_reads),
                   filter_.port_cycles(job.sram.filter_reads),
                   ofmap_.port_cycles(job.sram.ofmap_reads + job.sram.ofmap_writes)});
}

// Fetches what of fold `fold`'s inputs fits its (now free) slot in each buffer.
void SystolicEngine::prefetch(size_t fold, int64_t now) {
  const FoldTraffic& t = (*layers_)[layer_][fold].dram;
  const int64_t bytes = std::min(t.ifmap_read_bytes, ifmap_.slot_bytes()) +
                        std::min(t.filter_read_bytes, filter_.slot_bytes()) +
                        std::min(t.psum_read_bytes, ofmap_.slot_bytes());
  data_ready_[fold] = dram_.transfer(now, bytes, false);
}

void SystolicEngine::begin_layer(int64_t now) {
  const size_t folds = (*layers_)[layer_].size();
  layer_start_ = last_write_done_ = now;
  dram_.begin_window(now);
  data_ready_.assign(folds, now);
  write_done_.assign(folds, now);
  for (size_t f = 0; f < std::min(slots_, folds); ++f) prefetch(f, now);  // every slot is free
  fold_ = 0;
  phase_ = Phase::wait_start;
}

bool SystolicEngine::finish_layer(int64_t now) {
  if (last_write_done_ > now) return false;
  LayerTiming& t = timings_[layer_];
  t.cycles = now - layer_start_;
  t.dram_read_bytes = dram_.read_bytes();
  t.dram_write_bytes = dram_.write_bytes();
  t.dram_peak_bytes_per_cycle = dram_.peak_bytes_per_cycle(now);
  if (on_layer_done_) on_layer_done_(layer_, t);
  ++layer_;
  phase_ = layer_ < layers_->size() ? Phase::layer_begin : Phase::idle;
  return true;
}

void SystolicEngine::step() {
  const int64_t now = sim::now_cycles();
  while (phase_ != Phase::idle) {
    const auto& folds = (*layers_)[layer_];
    switch (phase_) {
      case Phase::idle:
        return;
      case Phase::layer_begin:
        begin_layer(now);
        break;
      case Phase::wait_start: {
        if (fold_ == folds.size()) {  // all folds done: wait for the last write-back
          if (!finish_layer(now)) {
            next_trigger(sim::cycles(last_write_done_ - now));
            return;
          }
          break;
        }
        // A fold starts when its inputs are in and the ofmap slot it writes is drained.
        int64_t start = data_ready_[fold_];
        if (fold_ >= slots_) start = std::max(start, write_done_[fold_ - slots_]);
        if (start > now) {
          next_trigger(sim::cycles(start - now));
          return;
        }
        // Inputs larger than a slot stream in while the fold runs.
        const FoldJob& job = folds[fold_];
        const FoldTraffic& t = job.dram;
        const int64_t overflow = std::max<int64_t>(0, t.ifmap_read_bytes - ifmap_.slot_bytes()) +
                                 std::max<int64_t>(0, t.filter_read_bytes - filter_.slot_bytes()) +
                                 std::max<int64_t>(0, t.psum_read_bytes - ofmap_.slot_bytes());
        const int64_t streamed = dram_.transfer(now, overflow, false);
        const int64_t end = std::max(now + busy_cycles(job), streamed);
        phase_ = Phase::running;
        next_trigger(sim::cycles(end - now));
        return;
      }
      case Phase::running: {
        // The fold just ended: write back its outputs, then refill the slot it freed.
        write_done_[fold_] = dram_.transfer(now, folds[fold_].dram.ofmap_write_bytes, true);
        last_write_done_ = std::max(last_write_done_, write_done_[fold_]);
        if (fold_ + slots_ < folds.size()) prefetch(fold_ + slots_, now);
        ++fold_;
        phase_ = Phase::wait_start;
        break;
      }
    }
  }
}

}  // namespace loom
