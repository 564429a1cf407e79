// The checks the timing model needs of a GpuConfig before it can run one (the JSON loader
// checks more; configs built in code reach the model unchecked). Each failure is an
// InputError naming the config file and the field.
#pragma once

#include "arch/simt/gpu_config.h"

namespace loom::simt {

void check_timing_config(const GpuConfig& config);

}  // namespace loom::simt
