// Training steps derived from network files (workloads/training_step.h): the GEMMs of
// forward and backward, the post-ops' element-wise kernels against the byte table of
// docs/training.md worked out by hand, fusion, layout transposes, the update phase, the
// memory footprint, parameter counts of the shipped networks against torchvision, the
// "post_ops" parser, and the network transforms for tensor and pipeline parallelism.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "sim/error.h"
#include "workloads/network.h"
#include "workloads/training_step.h"

using namespace loom;

namespace {

const std::string kNetworks = std::string(LOOM_SOURCE_DIR) + "/workloads/networks/";

Network load(const std::string& stem) { return load_workload(kNetworks + stem + ".json"); }

Network parse(const std::string& layers_json) {
  return parse_network_json(Json::parse(R"({"name": "t", "layers": [)" + layers_json + "]}"), "t.json");
}

// A conv (E = 2 * 16 * 8 * 8 = 2048 outputs at batch 2, ifmap 512, 576 weights) feeding an
// fc (E = 20, ifmap 2048, 10240 weights).
const char* kTiny =
    R"({"name": "c", "type": "conv2d", "input_hw": 8, "in_channels": 4, "out_channels": 16, "kernel": 3,
        "padding": 1, "post_ops": ["batchnorm", "relu"]},
       {"name": "f", "type": "fc", "in_features": 1024, "out_features": 10, "post_ops": ["bias"]})";

StepOptions opts(PrecisionPolicy p, bool fuse = false) {
  StepOptions o;
  o.precision = p;
  o.fuse = fuse;
  return o;
}

const StepKernel& kernel(const TrainingStep& step, const std::string& name) {
  const auto it = std::find_if(step.kernels.begin(), step.kernels.end(),
                               [&](const StepKernel& k) { return k.name == name; });
  REQUIRE_MESSAGE(it != step.kernels.end(), "no kernel named " << name);
  return *it;
}

bool has_kernel(const TrainingStep& step, const std::string& name) {
  return std::any_of(step.kernels.begin(), step.kernels.end(),
                     [&](const StepKernel& k) { return k.name == name; });
}

int64_t elementwise_bytes(const TrainingStep& step) {
  int64_t total = 0;
  for (const StepKernel& k : step.kernels) total += k.read_bytes + k.write_bytes;
  return total;
}

int launches(const TrainingStep& step) {
  int total = 0;
  for (const StepKernel& k : step.kernels) total += k.launches;
  return total;
}

int count_op(const TrainingStep& step, const std::string& op) {
  return static_cast<int>(std::count_if(step.kernels.begin(), step.kernels.end(),
                                         [&](const StepKernel& k) { return k.op == op; }));
}

template <typename F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("expected an InputError");
  return "";
}

}  // namespace

TEST_CASE("training step: dgrad and wgrad each have the forward layer's MACs and valid shapes") {
  const Network net = load("resnet50");
  const TrainingStep step = derive_training_step(net, 32, opts(PrecisionPolicy::fp32));
  std::map<std::string, int64_t> forward_macs;
  for (const StepKernel& k : step.kernels) {
    if (!k.is_gemm) continue;
    std::string field;
    CHECK_MESSAGE(shape_error(k.gemm, &field).empty(), k.name << " " << field);
    CHECK(k.flops == doctest::Approx(2.0 * static_cast<double>(k.gemm.macs())));
    if (k.op == "forward") {
      CHECK(k.gemm.batch == 32);
      forward_macs[k.layer] = k.gemm.macs();
    } else {
      REQUIRE(forward_macs.count(k.layer));
      CHECK_MESSAGE(k.gemm.macs() == forward_macs[k.layer], k.name);
    }
  }
  CHECK(forward_macs.size() == net.layers.size());
  // Three GEMMs per layer, less the first layer's dgrad.
  const double expected = 3.0 * 32 * static_cast<double>(net.total_macs()) - 32.0 * net.layers[0].macs();
  CHECK(step.macs() == doctest::Approx(expected).epsilon(1e-12));
  CHECK(count_op(step, "forward") == 54);
  CHECK(count_op(step, "wgrad") == 54);
  CHECK(count_op(step, "dgrad") == 53);
  // wgrad produces the weights' gradient: a conv's dgrad is m x (k of fwd) x (n of fwd).
  const StepKernel& d = kernel(step, "layer1.0.conv2.dgrad");
  CHECK(d.gemm.gemm.m == 32 * 56 * 56);
  CHECK(d.gemm.gemm.n == 64 * 9);
  CHECK(d.gemm.gemm.k == 64);
  CHECK(kernel(step, "layer1.0.conv2.wgrad").gradient_bytes == 64 * 64 * 9 * 4);
}

