#!/usr/bin/env python3
"""Generates the reference networks in workloads/networks/ (loom-network/1 JSON).

Only the layers that multiply-accumulate are layers: convolutions and fully-connected /
GEMM layers. Bias, normalisation, activations, residual additions, softmax and dropout are
listed as each layer's "post_ops" (applied in order to its output; training steps cost
them, inference runs skip them). Pooling is skipped, but its effect on spatial size is
tracked so every conv gets its real input.

Deterministic: run it again and the files are byte-identical. Standard library only.
Usage: python3 scripts/gen_networks.py [output_dir]
"""

import json
import os
import sys

SCHEMA = "loom-network/1"


def conv_out(hw, kernel, stride=1, padding=0):
    """Output extent of a convolution or pooling window (floor mode, as PyTorch)."""
    return (hw + 2 * padding - kernel) // stride + 1


def finish(layer, post_ops, comment):
    """Appends the optional keys in file order: post_ops, then comment."""
    if post_ops:
        layer["post_ops"] = list(post_ops)
    if comment:
        layer["comment"] = comment
    return layer


def conv(name, input_hw, in_ch, out_ch, kernel, stride=1, padding=0, post_ops=(), comment=None):
    layer = {"name": name, "type": "conv2d", "input_hw": input_hw, "in_channels": in_ch,
             "out_channels": out_ch, "kernel": kernel}
    # Defaults (stride 1, padding 0) are left out so the files stay readable.
    if stride != 1:
        layer["stride"] = stride
    if padding != 0:
        layer["padding"] = padding
    return finish(layer, post_ops, comment)


def depthwise(name, input_hw, channels, kernel, stride=1, padding=0, post_ops=()):
    layer = conv(name, input_hw, channels, channels, kernel, stride, padding)
    layer["type"] = "depthwise_conv2d"
    layer["groups"] = channels
    return finish(layer, post_ops, None)


def fc(name, in_features, out_features, post_ops=(), comment=None):
    layer = {"name": name, "type": "fc", "in_features": in_features, "out_features": out_features}
    return finish(layer, post_ops, comment)


def gemm(name, m, n, k, groups=1, post_ops=(), comment=None):
    layer = {"name": name, "type": "gemm", "m": m, "n": n, "k": k}
    if groups != 1:
        layer["groups"] = groups
    return finish(layer, post_ops, comment)


# Post-op lists (docs/workload-schema.md, "post_ops").
BIAS = ["bias"]
BIAS_RELU = ["bias", "relu"]
BIAS_RELU_DROPOUT = ["bias", "relu", "dropout"]
BN = ["batchnorm"]
BN_RELU = ["batchnorm", "relu"]


def network(name, source, description, layers):
    return {"schema": SCHEMA, "name": name, "source": source, "description": description,
            "batch": 1, "layers": layers}


def lenet5():
    return network(
        "LeNet-5",
        "LeCun, Bottou, Bengio, Haffner, 'Gradient-based learning applied to document "
        "recognition', Proc. IEEE 86(11), 1998, Section II.B",
        "LeNet-5 on a 32x32x1 input. Subsampling layers S2 and S4 are not modelled (no MACs "
        "on the array); their 2x2 halving is applied to the next layer's input. Activations "
        "are modelled as ReLU (the paper's scaled tanh costs the same traffic).",
        [
            conv("C1", 32, 1, 6, 5, post_ops=BIAS_RELU),               # -> 28x28x6, S2 -> 14
            conv("C3", 14, 6, 16, 5, post_ops=BIAS_RELU, comment=(
                "full connection 6->16; the paper connects each C3 map to a subset of the S2 "
                "maps (Table I, 60 of 96 pairs), so this over-counts C3 MACs by 96/60")),
            conv("C5", 5, 16, 120, 5, post_ops=BIAS_RELU,
                 comment="5x5 conv on the 5x5 S4 output, i.e. fc 400->120"),
            fc("F6", 120, 84, post_ops=BIAS_RELU),
            fc("output", 84, 10, post_ops=BIAS, comment=(
                "the paper's output layer is 10 Euclidean RBF units over F6; the same 84x10 "
                "multiply-accumulates as an fc layer")),
        ])


