// A layer of the IR as a plain dictionary for Python: its shape as written, and what loom
// derives from it (MACs, the GEMM view, operand element counts) so notebooks can compute
// working sets and arithmetic intensity without re-deriving the lowering.
#pragma once

#include "sim/json_reader.h"
#include "workloads/layer.h"
#include "workloads/network.h"

namespace loom::python {

Json layer_to_json(const Layer& layer);
Json network_to_json(const Network& network);  // name, source, file, batch, macs, layers

}  // namespace loom::python
