// Parameter counts, the memory footprint of a step (docs/training.md, "Memory footprint")
// and the network transforms that parallel strategies derive steps from: the output-channel
// split of tensor parallelism and the layer ranges of pipeline stages.
#include <algorithm>

#include "sim/error.h"
#include "workloads/training_step.h"

namespace loom {

int64_t output_channels(const Layer& l) {
  return l.kind == LayerKind::conv2d ? l.conv.out_channels : l.gemm.n * l.gemm.groups;
}

int64_t parameter_count(const Layer& l) {
  const int64_t C = output_channels(l);
  int64_t p = l.filter_elements();
  for (PostOp op : l.post_ops) {
    if (op == PostOp::bias) p += C;
    if (op == PostOp::batchnorm || op == PostOp::layernorm) p += 2 * C;  // scale and shift
  }
  return p;
}

namespace {

// Bytes of the tensors a layer's post-ops keep for their backward kernels. A relu keeps its
// output, except when that output is the layer's output and another layer follows: then it
// is that layer's GEMM input, already counted there.
int64_t post_op_saved_bytes(const Layer& l, bool last_layer, int64_t s) {
  const int64_t E = l.ofmap_elements();
  int64_t bytes = 0;
  for (size_t j = 0; j < l.post_ops.size(); ++j) {
    switch (l.post_ops[j]) {
      case PostOp::batchnorm:  // its input (statistics are per channel: negligible)
      case PostOp::gelu:       // its input
      case PostOp::layernorm:  // its input
      case PostOp::softmax:    // its output
        bytes += E * s;
        break;
      case PostOp::relu:
        if (j + 1 != l.post_ops.size() || last_layer) bytes += E * s;
        break;
      case PostOp::dropout: bytes += E; break;  // one-byte mask
      case PostOp::bias:
      case PostOp::residual_add: break;         // their backward needs no saved tensor
    }
  }
  return bytes;
}

}  // namespace

MemoryFootprint step_memory(const std::vector<Layer>& layers, const StepOptions& options) {
  const PrecisionPolicy p = options.precision;
  const int64_t s = storage_bytes(p);
  const bool training = is_training(p);
  int64_t P = 0;
  for (const Layer& l : layers) P += parameter_count(l);

  MemoryFootprint m;
  m.weights = P * s;
  m.master_weights = p == PrecisionPolicy::mixed_fp16 || p == PrecisionPolicy::mixed_bf16 ? 4 * P : 0;
  m.gradients = training ? P * s : 0;
  if (training) m.optimizer_state = options.optimizer == Optimizer::adam ? 8 * P : 4 * P;
  int64_t largest_pair = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    largest_pair = std::max(largest_pair, (l.ifmap_elements() + l.ofmap_elements()) * s);
    if (training) m.activations += l.ifmap_elements() * s + post_op_saved_bytes(l, i + 1 == layers.size(), s);
  }
  // Inference frees each layer's input once its output exists: the largest live pair.
  // Training: during backward the largest (dy, dx) pair of one layer is in flight.
  if (training) {
    m.workspace = largest_pair;
  } else {
    m.activations = largest_pair;
  }
  return m;
}

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

Network split_output_channels(const Network& network, int ways) {
  if (ways < 1) {
    throw InputError(network.source_file, "ways",
                     "expected a positive number of ways to split output channels, got " + std::to_string(ways));
  }
  if (ways == 1) return network;
  Network out = network;
  out.name = network.name + " (output channels / " + std::to_string(ways) + ")";
  for (Layer& l : out.layers) {
    if (l.kind == LayerKind::gemm) {
      l.gemm.n = ceil_div(l.gemm.n, ways);
      continue;
    }
    Conv2d& c = l.conv;
    if (c.groups > 1 && c.groups == c.in_channels) {
      // Depthwise: each device takes whole channels (input, group and its outputs together).
      const int64_t multiplier = c.out_channels / c.groups;
      c.in_channels = c.groups = ceil_div(c.groups, ways);
      c.out_channels = multiplier * c.groups;
    } else {
      // Grouped (or plain) conv: split each group's outputs; keep a multiple of groups.
      c.out_channels = ceil_div(ceil_div(c.out_channels, ways), c.groups) * c.groups;
    }
  }
  return out;
}

Network layer_range(const Network& network, size_t first, size_t last) {
  const size_t n = network.layers.size();
  if (first >= last || last > n) {
    throw InputError(network.source_file, "layers",
                     "expected a non-empty layer range [first, last) within 0.." + std::to_string(n) + ", got [" +
                         std::to_string(first) + ", " + std::to_string(last) + ")");
  }
  Network out = network;
  out.layers.assign(network.layers.begin() + static_cast<std::ptrdiff_t>(first),
                    network.layers.begin() + static_cast<std::ptrdiff_t>(last));
  out.name = network.name + " (layers " + std::to_string(first) + ".." + std::to_string(last - 1) + ")";
  return out;
}

}  // namespace loom