def alexnet():
    # Spatial sizes: conv1 224 -> 55, maxpool 3/2 -> 27, conv2 -> 27, maxpool -> 13,
    # conv3..5 at 13, maxpool -> 6, so fc6 sees 256*6*6 = 9216 features.
    return network(
        "AlexNet",
        "Krizhevsky, Sutskever, Hinton, 'ImageNet classification with deep convolutional "
        "neural networks', NIPS 2012; shapes of the one-tower torchvision variant "
        "(torchvision.models.alexnet, after Krizhevsky 'One weird trick', arXiv:1404.5997), "
        "not the paper's two-GPU grouped variant",
        "torchvision AlexNet at 224x224x3: 5 conv + 3 fc, with bias, ReLU and dropout as "
        "post_ops (torchvision drops out the inputs of fc6 and fc7; here the outputs of fc6 "
        "and fc7). Pooling is not modelled.",
        [
            conv("conv1", 224, 3, 64, 11, stride=4, padding=2, post_ops=BIAS_RELU),
            conv("conv2", 27, 64, 192, 5, padding=2, post_ops=BIAS_RELU),
            conv("conv3", 13, 192, 384, 3, padding=1, post_ops=BIAS_RELU),
            conv("conv4", 13, 384, 256, 3, padding=1, post_ops=BIAS_RELU),
            conv("conv5", 13, 256, 256, 3, padding=1, post_ops=BIAS_RELU),
            fc("fc6", 256 * 6 * 6, 4096, post_ops=BIAS_RELU_DROPOUT),
            fc("fc7", 4096, 4096, post_ops=BIAS_RELU_DROPOUT),
            fc("fc8", 4096, 1000, post_ops=BIAS),
        ])


def vgg16():
    layers = []
    hw, in_ch = 224, 3
    # Config D: five stages of 3x3/p1 convs, each followed by a 2x2/2 max pool.
    for stage, (out_ch, count) in enumerate([(64, 2), (128, 2), (256, 3), (512, 3), (512, 3)], 1):
        for i in range(1, count + 1):
            layers.append(conv(f"conv{stage}_{i}", hw, in_ch, out_ch, 3, padding=1,
                               post_ops=BIAS_RELU))
            in_ch = out_ch
        hw //= 2
    assert hw == 7
    layers += [fc("fc6", 512 * 7 * 7, 4096, post_ops=BIAS_RELU_DROPOUT),
               fc("fc7", 4096, 4096, post_ops=BIAS_RELU_DROPOUT),
               fc("fc8", 4096, 1000, post_ops=BIAS)]
    return network(
        "VGG-16",
        "Simonyan, Zisserman, 'Very deep convolutional networks for large-scale image "
        "recognition', ICLR 2015, Table 1 configuration D; same shapes as "
        "torchvision.models.vgg16",
        "VGG-16 at 224x224x3: 13 conv 3x3 (padding 1) + 3 fc, with bias, ReLU and dropout "
        "as post_ops. Max pooling is not modelled.",
        layers)


def resnet50():
    layers = [conv("conv1", 224, 3, 64, 7, stride=2, padding=3, post_ops=BN_RELU)]
    hw = conv_out(conv_out(224, 7, 2, 3), 3, 2, 1)  # conv1 112, maxpool 3/2 p1 -> 56
    in_ch = 64
    for stage, (width, blocks, stride) in enumerate(
            [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], 1):
        out_ch = width * 4
        for b in range(blocks):
            s = stride if b == 0 else 1
            p = f"layer{stage}.{b}"
            out_hw = conv_out(hw, 3, s, 1)
            # v1.5: the stride sits on the 3x3 conv2, not on the 1x1 conv1 as in the paper.
            layers.append(conv(f"{p}.conv1", hw, in_ch, width, 1, post_ops=BN_RELU))
            layers.append(conv(f"{p}.conv2", hw, width, width, 3, stride=s, padding=1,
                               post_ops=BN_RELU))
            # out = relu(bn3(conv3(x)) + shortcut(x))
            layers.append(conv(f"{p}.conv3", out_hw, width, out_ch, 1,
                               post_ops=["batchnorm", "residual_add", "relu"]))
            if b == 0:  # projection shortcut where channels (and maybe size) change
                layers.append(conv(f"{p}.downsample", hw, in_ch, out_ch, 1, stride=s,
                                   post_ops=BN))
            hw, in_ch = out_hw, out_ch
    assert hw == 7 and in_ch == 2048
    layers.append(fc("fc", 2048, 1000, post_ops=BIAS))  # after global average pooling
    return network(
        "ResNet-50 v1.5",
        "He, Zhang, Ren, Sun, 'Deep residual learning for image recognition', CVPR 2016, "
        "Table 1 (50-layer); v1.5 shapes of torchvision.models.resnet50 (stride 2 on the "
        "bottleneck 3x3 conv)",
        "ResNet-50 v1.5 at 224x224x3: conv1, 16 bottleneck blocks (3,4,6,3) of 1x1/3x3/1x1 "
        "convs, 4 downsample 1x1 projections, fc. Layer names follow torchvision. Batch "
        "norm, ReLU, residual additions and the fc bias are modelled in training steps as "
        "post_ops; pooling is not modelled.",
        layers)


