// Element-wise and normalisation operations that follow a layer's GEMM/convolution in a
// network file ("post_ops": ["batchnorm", "relu"]). They hold no MACs, so inference runs
// (`loom run`) leave them out; training steps (workloads/training_step.h) cost their DRAM
// traffic, launches and saved activations, forward and backward.
#pragma once

#include <array>
#include <optional>
#include <string>

namespace loom {

enum class PostOp { bias, batchnorm, relu, gelu, residual_add, layernorm, softmax, dropout };

const char* name_of(PostOp op);
std::optional<PostOp> parse_post_op(const std::string& name);
inline constexpr std::array kAllPostOps = {PostOp::bias,      PostOp::batchnorm, PostOp::relu,    PostOp::gelu,
                                           PostOp::residual_add, PostOp::layernorm, PostOp::softmax, PostOp::dropout};
inline constexpr const char* kPostOpNames = "bias|batchnorm|relu|gelu|residual_add|layernorm|softmax|dropout";

// Element-wise ops without a reduction over the batch can run in the epilogue of whatever
// kernel produced their input (conv+bias+ReLU, add+ReLU); normalisations and softmax need
// statistics of the whole tensor first, so they start a kernel of their own.
bool is_fusable(PostOp op);

}  // namespace loom
