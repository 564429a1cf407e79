#include "apps/roofline_command.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/map_command.h"
#include "apps/svg_charts.h"
#include "mapper/network_evaluation.h"
#include "sim/text_format.h"

namespace loom {

void add_roofline_command(CLI::App& app, RooflineArgs& args) {
  CLI::App* r = app.add_subcommand("roofline", "Roofline analysis of a network on an architecture: roofs, ridge "
                                               "points, and each layer's intensity, performance and bound");
  r->add_option("--arch", args.arch, "Architecture (default: embedded 128x128 WS TPU-like array)");
  r->add_option("--workload", args.workload, "Network (default: embedded ResNet-50)");
  r->add_option("--fidelity", args.fidelity, "analytic (fast) or cycle")
      ->check(CLI::IsMember({"analytic", "cycle"}))
      ->capture_default_str();
  r->add_option("--precision", args.precision, "GPU architectures: fp16 (tensor cores) or fp32")
      ->check(CLI::IsMember({"fp16", "fp32"}))
      ->capture_default_str();
}

namespace {

std::string intensity_text(double flops, double bytes) {
  if (bytes <= 0) return "inf";
  char t[32];
  std::snprintf(t, sizeof t, "%.3g", flops / bytes);
  return t;
}

}  // namespace

int roofline_command(const RooflineArgs& args) {
  const Architecture arch = load_arch_or_default(args.arch);
  const Network network = load_network_or_default(args.workload);
  EvaluationOptions options;
  options.gpu_precision = args.precision;
  const NetworkEvaluation e =
      evaluate_network(arch, network, args.fidelity == "cycle" ? Fidelity::cycle : Fidelity::analytic, options);
  const Roofs& roofs = e.roofs;
  std::string out;
  append_format(out, "%s on %s (%s, %s fidelity)\n\n", network.name.c_str(), e.arch_name.c_str(), e.arch_kind.c_str(),
                name_of(e.fidelity));
  append_format(out, "%-16s %16s\n", "compute roof", "peak");
  for (const ComputeRoof& c : roofs.compute) {
    append_format(out, "%-16s %16s\n", c.name.c_str(), si_format(c.flops_per_second, "FLOP/s").c_str());
  }
  const double peak = roofs.peak_flops_per_second();
  append_format(out, "\n%-16s %16s %22s\n", "bandwidth roof", "peak", "ridge FLOP/byte");
  for (const BandwidthRoof& b : roofs.bandwidth) {
    append_format(out, "%-16s %16s %22.4g\n", b.level.c_str(), si_format(b.bytes_per_second, "B/s").c_str(),
                  peak / b.bytes_per_second);
  }
  size_t w = 5;
  for (const LayerEvaluation& l : e.layers) w = std::max(w, l.name.size());
  const int lw = static_cast<int>(w);
  append_format(out, "\n%-*s %12s %12s %10s %14s %14s %7s %7s\n", lw, "layer", "FLOP", "DRAM bytes", "FLOP/B",
                "achieved", "attainable", "% roof", "bound");
  int64_t memory_bound = 0;
  auto row = [&](const LayerEvaluation& l) {
    const RooflinePlacement p = roofline_placement(l.flops(), l.bytes_at("dram"), l.seconds, roofs);
    if (l.kind != "network" && p.bound == "memory") ++memory_bound;
    const double share = p.attainable_flops_per_second > 0 ? 100.0 * p.achieved_flops_per_second / p.attainable_flops_per_second : 0.0;
    append_format(out, "%-*s %12s %12s %10s %14s %14s %6.1f%% %7s\n", lw, l.name.c_str(),
                  si_format(l.flops(), "").c_str(), si_format(l.bytes_at("dram"), "").c_str(),
                  intensity_text(l.flops(), l.bytes_at("dram")).c_str(),
                  si_format(p.achieved_flops_per_second, "FLOP/s").c_str(),
                  si_format(p.attainable_flops_per_second, "FLOP/s").c_str(), share, p.bound.c_str());
  };
  for (const LayerEvaluation& l : e.layers) row(l);
  row(e.totals());
  append_format(out, "\n%lld of %zu layers are memory-bound at this architecture's DRAM bandwidth\n",
                static_cast<long long>(memory_bound), e.layers.size());
  std::cout << out;
  return 0;
}

}  // namespace loom