TEST_CASE("training step: the first layer's dgrad only with input_gradient") {
  const Network net = parse(kTiny);
  StepOptions o = opts(PrecisionPolicy::fp32);
  CHECK_FALSE(has_kernel(derive_training_step(net, 2, o), "c.dgrad"));
  CHECK(has_kernel(derive_training_step(net, 2, o), "f.dgrad"));
  o.input_gradient = true;
  CHECK(has_kernel(derive_training_step(net, 2, o), "c.dgrad"));
}

TEST_CASE("training step: kernel order and the byte table by hand (fp32, batch 2)") {
  const TrainingStep step = derive_training_step(parse(kTiny), 2, opts(PrecisionPolicy::fp32));
  std::vector<std::string> names;
  for (const StepKernel& k : step.kernels) names.push_back(k.name);
  // Forward layer by layer, the loss, backward in reverse (post-ops reversed, then dgrad
  // and wgrad; the first layer has no dgrad), then the update (no loss scaling in fp32).
  const std::vector<std::string> expected = {
      "c.fwd",      "c.batchnorm.fwd", "c.relu.fwd", "f.fwd",    "f.bias.fwd", "loss.fwd", "loss.bwd", "f.bias.bwd",
      "f.dgrad",    "f.wgrad",         "c.relu.bwd", "c.batchnorm.bwd", "c.wgrad", "c.update", "f.update"};
  CHECK(names == expected);

  const int64_t E = 2048, s = 4;
  const StepKernel& bn = kernel(step, "c.batchnorm.fwd");
  CHECK(bn.read_bytes == 2 * E * s);
  CHECK(bn.write_bytes == E * s);
  CHECK(bn.flops == doctest::Approx(8.0 * E));
  CHECK(bn.phase == StepPhase::forward);
  const StepKernel& relu = kernel(step, "c.relu.fwd");
  CHECK(relu.read_bytes == E * s);
  CHECK(relu.write_bytes == E * s);
  CHECK(relu.launches == 1);
  const StepKernel& relu_b = kernel(step, "c.relu.bwd");
  CHECK(relu_b.read_bytes == 2 * E * s);
  CHECK(relu_b.write_bytes == E * s);
  CHECK(relu_b.phase == StepPhase::backward);
  const StepKernel& bn_b = kernel(step, "c.batchnorm.bwd");
  CHECK(bn_b.read_bytes == 4 * E * s);
  CHECK(bn_b.write_bytes == E * s);
  CHECK(bn_b.flops == doctest::Approx(12.0 * E));
  CHECK(bn_b.gradient_bytes == 2 * 16 * s);
  const StepKernel& bias_b = kernel(step, "f.bias.bwd");
  CHECK(bias_b.read_bytes == 20 * s);
  CHECK(bias_b.write_bytes == 10 * s);
  CHECK(bias_b.gradient_bytes == 10 * s);
  const StepKernel& loss = kernel(step, "loss.fwd");
  CHECK(loss.layer.empty());
  CHECK(loss.read_bytes == 2 * 20 * s);
  CHECK(loss.write_bytes == 2 * 4);
  CHECK(kernel(step, "loss.bwd").phase == StepPhase::backward);

  // Parameters: conv 576 weights + batchnorm 2 x 16; fc 10240 weights + 10 biases.
  CHECK(step.parameters == 608 + 10250);
  CHECK(step.gradient_bytes() == step.parameters * s);
  const StepKernel& upd = kernel(step, "c.update");
  CHECK(upd.op == "sgd_momentum");
  CHECK(upd.phase == StepPhase::update);
  CHECK(upd.read_bytes == 12 * 608);
  CHECK(upd.write_bytes == 8 * 608);

  // Footprint: activations = GEMM inputs + batchnorm's input (the relu output is f's input).
  const MemoryFootprint& m = step.memory;
  CHECK(m.weights == step.parameters * 4);
  CHECK(m.master_weights == 0);
  CHECK(m.gradients == step.parameters * 4);
  CHECK(m.optimizer_state == step.parameters * 4);
  CHECK(m.activations == (512 + E + 2048) * s);
  CHECK(m.workspace == (512 + E) * s);
  CHECK(m.total() == 3 * step.parameters * 4 + (512 + E + 2048) * s + (512 + E) * s);

  // without the loss (a pipeline stage other than the last)
  StepOptions o = opts(PrecisionPolicy::fp32);
  o.with_loss = false;
  CHECK_FALSE(has_kernel(derive_training_step(parse(kTiny), 2, o), "loss.fwd"));
}

