// Derivation of a training (or inference) step's kernels from a network's layers. The byte
// and flop counts per element, and why, are in docs/training.md; memory footprint, parameter
// counts and the network transforms (split, range) are in training_memory.cpp.
#include "workloads/training_step.h"

#include <map>
#include <set>

#include "sim/error.h"

namespace loom {

const char* name_of(PrecisionPolicy p) {
  switch (p) {
    case PrecisionPolicy::fp32: return "fp32";
    case PrecisionPolicy::mixed_fp16: return "mixed_fp16";
    case PrecisionPolicy::mixed_bf16: return "mixed_bf16";
    case PrecisionPolicy::int8_inference: return "int8";
  }
  return "?";
}

std::optional<PrecisionPolicy> parse_precision_policy(const std::string& name) {
  if (name == "fp32") return PrecisionPolicy::fp32;
  if (name == "mixed" || name == "mixed_fp16") return PrecisionPolicy::mixed_fp16;
  if (name == "mixed_bf16") return PrecisionPolicy::mixed_bf16;
  if (name == "int8") return PrecisionPolicy::int8_inference;
  return std::nullopt;
}

bool is_training(PrecisionPolicy p) { return p != PrecisionPolicy::int8_inference; }
bool uses_tensor_math(PrecisionPolicy p) { return p != PrecisionPolicy::fp32; }

int storage_bytes(PrecisionPolicy p) {
  switch (p) {
    case PrecisionPolicy::fp32: return 4;
    case PrecisionPolicy::mixed_fp16:
    case PrecisionPolicy::mixed_bf16: return 2;
    case PrecisionPolicy::int8_inference: return 1;
  }
  return 4;
}

const char* name_of(Optimizer o) { return o == Optimizer::adam ? "adam" : "sgd_momentum"; }

std::optional<Optimizer> parse_optimizer(const std::string& name) {
  if (name == "sgd" || name == "sgd_momentum") return Optimizer::sgd_momentum;
  if (name == "adam") return Optimizer::adam;
  return std::nullopt;
}

const char* name_of(TensorLayout l) { return l == TensorLayout::nchw ? "nchw" : "nhwc"; }

const char* name_of(StepPhase p) {
  switch (p) {
    case StepPhase::forward: return "forward";
    case StepPhase::backward: return "backward";
    case StepPhase::update: return "update";
  }
  return "?";
}

int64_t TrainingStep::fusion_saved_bytes() const {
  int64_t total = 0;
  for (const StepKernel& k : kernels) total += k.fusion_saved_bytes;
  return total;
}

int64_t TrainingStep::gradient_bytes() const {
  int64_t total = 0;
  for (const StepKernel& k : kernels) total += k.gradient_bytes;
  return total;
}

double TrainingStep::macs() const {
  double total = 0;
  for (const StepKernel& k : kernels) {
    if (k.is_gemm) total += static_cast<double>(k.gemm.macs());
  }
  return total;
}

namespace {

// DRAM traffic and arithmetic of one element-wise kernel.
struct Traffic {
  int64_t read = 0, write = 0;
  double flops = 0;
  int64_t gradient = 0;
};

// Unfused forward kernel of `op` over E output elements of s bytes each.
Traffic forward_traffic(PostOp op, int64_t E, int64_t s) {
  const double e = static_cast<double>(E);
  switch (op) {
    case PostOp::bias: return {E * s, E * s, e};
    case PostOp::batchnorm: return {2 * E * s, E * s, 8 * e};  // statistics pass, then normalise
    case PostOp::relu: return {E * s, E * s, e};
    case PostOp::gelu: return {E * s, E * s, 8 * e};
    case PostOp::residual_add: return {2 * E * s, E * s, e};
    case PostOp::layernorm: return {2 * E * s, E * s, 8 * e};
    case PostOp::softmax: return {2 * E * s, E * s, 5 * e};
    case PostOp::dropout: return {E * s, E * s + E, 2 * e};  // + a one-byte mask per element
  }
  return {};
}

// What a fused forward op still moves: a second input, a mask, or (training) a tensor that
// backward needs and that no other kernel writes.
Traffic fused_forward_keep(PostOp op, int64_t E, int64_t s, bool training) {
  switch (op) {
    case PostOp::residual_add: return {E * s, 0};
    case PostOp::dropout: return {0, E};
    case PostOp::gelu: return {0, training ? E * s : 0};  // the pre-activation x for gelu.bwd
    default: return {};
  }
}

// Unfused backward kernel of `op`: reads dy (and what it saved), writes dx; bias and the
// normalisations also write their parameter gradients (C or 2C values).
Traffic backward_traffic(PostOp op, int64_t E, int64_t C, int64_t s) {
  const double e = static_cast<double>(E);
  switch (op) {
    case PostOp::bias: return {E * s, C * s, e, C * s};
    case PostOp::batchnorm: return {4 * E * s, E * s, 12 * e, 2 * C * s};
    case PostOp::relu: return {2 * E * s, E * s, e};
    case PostOp::gelu: return {2 * E * s, E * s, 12 * e};
    case PostOp::residual_add: return {2 * E * s, E * s, e};  // the gradient merge at the branch
    case PostOp::layernorm: return {4 * E * s, E * s, 12 * e, 2 * C * s};
    case PostOp::softmax: return {2 * E * s, E * s, 5 * e};
    case PostOp::dropout: return {E * s + E, E * s, e};
  }
  return {};
}

// In a merged backward run, the one tensor each fusable op still reads: its own saved
// tensor (relu y, gelu x, dropout mask, residual_add the other branch's gradient).
int64_t own_saved_read(PostOp op, int64_t E, int64_t s) {
  switch (op) {
    case PostOp::relu:
    case PostOp::gelu:
    case PostOp::residual_add: return E * s;
    case PostOp::dropout: return E;
    default: return 0;
  }
}

StepKernel elementwise(const std::string& name, const std::string& layer, const std::string& op,
                       StepPhase phase, const Traffic& t) {
  StepKernel k;
  k.name = name;
  k.layer = layer;
  k.op = op;
  k.phase = phase;
  k.read_bytes = t.read;
  k.write_bytes = t.write;
  k.flops = t.flops;
  k.gradient_bytes = t.gradient;
  return k;
}

StepKernel gemm_kernel(const std::string& name, const Layer& shape, const std::string& layer,
                       const std::string& op, StepPhase phase) {
  StepKernel k;
  k.name = name;
  k.layer = layer;
  k.op = op;
  k.phase = phase;
  k.is_gemm = true;
  k.gemm = shape;
  k.flops = 2.0 * static_cast<double>(shape.macs());
  return k;
}

// A derived GEMM (dgrad, wgrad) as a batch-1 gemm layer; InputError when the batch pushes
// one of its dimensions past loom's limits.
Layer derived_gemm(const Layer& l, const std::string& what, int64_t m, int64_t n, int64_t k, int64_t groups,
                   int64_t batch, const std::string& file) {
  Layer d;
  d.name = l.name + "." + what;
  d.kind = LayerKind::gemm;
  d.batch = 1;
  d.gemm = {m, n, k, groups};
  std::string field;
  const std::string rule = shape_error(d, &field);
  if (!rule.empty()) {
    throw InputError(file, "batch",
                     "at batch " + std::to_string(batch) + ", the " + what + " GEMM of layer '" + l.name +
                         "' breaks a limit (" + field + ": " + rule + "); use a smaller per-device batch");
  }
  return d;
}

// Kernel-name stem of the j-th post-op of a layer: "relu", or "relu.2" for a second relu.
std::vector<std::string> post_op_stems(const Layer& l) {
  std::map<PostOp, int> seen;
  std::vector<std::string> stems;
  for (PostOp op : l.post_ops) {
    const int n = ++seen[op];
    std::string stem = l.name;  // appended piecewise: GCC 12 warns falsely on chained +
    stem.append(".").append(name_of(op));
    if (n > 1) stem.append(".").append(std::to_string(n));
    stems.push_back(std::move(stem));
  }
  return stems;
}

class StepBuilder {
 public:
  StepBuilder(const StepOptions& o, std::vector<StepKernel>& out)
      : o_(o), s_(storage_bytes(o.precision)), training_(is_training(o.precision)), out_(out) {}

