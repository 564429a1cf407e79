#include "workloads/post_op.h"

namespace loom {

const char* name_of(PostOp op) {
  switch (op) {
    case PostOp::bias: return "bias";
    case PostOp::batchnorm: return "batchnorm";
    case PostOp::relu: return "relu";
    case PostOp::gelu: return "gelu";
    case PostOp::residual_add: return "residual_add";
    case PostOp::layernorm: return "layernorm";
    case PostOp::softmax: return "softmax";
    case PostOp::dropout: return "dropout";
  }
  return "?";
}

std::optional<PostOp> parse_post_op(const std::string& name) {
  for (PostOp op : kAllPostOps) {
    if (name == name_of(op)) return op;
  }
  return std::nullopt;
}

bool is_fusable(PostOp op) {
  switch (op) {
    case PostOp::bias:
    case PostOp::relu:
    case PostOp::gelu:
    case PostOp::residual_add:
    case PostOp::dropout: return true;
    case PostOp::batchnorm:
    case PostOp::layernorm:
    case PostOp::softmax: return false;
  }
  return false;
}

}  // namespace loom