TEST_CASE("training step: mixed precision halves the tensors and adds master weights and loss scaling") {
  const Network net = parse(kTiny);
  const TrainingStep fp32 = derive_training_step(net, 2, opts(PrecisionPolicy::fp32));
  const TrainingStep fp16 = derive_training_step(net, 2, opts(PrecisionPolicy::mixed_fp16));
  CHECK(kernel(fp16, "c.relu.fwd").read_bytes * 2 == kernel(fp32, "c.relu.fwd").read_bytes);
  CHECK(fp16.memory.weights * 2 == fp32.memory.weights);
  CHECK(fp16.memory.gradients * 2 == fp32.memory.gradients);
  CHECK(fp16.memory.master_weights == 4 * fp16.parameters);
  CHECK(fp32.memory.master_weights == 0);
  CHECK(fp16.memory.optimizer_state == fp32.memory.optimizer_state);
  CHECK(fp16.memory.activations * 2 == fp32.memory.activations);
  CHECK(kernel(fp16, "c.update").read_bytes == 10 * 608);
  CHECK(kernel(fp16, "c.update").write_bytes == 10 * 608);

  // Loss scaling: one unscale-and-check pass per layer, before the updates; not for bf16.
  CHECK(count_op(fp16, "unscale_check") == 2);
  const StepKernel& u = kernel(fp16, "c.unscale_check");
  CHECK(u.read_bytes == 608 * 2);
  CHECK(u.phase == StepPhase::update);
  CHECK(count_op(fp32, "unscale_check") == 0);
  CHECK(count_op(derive_training_step(net, 2, opts(PrecisionPolicy::mixed_bf16)), "unscale_check") == 0);
  StepOptions no_scaling = opts(PrecisionPolicy::mixed_fp16);
  no_scaling.loss_scaling = false;
  CHECK(count_op(derive_training_step(net, 2, no_scaling), "unscale_check") == 0);
  const auto first_update = std::find_if(fp16.kernels.begin(), fp16.kernels.end(),
                                         [](const StepKernel& k) { return k.phase == StepPhase::update; });
  CHECK(first_update->op == "unscale_check");
}

TEST_CASE("training step: Adam keeps twice SGD's optimizer state and moves more bytes") {
  const Network net = load("resnet50");
  StepOptions adam = opts(PrecisionPolicy::mixed_fp16);
  adam.optimizer = Optimizer::adam;
  const TrainingStep a = derive_training_step(net, 8, adam);
  const TrainingStep s = derive_training_step(net, 8, opts(PrecisionPolicy::mixed_fp16));
  CHECK(a.memory.optimizer_state == 2 * s.memory.optimizer_state);
  CHECK(a.memory.optimizer_state == 8 * a.parameters);
  CHECK(count_op(a, "adam") == 54);
  CHECK(count_op(a, "sgd_momentum") == 0);
  CHECK(kernel(a, "fc.update").read_bytes == 14 * (2048 * 1000 + 1000));
}