  void forward(const Layer& l) {
    const bool transposes = o_.layout_transposes && l.kind == LayerKind::conv2d;
    const int64_t E = l.ofmap_elements();
    if (transposes) {
      const int64_t bytes = l.ifmap_elements() * s_;
      out_.push_back(elementwise(l.name + ".transpose_in.fwd", l.name, "transpose", StepPhase::forward,
                                 {bytes, bytes, 0}));
    }
    out_.push_back(gemm_kernel(l.name + ".fwd", l, l.name, "forward", StepPhase::forward));
    if (transposes) {
      out_.push_back(elementwise(l.name + ".transpose_out.fwd", l.name, "transpose", StepPhase::forward,
                                 {E * s_, E * s_, 0}));
    }
    const std::vector<std::string> stems = post_op_stems(l);
    for (size_t j = 0; j < l.post_ops.size(); ++j) {
      const PostOp op = l.post_ops[j];
      // Inference: batchnorm is folded into the conv's weights, dropout is the identity.
      if (!training_ && (op == PostOp::batchnorm || op == PostOp::dropout)) continue;
      const Traffic t = forward_traffic(op, E, s_);
      StepKernel k = elementwise(stems[j] + ".fwd", l.name, name_of(op), StepPhase::forward, t);
      // A fusable op always has a producer in its layer (the GEMM, a transpose or a
      // normalisation), so with fusion on it always runs in that kernel's epilogue.
      if (o_.fuse && is_fusable(op)) {
        const Traffic keep = fused_forward_keep(op, E, s_, training_);
        k.launches = 0;
        k.read_bytes = keep.read;
        k.write_bytes = keep.write;
        k.fusion_saved_bytes = (t.read + t.write) - (keep.read + keep.write);
      }
      out_.push_back(k);
    }
  }