def mobilenetv2():
    layers = [conv("features.0", 224, 3, 32, 3, stride=2, padding=1, post_ops=BN_RELU)]
    hw, in_ch, idx = 112, 32, 1
    # Sandler et al. Table 2: expansion t, output channels c, repeats n, first stride s.
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                       (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = in_ch * t
            p = f"features.{idx}"
            if t != 1:  # t = 1 has no expansion conv (as in the paper and torchvision)
                layers.append(conv(f"{p}.expand", hw, in_ch, hidden, 1, post_ops=BN_RELU))
            layers.append(depthwise(f"{p}.depthwise", hw, hidden, 3, stride=stride, padding=1,
                                    post_ops=BN_RELU))
            hw = conv_out(hw, 3, stride, 1)
            # Linear bottleneck: no activation; a skip connection when shape is kept.
            skip = stride == 1 and in_ch == c
            layers.append(conv(f"{p}.project", hw, hidden, c, 1,
                               post_ops=BN + (["residual_add"] if skip else [])))
            in_ch, idx = c, idx + 1
    assert hw == 7 and idx == 18
    layers.append(conv("features.18", hw, in_ch, 1280, 1, post_ops=BN_RELU))
    layers.append(fc("classifier", 1280, 1000, post_ops=BIAS))  # after global average pooling
    return network(
        "MobileNetV2",
        "Sandler, Howard, Zhu, Zhmoginov, Chen, 'MobileNetV2: Inverted residuals and linear "
        "bottlenecks', CVPR 2018, Table 2 (width 1.0, 224x224); layer indices follow "
        "torchvision.models.mobilenet_v2",
        "MobileNetV2 1.0 at 224x224x3: first 3x3/2 conv, 17 inverted residual blocks "
        "(1x1 expand, 3x3 depthwise, 1x1 project; no expand when t = 1), final 1x1 conv to "
        "1280, fc. Batch norm, ReLU6 (as relu), residual additions and the classifier bias "
        "are post_ops; pooling and the classifier's input dropout are not modelled.",
        layers)


def bert_base(seq):
    hidden, heads, head_dim, ffn = 768, 12, 64, 3072
    # Hugging Face BertSelfOutput / BertOutput: LayerNorm(dropout(dense(x)) + input).
    add_norm = ["bias", "dropout", "residual_add", "layernorm"]
    layers = [
        gemm("query", seq, hidden, hidden, post_ops=BIAS),
        gemm("key", seq, hidden, hidden, post_ops=BIAS),
        gemm("value", seq, hidden, hidden, post_ops=BIAS),
        gemm("attention_scores", seq, seq, head_dim, groups=heads, post_ops=["softmax", "dropout"],
             comment="Q K^T per head: [S x 64] * [64 x S]; the 1/sqrt(64) scale and the mask are "
                     "folded into the softmax"),
        gemm("attention_context", seq, head_dim, seq, groups=heads,
             comment="softmax(scores) V per head: [S x S] * [S x 64]"),
        gemm("attention_output", seq, hidden, hidden, post_ops=add_norm),
        gemm("ffn_intermediate", seq, ffn, hidden, post_ops=["bias", "gelu"]),
        gemm("ffn_output", seq, hidden, ffn, post_ops=add_norm),
    ]
    return network(
        f"BERT-base encoder layer, sequence {seq}",
        "Devlin, Chang, Lee, Toutanova, 'BERT: Pre-training of deep bidirectional "
        "transformers for language understanding', NAACL 2019 (BERT-base: hidden 768, 12 "
        "heads, FFN 3072); GEMM order of google-research/bert modeling.py and Hugging Face "
        "transformers BertLayer",
        f"The GEMMs of ONE BERT-base encoder layer at sequence length {seq}, batch 1 "
        "(the full model repeats it 12 times). Biases, softmax, dropout, residual additions, "
        "layer norm and GELU are post_ops; the embedding and pooler are not modelled.",
        layers)


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, "workloads", "networks")
    os.makedirs(out_dir, exist_ok=True)
    files = {
        "lenet5.json": lenet5(),
        "alexnet.json": alexnet(),
        "vgg16.json": vgg16(),
        "resnet50.json": resnet50(),
        "mobilenetv2.json": mobilenetv2(),
        "bert_base_seq128.json": bert_base(128),
        "bert_base_seq512.json": bert_base(512),
    }
    for file_name, net in files.items():
        # One layer per line: compact enough to scan, and diffs stay per layer.
        head = json.dumps({k: v for k, v in net.items() if k != "layers"}, indent=2)
        body = ",\n".join("    " + json.dumps(layer) for layer in net["layers"])
        text = head[:-2] + ',\n  "layers": [\n' + body + "\n  ]\n}\n"
        json.loads(text)  # the hand-joined text must still be valid JSON
        with open(os.path.join(out_dir, file_name), "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {file_name}: {len(net['layers'])} layers")


if __name__ == "__main__":
    main()