TEST_CASE("training step: fusion saves launches and exactly the bytes it says") {
  const Network net = load("resnet50");
  const TrainingStep plain = derive_training_step(net, 32, opts(PrecisionPolicy::mixed_fp16));
  const TrainingStep fused = derive_training_step(net, 32, opts(PrecisionPolicy::mixed_fp16, true));
  CHECK(plain.kernels.size() == fused.kernels.size());
  CHECK(launches(fused) < launches(plain));
  CHECK(plain.fusion_saved_bytes() == 0);
  CHECK(fused.fusion_saved_bytes() > 0);
  CHECK(fused.fusion_saved_bytes() == elementwise_bytes(plain) - elementwise_bytes(fused));
  CHECK(fused.macs() == plain.macs());
  // Normalisations are never fused.
  for (const StepKernel& k : fused.kernels) {
    if (k.op == "batchnorm") CHECK(k.launches == 1);
  }

  // conv3: batchnorm, residual_add, relu. Forward: add and relu run in the batchnorm's
  // epilogue (the add still reads the shortcut). Backward: relu and add merge into one
  // kernel that reads dy, y and the other branch's gradient and writes dx once.
  const int64_t E = int64_t{32} * 256 * 56 * 56, s = 2;
  const StepKernel& add = kernel(fused, "layer1.0.conv3.residual_add.fwd");
  CHECK(add.launches == 0);
  CHECK(add.read_bytes == E * s);
  CHECK(add.write_bytes == 0);
  CHECK(add.fusion_saved_bytes == 2 * E * s);
  CHECK(kernel(fused, "layer1.0.conv3.relu.fwd").fusion_saved_bytes == 2 * E * s);
  const StepKernel& relu_b = kernel(fused, "layer1.0.conv3.relu.bwd");
  const StepKernel& add_b = kernel(fused, "layer1.0.conv3.residual_add.bwd");
  CHECK(relu_b.launches == 1);
  CHECK(add_b.launches == 0);
  CHECK(relu_b.read_bytes + add_b.read_bytes == 3 * E * s);
  CHECK(relu_b.write_bytes + add_b.write_bytes == E * s);
  CHECK(relu_b.fusion_saved_bytes + add_b.fusion_saved_bytes == 2 * E * s);
  // conv1's relu stands alone in backward (next to a batchnorm): nothing to merge.
  CHECK(kernel(fused, "layer1.0.conv1.relu.bwd").fusion_saved_bytes == 0);
}

TEST_CASE("training step: fused bias + gelu keeps the pre-activation; bias merges into relu backward") {
  const Network net = parse(
      R"({"name": "h", "type": "gemm", "m": 4, "n": 8, "k": 8, "post_ops": ["bias", "gelu"]},
         {"name": "o", "type": "gemm", "m": 4, "n": 8, "k": 8, "post_ops": ["bias", "relu", "dropout"]})");
  const TrainingStep step = derive_training_step(net, 1, opts(PrecisionPolicy::fp32, true));
  const int64_t E = 32, C = 8, s = 4;
  CHECK(kernel(step, "h.bias.fwd").write_bytes == 0);
  CHECK(kernel(step, "h.gelu.fwd").write_bytes == E * s);  // x, for gelu.bwd
  CHECK(kernel(step, "o.dropout.fwd").write_bytes == E);   // the mask
  // o backward: dropout, relu, bias merged: reads dy + mask + y, writes dx once and db.
  const StepKernel &d = kernel(step, "o.dropout.bwd"), &r = kernel(step, "o.relu.bwd"),
                   &b = kernel(step, "o.bias.bwd");
  CHECK(d.launches + r.launches + b.launches == 1);
  CHECK(d.read_bytes + r.read_bytes + b.read_bytes == E * s + E + E * s);
  CHECK(d.write_bytes + r.write_bytes + b.write_bytes == E * s + C * s);
  CHECK(b.gradient_bytes == C * s);
  const int64_t unfused = (E * s + E + E * s) + (2 * E * s + E * s) + (E * s + C * s);
  CHECK(d.fusion_saved_bytes + r.fusion_saved_bytes + b.fusion_saved_bytes == unfused - (3 * E * s + E + C * s));
}

