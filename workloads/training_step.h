// One training (or inference) step of a network, derived from its layers: every kernel a
// framework would launch, in launch order, with its shape or its DRAM traffic, plus the
// memory one device needs to hold for it. Data only: no hardware, no timing (the training
// estimator, training/, prices each kernel on a device).
//
// Forward: each layer's GEMM/convolution, then its post-ops (workloads/post_op.h), then the
// softmax cross-entropy loss on the last layer's output. Backward, in reverse layer order:
// the post-ops' backward kernels (reverse order), the activation gradient (dgrad, skipped
// for the first layer: nothing needs the input images' gradient) and the weight gradient
// (wgrad). Update: one optimizer kernel per layer (SGD with momentum or Adam), preceded with
// mixed FP16 precision by the loss-scaling pass that unscales and checks the gradients.
// Rules, byte counts per element and their reasoning: docs/training.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/network.h"

namespace loom {

enum class PrecisionPolicy { fp32, mixed_fp16, mixed_bf16, int8_inference };
const char* name_of(PrecisionPolicy p);
// "fp32", "mixed" (= mixed_fp16), "mixed_fp16", "mixed_bf16", "int8"
std::optional<PrecisionPolicy> parse_precision_policy(const std::string& name);
inline constexpr const char* kPrecisionPolicyNames = "fp32|mixed|mixed_fp16|mixed_bf16|int8";
bool is_training(PrecisionPolicy p);        // false for int8_inference
bool uses_tensor_math(PrecisionPolicy p);   // mixed_* and int8: tensor-core / low-precision GEMMs
int storage_bytes(PrecisionPolicy p);       // activations, weights as used, gradients: 4, 2, 2, 1

enum class Optimizer { sgd_momentum, adam };
const char* name_of(Optimizer o);
std::optional<Optimizer> parse_optimizer(const std::string& name);  // "sgd", "sgd_momentum", "adam"

enum class TensorLayout { nhwc, nchw };
const char* name_of(TensorLayout l);

struct StepOptions {
  PrecisionPolicy precision = PrecisionPolicy::mixed_fp16;
  Optimizer optimizer = Optimizer::sgd_momentum;
  bool fuse = false;           // fusable post-ops run in the producing kernel's epilogue
  // NCHW with tensor-core math: every conv transposes its input to NHWC and its output back,
  // forward and backward (the estimator sets this only for devices that need it).
  bool layout_transposes = false;
  bool loss_scaling = true;    // mixed_fp16 only: the unscale-and-check pass over gradients
  bool with_loss = true;       // false for pipeline stages other than the last
  bool input_gradient = false; // true: the first layer's dgrad too (pipeline stages after the first)
};

enum class StepPhase { forward, backward, update };
const char* name_of(StepPhase p);

// A kernel is either a MAC kernel the device model runs (`gemm` set, kind "gemm") or a
// memory-bound element-wise kernel priced from its bytes and flops.
struct StepKernel {
  std::string name;    // unique in the step: "<layer>.fwd", "<layer>.dgrad", "<layer>.wgrad",
                       // "<layer>.batchnorm.fwd", "<layer>.relu.bwd", "loss.fwd", "<layer>.update", ...
  std::string layer;   // the network layer it belongs to ("" for the loss)
  std::string op;      // "forward", "dgrad", "wgrad", a post-op name, "transpose", "loss",
                       // "unscale_check", "sgd_momentum", "adam"
  StepPhase phase = StepPhase::forward;
  bool is_gemm = false;
  Layer gemm;               // is_gemm: the shape to run, batch already applied
  int64_t read_bytes = 0;   // element-wise kernels: DRAM bytes read and written
  int64_t write_bytes = 0;
  double flops = 0;         // element-wise kernels: arithmetic (GEMMs: 2 x MACs of `gemm`)
  int64_t gradient_bytes = 0;  // wgrad (and bias/norm backward): weight-gradient bytes produced,
                               // what data-parallel training all-reduces
  int launches = 1;         // 0 when fused into the previous kernel (no launch, no traffic but extra reads)
  int64_t fusion_saved_bytes = 0;  // DRAM bytes this kernel avoids thanks to fusion
};

// Bytes one device holds during the step (docs/training.md, "Memory footprint").
struct MemoryFootprint {
  int64_t weights = 0;          // as the math uses them (storage precision)
  int64_t master_weights = 0;   // mixed precision: the FP32 copy the update writes
  int64_t gradients = 0;
  int64_t optimizer_state = 0;  // momentum (SGD) or first and second moments (Adam), FP32
  int64_t activations = 0;      // kept from forward for backward (inference: the largest live pair)
  int64_t workspace = 0;        // the largest gradient pair in flight during backward
  int64_t total() const {
    return weights + master_weights + gradients + optimizer_state + activations + workspace;
  }
};

struct TrainingStep {
  std::string network;
  int64_t batch = 0;          // samples this step processes (per device)
  StepOptions options;
  std::vector<StepKernel> kernels;  // launch order
  int64_t parameters = 0;     // weights + biases + normalisation scales and shifts
  MemoryFootprint memory;

  int64_t fusion_saved_bytes() const;
  int64_t gradient_bytes() const;  // sum over kernels
  double macs() const;             // sum over GEMM kernels
};

// Derives the step for `network` at `batch` samples (the file's own batch is ignored).
// InputError for a batch out of range (1 .. 2^24) or layers whose derived shapes break
// loom's limits.
TrainingStep derive_training_step(const Network& network, int64_t batch, const StepOptions& options);

// The layers of `network` with each layer's output channels (conv: out_channels; gemm: n)
// split `ways` ways (ceil): what one device computes under tensor (model) parallelism.
// Depthwise convolutions split their groups and input channels with the outputs.
Network split_output_channels(const Network& network, int ways);

// Layers [first, last) as a network of their own (pipeline stages).
Network layer_range(const Network& network, size_t first, size_t last);

// Helpers shared by training_step.cpp and training_memory.cpp (also useful to estimators).
// Output channels C of a layer: conv out_channels, gemm n * groups.
int64_t output_channels(const Layer& layer);
// Trainable parameters of one layer: its weights (filter elements), plus C per bias and 2C
// (scale and shift) per batchnorm or layernorm among its post-ops.
int64_t parameter_count(const Layer& layer);
// The footprint of a step over `layers` (their batch already set to the step's batch).
MemoryFootprint step_memory(const std::vector<Layer>& layers, const StepOptions& options);

}  // namespace loom
