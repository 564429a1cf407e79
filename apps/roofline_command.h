// `loom roofline --arch A --workload W`: the roofline analysis as tables — the
// architecture's compute roofs and bandwidth roofs with their ridge points, then every
// layer's operational intensity, achieved and attainable performance and its bound.
// The same numbers as the roofline chart of report.html (docs/reports.md).
#pragma once

#include <string>

namespace CLI { class App; }

namespace loom {

struct RooflineArgs {
  std::string arch, workload;
  std::string fidelity = "analytic";
  std::string precision = "fp16";  // gpu architectures
};

void add_roofline_command(CLI::App& app, RooflineArgs& args);
int roofline_command(const RooflineArgs& args);

}  // namespace loom