TEST_CASE("training step: int8 inference is forward only, batchnorm folded, dropout gone") {
  const TrainingStep step = derive_training_step(load("resnet50"), 16, opts(PrecisionPolicy::int8_inference));
  CHECK_FALSE(is_training(PrecisionPolicy::int8_inference));
  for (const StepKernel& k : step.kernels) {
    CHECK(k.phase == StepPhase::forward);
    CHECK(k.op != "batchnorm");
    CHECK(k.op != "loss");
  }
  CHECK(count_op(step, "forward") == 54);
  CHECK(count_op(step, "relu") == 49);
  CHECK(step.gradient_bytes() == 0);
  CHECK(step.memory.master_weights == 0);
  CHECK(step.memory.gradients == 0);
  CHECK(step.memory.optimizer_state == 0);
  CHECK(step.memory.workspace == 0);
  CHECK(step.memory.weights == step.parameters);
  // activations: the largest input + output pair, one byte each: layer2.0.conv1,
  // 16 x (256 + 128) x 56^2 (conv1's pair, 16 x (3 x 224^2 + 64 x 112^2), is smaller)
  CHECK(step.memory.activations == 16 * (256 + 128) * 56 * 56);
  const TrainingStep vgg = derive_training_step(load("vgg16"), 4, opts(PrecisionPolicy::int8_inference));
  CHECK(count_op(vgg, "dropout") == 0);
  CHECK(count_op(vgg, "bias") == 16);
}

TEST_CASE("training step: layout transposes only when asked, and only around convs") {
  StepOptions o = opts(PrecisionPolicy::mixed_fp16);
  CHECK(count_op(derive_training_step(load("resnet50"), 4, o), "transpose") == 0);
  o.layout_transposes = true;
  const TrainingStep step = derive_training_step(load("resnet50"), 4, o);
  // 53 convs x (in, out) x (fwd, bwd), less conv1's dx transpose (it has no dgrad).
  CHECK(count_op(step, "transpose") == 53 * 4 - 1);
  CHECK_FALSE(has_kernel(step, "conv1.transpose_out.bwd"));
  CHECK_FALSE(has_kernel(step, "fc.transpose_in.fwd"));
  const StepKernel& t = kernel(step, "conv1.transpose_in.fwd");
  CHECK(t.read_bytes == 4 * 3 * 224 * 224 * 2);
  CHECK(t.write_bytes == t.read_bytes);
  CHECK(t.flops == 0);
  // order around a conv: transpose_in, conv, transpose_out, then the post-ops
  auto index = [&](const std::string& n) {
    return std::find_if(step.kernels.begin(), step.kernels.end(), [&](const StepKernel& k) { return k.name == n; }) -
           step.kernels.begin();
  };
  CHECK(index("layer1.0.conv1.transpose_in.fwd") + 1 == index("layer1.0.conv1.fwd"));
  CHECK(index("layer1.0.conv1.fwd") + 1 == index("layer1.0.conv1.transpose_out.fwd"));
  CHECK(index("layer1.0.conv1.transpose_out.fwd") + 1 == index("layer1.0.conv1.batchnorm.fwd"));
  CHECK(index("layer1.0.conv1.transpose_in.bwd") + 1 == index("layer1.0.conv1.dgrad"));
  CHECK(index("layer1.0.conv1.dgrad") + 1 == index("layer1.0.conv1.transpose_out.bwd"));
  CHECK(count_op(derive_training_step(load("bert_base_seq128"), 4, o), "transpose") == 0);
}

TEST_CASE("training step: parameter counts of the shipped networks match torchvision") {
  auto params = [](const std::string& stem) {
    return derive_training_step(load(stem), 1, opts(PrecisionPolicy::fp32)).parameters;
  };
  // torchvision.models.resnet50: 25,557,032 (convs without bias, batchnorm 2C, fc bias).
  const int64_t resnet = params("resnet50");
  CHECK(std::abs(resnet - 25557032) <= 25557);
  CHECK(resnet == 25557032);
  CHECK(params("mobilenetv2") == 3504872);
  CHECK(params("alexnet") == 61100840);
  CHECK(params("vgg16") == 138357544);
  CHECK(params("lenet5") == 156 + 2416 + 48120 + 10164 + 850);
}

