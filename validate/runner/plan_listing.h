// --dry-run: the plan as the run would go through it, one line per step with the launch
// geometry and the device memory it takes. Needs no GPU; checks every launch against the
// runner's kernels on the way (runner_plan.h), which is what CI can test without a GPU.
#pragma once

#include <cstdio>
#include <string>

#include "validate/runner/runner_plan.h"

namespace loom::gpu_runner {

// A nominal device for planning without a GPU: H100 SXM-like (132 SMs, 50 MiB L2).
validate::ProbeTarget nominal_probe_target();

void print_plan(const RunnerPlan& plan, const std::string& device_text, std::FILE* out);

}  // namespace loom::gpu_runner
