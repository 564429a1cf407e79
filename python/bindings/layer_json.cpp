#include "python/bindings/layer_json.h"

namespace loom::python {

Json layer_to_json(const Layer& l) {
  const GemmView g = l.gemm_view();
  Json j = {{"name", l.name},
            {"kind", l.kind_name()},
            {"batch", l.batch},
            {"macs", l.macs()},
            {"gemm_view", {{"m", g.m}, {"n", g.n}, {"k", g.k}, {"groups", g.groups}}},
            {"elements", {{"ifmap", l.ifmap_elements()}, {"filter", l.filter_elements()}, {"ofmap", l.ofmap_elements()}}}};
  if (l.kind == LayerKind::conv2d) {
    const Conv2d& c = l.conv;
    j["conv"] = {{"in_h", c.in_h},         {"in_w", c.in_w},         {"in_channels", c.in_channels},
                 {"out_channels", c.out_channels}, {"kernel_h", c.kernel_h}, {"kernel_w", c.kernel_w},
                 {"stride_h", c.stride_h}, {"stride_w", c.stride_w}, {"pad_h", c.pad_h},
                 {"pad_w", c.pad_w},       {"dilation_h", c.dilation_h}, {"dilation_w", c.dilation_w},
                 {"groups", c.groups},     {"out_h", l.out_h()},     {"out_w", l.out_w()}};
  } else {
    j["gemm"] = {{"m", l.gemm.m}, {"n", l.gemm.n}, {"k", l.gemm.k}, {"groups", l.gemm.groups}};
  }
  return j;
}

Json network_to_json(const Network& n) {
  Json layers = Json::array();
  for (const Layer& l : n.layers) layers.push_back(layer_to_json(l));
  return {{"name", n.name},   {"source", n.source},        {"file", n.source_file},
          {"batch", n.batch}, {"macs", n.total_macs()}, {"layers", layers}};
}

}  // namespace loom::python