TEST_CASE("training step: shipped networks carry their post-ops") {
  const Network r = load("resnet50");
  const std::vector<PostOp> bn_relu = {PostOp::batchnorm, PostOp::relu};
  for (const Layer& l : r.layers) {
    INFO(l.name);
    const auto ends = [&](const std::string& suffix) {
      return l.name.size() >= suffix.size() && l.name.compare(l.name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends("conv3")) {
      CHECK(l.post_ops == std::vector<PostOp>{PostOp::batchnorm, PostOp::residual_add, PostOp::relu});
    } else if (ends("downsample")) {
      CHECK(l.post_ops == std::vector<PostOp>{PostOp::batchnorm});
    } else if (l.name == "fc") {
      CHECK(l.post_ops == std::vector<PostOp>{PostOp::bias});
    } else {
      CHECK(l.post_ops == bn_relu);
    }
  }
  int skips = 0;
  for (const Layer& l : load("mobilenetv2").layers) {
    skips += std::count(l.post_ops.begin(), l.post_ops.end(), PostOp::residual_add);
  }
  CHECK(skips == 10);
  for (const char* stem : {"bert_base_seq128", "bert_base_seq512"}) {
    const Network b = load(stem);
    CHECK(b.layers[3].post_ops == std::vector<PostOp>{PostOp::softmax, PostOp::dropout});
    CHECK(b.layers[6].post_ops == std::vector<PostOp>{PostOp::bias, PostOp::gelu});
    CHECK(b.layers[7].post_ops.back() == PostOp::layernorm);
  }
}

TEST_CASE("post_ops: names round-trip, fusability, and strict parsing") {
  for (PostOp op : kAllPostOps) {
    REQUIRE(parse_post_op(name_of(op)).has_value());
    CHECK(*parse_post_op(name_of(op)) == op);
    CHECK(std::string(kPostOpNames).find(name_of(op)) != std::string::npos);
  }
  CHECK_FALSE(parse_post_op("ReLU").has_value());
  CHECK(is_fusable(PostOp::relu));
  CHECK(is_fusable(PostOp::bias));
  CHECK_FALSE(is_fusable(PostOp::batchnorm));
  CHECK_FALSE(is_fusable(PostOp::softmax));
  CHECK_FALSE(is_fusable(PostOp::layernorm));

  const Network ok = parse(R"({"name": "a", "type": "fc", "in_features": 4, "out_features": 4,
                               "post_ops": ["bias", "relu"]})");
  CHECK(ok.layers[0].post_ops == std::vector<PostOp>{PostOp::bias, PostOp::relu});
  const std::string unknown = input_error([] {
    parse(R"({"name": "a", "type": "fc", "in_features": 4, "out_features": 4},
             {"name": "b", "type": "fc", "in_features": 4, "out_features": 4, "post_ops": ["bias", "relu6"]})");
  });
  CHECK(unknown.find("t.json") != std::string::npos);
  CHECK(unknown.find("layers[1].post_ops[1]") != std::string::npos);
  CHECK(unknown.find(kPostOpNames) != std::string::npos);
  CHECK(unknown.find("relu6") != std::string::npos);
  const std::string not_array = input_error([] {
    parse(R"({"name": "a", "type": "fc", "in_features": 4, "out_features": 4, "post_ops": "relu"})");
  });
  CHECK(not_array.find("layers[0].post_ops") != std::string::npos);
  CHECK(not_array.find("array") != std::string::npos);
  const std::string not_string = input_error([] {
    parse(R"({"name": "a", "type": "fc", "in_features": 4, "out_features": 4, "post_ops": [3]})");
  });
  CHECK(not_string.find("layers[0].post_ops[0]") != std::string::npos);
}

