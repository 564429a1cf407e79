// The GPipe schedule of one step (Huang et al., "GPipe", NeurIPS 2019): stage s runs the
// forward of micro-batch j when both its own previous forward and stage s-1's forward of j
// (plus the send) are done; after the last forward, backwards run in reverse micro-batch
// order, from the last stage to the first. With equal stage times and free sends the grid's
// idle share is (p-1)/(m+p-1).
#pragma once

#include <cstdint>
#include <vector>

namespace loom {

struct GpipeGrid {
  std::vector<std::vector<double>> forward_end, backward_end;  // [stage][micro-batch]
  double end = 0;              // when the last backward of any stage finishes
  double idle_fraction = 0;    // 1 - busy / (stages x end)
};

// forward/backward: one micro-batch's time per stage; send_forward[s]: activations stage
// s -> s+1; send_backward[s]: their gradients s+1 -> s (zero for inference).
GpipeGrid gpipe_grid(const std::vector<double>& forward, const std::vector<double>& backward,
                     const std::vector<double>& send_forward, const std::vector<double>& send_backward,
                     int64_t micro_batches);

}  // namespace loom
