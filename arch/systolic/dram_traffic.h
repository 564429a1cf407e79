// Which bytes each fold must move between DRAM and the SRAM buffers. Timing-free: the
// cycle engine plays these transfers on its DRAM channel. Policy (docs/systolic-conventions.md):
//  - each fold reads a slice of the ifmap and of the filter; a slice already in SRAM is
//    not fetched again. When an operand's whole per-group footprint fits the working half
//    of its buffer, every slice is fetched once; otherwise a slice is fetched whenever it
//    differs from the previous fold's slice of that operand.
//  - ifmap slices are proportional shares of the distinct input elements (exact for GEMMs
//    and 1x1 convolutions; convolution halos are not counted).
//  - partial sums stay in the ofmap buffer across the K folds of one output tile when the
//    tile fits its working half; otherwise each non-final K fold spills them to DRAM and
//    the next reads them back. Final outputs are written once.
#pragma once

#include <cstdint>
#include <vector>

#include "arch/systolic/fold_plan.h"
#include "arch/systolic/systolic_config.h"
#include "workloads/layer.h"

namespace loom {

struct FoldTraffic {
  int64_t ifmap_read_bytes = 0;
  int64_t filter_read_bytes = 0;
  int64_t psum_read_bytes = 0;   // spilled partial sums read back
  int64_t ofmap_write_bytes = 0; // final outputs and spilled partial sums
};

struct LayerTraffic {
  std::vector<FoldTraffic> folds;  // parallel to the fold list
  int64_t read_bytes = 0, write_bytes = 0;
};

// Throws InputError (naming the architecture file and SRAM field) when one fold's
// stationary tile or edge vector cannot fit the working half of its buffer.
LayerTraffic plan_dram_traffic(const Layer& layer, const std::vector<Fold>& folds,
                               const SystolicConfig& config);

}  // namespace loom
