#include "arch/systolic/systolic_engine.h"

#include <algorithm>

#include "sim/error.h"
#include "sim/systemc_context.h"

namespace loom {

SystolicEngine::SystolicEngine(sc_core::sc_module_name name)
    : sc_core::sc_module(name), dram_("dram") {
  SC_METHOD(step);
  sensitive << kick_;
  dont_initialize();
}

SystolicEngine& systolic_engine() {
  sim::prepare_systemc();
  static SystolicEngine engine("systolic");
  return engine;
}

std::vector<LayerTiming> SystolicEngine::run(const std::vector<std::vector<FoldJob>>& layers,
                                             const std::function<void(size_t)>& on_layer_done) {
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

void SystolicEngine::begin_layer(int64_t now) {
  const auto& folds = (*layers_)[layer_];
  layer_start_ = last_write_done_ = now;
  dram_.begin_window(now);
  data_ready_.assign(folds.size(), now);
  write_done_.assign(folds.size(), now);
  // Both halves of every buffer are free: prefetch the first two folds.
  for (size_t f = 0; f < std::min<size_t>(2, folds.size()); ++f) {
    data_ready_[f] = dram_.transfer(now, folds[f].prefetch_bytes, false);
  }
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
  if (on_layer_done_) on_layer_done_(layer_);
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
        // A fold starts when its data is in, and the ofmap half it will write is drained.
        int64_t start = data_ready_[fold_];
        if (fold_ >= 2) start = std::max(start, write_done_[fold_ - 2]);
        if (start > now) {
          next_trigger(sim::cycles(start - now));
          return;
        }
        const FoldJob& job = folds[fold_];
        const int64_t streamed = dram_.transfer(now, job.stream_bytes, false);
        const int64_t end = std::max(now + job.busy_cycles, streamed);
        phase_ = Phase::running;
        next_trigger(sim::cycles(end - now));
        return;
      }
      case Phase::running: {
        // The fold just ended: write back its outputs, then refill the half it freed.
        const FoldJob& job = folds[fold_];
        write_done_[fold_] = dram_.transfer(now, job.write_bytes, true);
        last_write_done_ = std::max(last_write_done_, write_done_[fold_]);
        if (fold_ + 2 < folds.size()) {
          data_ready_[fold_ + 2] = dram_.transfer(now, folds[fold_ + 2].prefetch_bytes, false);
        }
        ++fold_;
        phase_ = Phase::wait_start;
        break;
      }
    }
  }
}

}  // namespace loom