TEST_CASE("training step: policies, optimizers and batch limits") {
  CHECK(*parse_precision_policy("mixed") == PrecisionPolicy::mixed_fp16);
  for (PrecisionPolicy p : {PrecisionPolicy::fp32, PrecisionPolicy::mixed_fp16, PrecisionPolicy::mixed_bf16,
                            PrecisionPolicy::int8_inference}) {
    REQUIRE(parse_precision_policy(name_of(p)).has_value());
    CHECK(*parse_precision_policy(name_of(p)) == p);
  }
  CHECK_FALSE(parse_precision_policy("fp16").has_value());
  CHECK(storage_bytes(PrecisionPolicy::fp32) == 4);
  CHECK(storage_bytes(PrecisionPolicy::mixed_bf16) == 2);
  CHECK(storage_bytes(PrecisionPolicy::int8_inference) == 1);
  CHECK_FALSE(uses_tensor_math(PrecisionPolicy::fp32));
  CHECK(uses_tensor_math(PrecisionPolicy::mixed_bf16));
  CHECK(*parse_optimizer("sgd") == Optimizer::sgd_momentum);
  CHECK(*parse_optimizer(name_of(Optimizer::adam)) == Optimizer::adam);
  CHECK_FALSE(parse_optimizer("lamb").has_value());

  const Network net = load("resnet50");
  CHECK(input_error([&] { derive_training_step(net, 0, {}); }).find("batch") != std::string::npos);
  // At batch 2048, conv1's wgrad reduces over 2048 x 112 x 112 > 2^24 rows.
  const std::string huge = input_error([&] { derive_training_step(net, 2048, {}); });
  CHECK(huge.find("batch 2048") != std::string::npos);
  CHECK(huge.find("conv1") != std::string::npos);
  // The network's own batch is ignored.
  Network b4 = net;
  for (Layer& l : b4.layers) l.batch = 4;
  CHECK(derive_training_step(b4, 2, {}).macs() == derive_training_step(net, 2, {}).macs());
  // A layer named like the loss collides with its kernels.
  CHECK(input_error([] {
          derive_training_step(parse(R"({"name": "loss", "type": "fc", "in_features": 4, "out_features": 4})"), 1, {});
        }).find("loss.fwd") != std::string::npos);
}

TEST_CASE("split_output_channels: each of N devices computes about 1/N of the MACs") {
  const Network net = load("resnet50");
  const Network half = split_output_channels(net, 2);
  CHECK(half.layers.size() == net.layers.size());
  CHECK(half.name != net.name);
  CHECK(half.source == net.source);
  const double ratio = static_cast<double>(half.total_macs()) / static_cast<double>(net.total_macs());
  CHECK(ratio == doctest::Approx(0.5).epsilon(0.01));
  CHECK(half.layers[0].conv.out_channels == 32);
  CHECK(half.layers.back().gemm.n == 500);
  CHECK(half.layers[0].post_ops == net.layers[0].post_ops);

  // Depthwise convs split their groups with their channels; groups still divide both.
  const Network mb = split_output_channels(load("mobilenetv2"), 3);
  for (const Layer& l : mb.layers) {
    std::string field;
    CHECK_MESSAGE(shape_error(l, &field).empty(), l.name);
  }
  const Layer& dw = mb.layers[1];  // features.1.depthwise, 32 channels
  CHECK(dw.conv.groups == 11);
  CHECK(dw.conv.in_channels == 11);
  CHECK(dw.conv.out_channels == 11);
  // Grouped (not depthwise) convs keep a multiple of their groups.
  const Network ey = split_output_channels(load("alexnet_eyeriss_conv"), 3);
  CHECK(ey.layers[1].conv.out_channels % 2 == 0);
  CHECK(ey.layers[1].conv.out_channels >= 256 / 3);

  CHECK(split_output_channels(net, 1).total_macs() == net.total_macs());
  CHECK(input_error([&] { split_output_channels(net, 0); }).find("ways") != std::string::npos);
}

TEST_CASE("layer_range: pipeline stages are contiguous, bounded layer ranges") {
  const Network net = load("resnet50");
  const Network a = layer_range(net, 0, 20), b = layer_range(net, 20, 54);
  CHECK(a.layers.size() == 20);
  CHECK(b.layers.size() == 34);
  CHECK(a.total_macs() + b.total_macs() == net.total_macs());
  CHECK(b.layers[0].name == net.layers[20].name);
  CHECK(b.source == net.source);
  CHECK(b.name != net.name);
  CHECK(input_error([&] { layer_range(net, 5, 5); }).find("layers") != std::string::npos);
  CHECK(input_error([&] { layer_range(net, 10, 55); }).find("layers") != std::string::npos);
  CHECK(input_error([&] { layer_range(net, 30, 20); }).find("layers") != std::string::npos);
  // A later pipeline stage needs its first layer's input gradient.
  StepOptions o;
  o.input_gradient = true;
  o.with_loss = false;
  const TrainingStep stage = derive_training_step(a, 8, o);
  CHECK(has_kernel(stage, "conv1.dgrad"));
  CHECK_FALSE(has_kernel(stage, "loss.fwd"));
}