  void backward(const Layer& l, bool with_dgrad, int64_t batch, const std::string& file) {
    const int64_t E = l.ofmap_elements(), C = output_channels(l);
    const std::vector<std::string> stems = post_op_stems(l);
    const size_t first_kernel = out_.size();
    for (size_t r = l.post_ops.size(); r-- > 0;) {
      const PostOp op = l.post_ops[r];
      out_.push_back(elementwise(stems[r] + ".bwd", l.name, name_of(op), StepPhase::backward,
                                 backward_traffic(op, E, C, s_)));
    }
    if (o_.fuse) merge_backward_runs(l, first_kernel, E, C);

    const bool transposes = o_.layout_transposes && l.kind == LayerKind::conv2d;
    if (transposes) {
      out_.push_back(elementwise(l.name + ".transpose_in.bwd", l.name, "transpose", StepPhase::backward,
                                 {E * s_, E * s_, 0}));
    }
    const GemmView g = l.gemm_view();
    if (with_dgrad) {
      const Layer d = derived_gemm(l, "dgrad", g.m, g.k, g.n, g.groups, batch, file);
      out_.push_back(gemm_kernel(d.name, d, l.name, "dgrad", StepPhase::backward));
      if (transposes) {
        const int64_t bytes = l.ifmap_elements() * s_;
        out_.push_back(elementwise(l.name + ".transpose_out.bwd", l.name, "transpose", StepPhase::backward,
                                   {bytes, bytes, 0}));
      }
    }
    const Layer w = derived_gemm(l, "wgrad", g.k, g.n, g.m, g.groups, batch, file);
    StepKernel wk = gemm_kernel(w.name, w, l.name, "wgrad", StepPhase::backward);
    wk.gradient_bytes = l.filter_elements() * s_;
    out_.push_back(wk);
  }

 private:
  // Consecutive fusable ops' backward kernels (out_[first..], in backward order) merge into
  // one launch: gradients between them stay on chip. Each keeps the read of its own saved
  // tensor; the first reads dy, the last op that changes the gradient (not bias, which
  // passes it through) writes dx, and bias still writes its C-value gradient.
  void merge_backward_runs(const Layer& l, size_t first, int64_t E, int64_t C) {
    const size_t n = l.post_ops.size();
    auto op_at = [&](size_t i) { return l.post_ops[n - 1 - i]; };  // i-th in backward order
    for (size_t a = 0; a < n;) {
      size_t b = a;
      while (b < n && is_fusable(op_at(b))) ++b;
      if (b - a >= 2) merge_run(first, a, b, op_at, E, C);
      a = b == a ? a + 1 : b;
    }
  }

  template <typename OpAt>
  void merge_run(size_t first, size_t a, size_t b, OpAt op_at, int64_t E, int64_t C) {
    size_t dx_writer = b;  // none when every op in the run is a bias
    for (size_t i = a; i < b; ++i) {
      if (op_at(i) != PostOp::bias) dx_writer = i;
    }
    for (size_t i = a; i < b; ++i) {
      StepKernel& k = out_[first + i];
      const int64_t before = k.read_bytes + k.write_bytes;
      const PostOp op = op_at(i);
      k.read_bytes = own_saved_read(op, E, s_) + (i == a ? E * s_ : 0);
      k.write_bytes = (op == PostOp::bias ? C * s_ : 0) + (i == dx_writer ? E * s_ : 0);
      k.launches = i == a ? 1 : 0;
      k.fusion_saved_bytes = before - (k.read_bytes + k.write_bytes);
    }
  }

