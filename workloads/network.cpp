#include "workloads/network.h"

#include <algorithm>
#include <optional>
#include <set>

#include "sim/error.h"
#include "sim/text_file.h"

namespace loom {

int64_t Network::total_macs() const {
  int64_t total = 0;
  for (const Layer& l : layers) total += l.macs();
  return total;
}

std::string network_size_error(const Network& net) {
  // Each layer is at most kMaxLayerMacs, so the sum is kept in 128 bits until it is checked.
  __int128 total = 0;
  for (const Layer& l : net.layers) total += l.macs();
  if (total <= kMaxNetworkMacs) return "";
  return "the network has " + Json(static_cast<double>(total)).dump() +
         " MACs in all; loom accepts networks up to 10^18 MACs (its totals are 64-bit integers)";
}

std::string layer_name_preview(const Network& net, size_t shown) {
  shown = std::min(net.layers.size(), shown);
  std::string s;
  for (size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + net.layers[i].name;
  if (net.layers.size() > shown) s += ", ... (" + std::to_string(net.layers.size() - shown) + " more)";
  return s;
}

namespace {

// "post_ops": ["batchnorm", "relu"]: names from kPostOpNames, applied in order.
std::vector<PostOp> parse_post_ops(JsonReader& r) {
  std::vector<PostOp> ops;
  const Json* v = r.optional_value("post_ops");
  if (!v) return ops;
  const std::string rule = std::string("an array of post-op names, each one of ") + kPostOpNames;
  if (!v->is_array()) r.fail("post_ops", "expected " + rule + ", got " + v->dump().substr(0, 40));
  for (size_t i = 0; i < v->size(); ++i) {
    const Json& item = (*v)[i];
    const std::optional<PostOp> op = item.is_string() ? parse_post_op(item.get<std::string>()) : std::nullopt;
    if (!op) {
      throw InputError(r.file(), r.field("post_ops") + "[" + std::to_string(i) + "]",
                       std::string("expected one of ") + kPostOpNames + ", got " + item.dump().substr(0, 40));
    }
    ops.push_back(*op);
  }
  return ops;
}

Layer parse_layer(JsonReader& r, int64_t batch) {
  Layer l;
  l.batch = batch;
  l.name = r.string("name");
  if (l.name.empty()) r.fail("name", "expected a non-empty layer name");
  const std::string type = r.choice("type", {"conv2d", "depthwise_conv2d", "gemm", "fc"});
  if (type == "conv2d" || type == "depthwise_conv2d") {
    l.kind = LayerKind::conv2d;
    Conv2d& c = l.conv;
    std::tie(c.in_h, c.in_w) = r.integer_pair("input_hw", 1);
    c.in_channels = r.positive_integer("in_channels");
    c.out_channels = r.positive_integer("out_channels");
    std::tie(c.kernel_h, c.kernel_w) = r.integer_pair("kernel", 1);
    std::tie(c.stride_h, c.stride_w) = r.integer_pair("stride", 1, {1, 1});
    std::tie(c.pad_h, c.pad_w) = r.integer_pair("padding", 0, {0, 0});
    std::tie(c.dilation_h, c.dilation_w) = r.integer_pair("dilation", 1, {1, 1});
    c.groups = r.positive_integer("groups", type == "depthwise_conv2d" ? c.in_channels : 1);
    if (type == "depthwise_conv2d" && c.groups != c.in_channels) {
      r.fail("groups", "a depthwise_conv2d has groups == in_channels (" +
                           std::to_string(c.in_channels) + ")");
    }
  } else if (type == "gemm") {
    l.kind = LayerKind::gemm;
    l.gemm.m = r.positive_integer("m");
    l.gemm.n = r.positive_integer("n");
    l.gemm.k = r.positive_integer("k");
    l.gemm.groups = r.positive_integer("groups", 1);
  } else {  // fc: one sample per batch row
    l.kind = LayerKind::gemm;
    l.gemm.m = 1;
    l.gemm.k = r.positive_integer("in_features");
    l.gemm.n = r.positive_integer("out_features");
  }
  l.post_ops = parse_post_ops(r);
  r.string("comment", "");  // free text allowed on any layer
  r.finish();
  std::string field;
  const std::string rule = shape_error(l, &field);
  if (!rule.empty()) r.fail(field, "layer '" + l.name + "': " + rule);
  return l;
}

}  // namespace

Network parse_network_json(const Json& json, const std::string& file) {
  JsonReader r(json, file, "");
  Network net;
  net.source_file = file;
  net.name = r.string("name");
  net.source = r.string("source", "");
  r.string("description", "");
  r.choice("schema", {"loom-network/1"}, "loom-network/1");
  net.batch = r.positive_integer("batch", 1);
  if (net.batch > kMaxLayerDimension) r.fail("batch", "must be at most " + std::to_string(kMaxLayerDimension));
  std::set<std::string> names;
  for (JsonReader& lr : r.array_of_objects("layers")) {
    net.layers.push_back(parse_layer(lr, net.batch));
    if (!names.insert(net.layers.back().name).second) {
      lr.fail("name", "duplicate layer name '" + net.layers.back().name + "'");
    }
  }
  if (net.layers.empty()) r.fail("layers", "expected at least one layer");
  r.finish();
  if (const std::string rule = network_size_error(net); !rule.empty()) r.fail("layers", rule);
  return net;
}

Network load_network_json(const std::string& path) {
  return parse_network_json(load_json_file(path), path);
}

Network load_workload(const std::string& path) {
  auto ends_with = [&](const char* ext) {
    const std::string e(ext);
    return path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
  };
  if (ends_with(".json")) return load_network_json(path);
  if (ends_with(".csv")) return parse_scalesim_csv(read_text_file(path), path);
  throw InputError(path, "--workload", "expected a .json network file or a SCALE-Sim .csv topology");
}

}  // namespace loom
