// Runs a launch to completion without timing: one CTA at a time, its warps round-robin in
// quanta (each runs until it waits at a barrier, finishes, or uses its quantum). For
// functional validation, for counting instructions, and as the reference the timing model's
// results must match.
#pragma once

#include <cstdint>

#include "arch/simt/ptx/functional_model.h"

namespace loom::simt {

struct FunctionalRunStats {
  int64_t ctas = 0;
  int64_t warp_instructions = 0;
  int64_t thread_instructions = 0;  // active lanes summed over warp instructions
};

inline constexpr int64_t kDefaultInstructionLimit = int64_t{10'000'000'000};

// InputError on a barrier deadlock (every unfinished warp of a CTA waits at a barrier that
// cannot complete) or when more than `max_warp_instructions` execute (a runaway kernel).
FunctionalRunStats run_functional(FunctionalModel& model, int64_t max_warp_instructions = kDefaultInstructionLimit);

}  // namespace loom::simt
