// What the cycle model's engine measures of one layer (arch/systolic/systolic_engine.h):
// the rest of a layer's result comes from its plan. Kept apart from the engine so that
// code storing or reloading timings (a resumed run's checkpoint) needs no SystemC.
#pragma once

#include <cstdint>

namespace loom {

struct LayerTiming {
  int64_t cycles = 0;
  int64_t dram_read_bytes = 0, dram_write_bytes = 0;
  double dram_peak_bytes_per_cycle = 0;
};

}  // namespace loom