  const StepOptions& o_;
  int64_t s_;
  bool training_;
  std::vector<StepKernel>& out_;
};

void add_update(const std::vector<Layer>& layers, const StepOptions& o, std::vector<StepKernel>& out) {
  const int64_t s = storage_bytes(o.precision);
  const bool mixed = o.precision != PrecisionPolicy::fp32;
  if (o.precision == PrecisionPolicy::mixed_fp16 && o.loss_scaling) {
    // bf16 has FP32's exponent range: no loss scaling, no unscale pass.
    for (const Layer& l : layers) {
      const int64_t P = parameter_count(l);
      out.push_back(elementwise(l.name + ".unscale_check", l.name, "unscale_check", StepPhase::update,
                                {P * s, P * s, 2.0 * static_cast<double>(P)}));
    }
  }
  for (const Layer& l : layers) {
    const int64_t P = parameter_count(l);
    const double p = static_cast<double>(P);
    Traffic t;
    if (o.optimizer == Optimizer::sgd_momentum) {
      // fp32: read w, g, m; write w, m. Mixed: read the FP32 master, the 16-bit gradient and
      // the FP32 momentum; write master, momentum and the 16-bit working copy.
      t = mixed ? Traffic{10 * P, 10 * P, 3 * p} : Traffic{12 * P, 8 * P, 3 * p};
    } else {
      // Adam adds the FP32 second moment to read and write.
      t = mixed ? Traffic{14 * P, 14 * P, 12 * p} : Traffic{16 * P, 12 * P, 12 * p};
    }
    out.push_back(elementwise(l.name + ".update", l.name, name_of(o.optimizer), StepPhase::update, t));
  }
}

}  // namespace

TrainingStep derive_training_step(const Network& network, int64_t batch, const StepOptions& options) {
  const std::string& file = network.source_file;
  if (batch < 1 || batch > kMaxLayerDimension) {
    throw InputError(file, "batch",
                     "expected 1 to " + std::to_string(kMaxLayerDimension) + " samples per device, got " +
                         std::to_string(batch));
  }
  if (network.layers.empty()) throw InputError(file, "layers", "a training step needs at least one layer");
  std::vector<Layer> layers = network.layers;
  for (Layer& l : layers) {
    l.batch = batch;
    std::string field;
    const std::string rule = shape_error(l, &field);
    if (!rule.empty()) {
      throw InputError(file, "batch",
                       "at batch " + std::to_string(batch) + ", layer '" + l.name + "' breaks a limit (" +
                           field + ": " + rule + "); use a smaller per-device batch");
    }
  }

  TrainingStep step;
  step.network = network.name;
  step.batch = batch;
  step.options = options;
  const bool training = is_training(options.precision);
  const int64_t s = storage_bytes(options.precision);
  StepBuilder builder(options, step.kernels);
  for (const Layer& l : layers) builder.forward(l);
  if (training) {
    if (options.with_loss) {
      // Softmax cross-entropy over the last layer's output (the logits).
      const int64_t E = layers.back().ofmap_elements();
      const double e = static_cast<double>(E);
      step.kernels.push_back(elementwise("loss.fwd", "", "loss", StepPhase::forward, {2 * E * s, batch * 4, 5 * e}));
      step.kernels.push_back(elementwise("loss.bwd", "", "loss", StepPhase::backward, {E * s, E * s, 2 * e}));
    }
    for (size_t i = layers.size(); i-- > 0;) {
      builder.backward(layers[i], i > 0 || options.input_gradient, batch, file);
    }
    add_update(layers, options, step.kernels);
  }

  std::set<std::string> names;
  for (const StepKernel& k : step.kernels) {
    if (!names.insert(k.name).second) {
      throw InputError(file, "layers",
                       "two kernels of the training step would both be named '" + k.name +
                           "' (a layer name collides with another layer's derived kernel or with 'loss'); "
                           "rename the layer");
    }
  }
  for (const Layer& l : layers) step.parameters += parameter_count(l);
  step.memory = step_memory(layers, options);
  return step;
}

}  // namespace loom
