// Published figures loom compares its own with, by name: datasheet peaks (computed from the
// GPU config, so a wrong clock or unit count in a config shows up here) and application
// rates. A measurement file's "figures" entries must use one of these names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "arch/simt/gpu_config.h"

namespace loom::validate {

struct FigureDef {
  std::string name;
  std::string unit;
  std::string summary;
};
const std::vector<FigureDef>& published_figure_catalog();
const FigureDef* find_published_figure(const std::string& name);

// loom's value of the figure for `config`, or nullopt with `why_not` saying what loom
// lacks to compute it.
std::optional<double> loom_figure(const std::string& name, const simt::GpuConfig& config, std::string& why_not);

}  // namespace loom::validate
