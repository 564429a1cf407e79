// The per-layer table `loom run` prints on the terminal (a human view; tools read
// report.json instead).
#pragma once

#include <string>

#include "arch/systolic/systolic_result.h"

namespace loom {
std::string format_layer_table(const NetworkResult& run);
}  // namespace loom
