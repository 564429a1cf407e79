// One entry point for every architecture file: a systolic array (arch/systolic/, also
// SCALE-Sim .cfg), a general storage hierarchy (arch/hierarchy/) or a SIMT GPU
// (arch/simt/). The JSON "kind" decides ("systolic" when absent); the mapper sees the first
// two as a HierarchyConfig.
#pragma once

#include <string>
#include <variant>

#include "arch/hierarchy/hierarchy_config.h"
#include "arch/simt/gpu_config.h"
#include "arch/systolic/systolic_config.h"

namespace loom {

struct Architecture {
  std::variant<SystolicConfig, HierarchyConfig, simt::GpuConfig> config;

  bool is_hierarchy() const { return std::holds_alternative<HierarchyConfig>(config); }
  bool is_gpu() const { return std::holds_alternative<simt::GpuConfig>(config); }
  const simt::GpuConfig& gpu() const { return std::get<simt::GpuConfig>(config); }
  const SystolicConfig& systolic() const { return std::get<SystolicConfig>(config); }
  const HierarchyConfig& hierarchy() const { return std::get<HierarchyConfig>(config); }
  const std::string& name() const;
  const char* kind_name() const;           // "systolic", "hierarchy" or "gpu"
  const std::string& source_file() const;  // the file it was loaded from
  Json to_json() const;  // the fully resolved config (resolved_config.json)
};

// .cfg: SCALE-Sim; .json: by "kind". InputError names the file and field on bad input.
Architecture load_architecture(const std::string& path);
// The same for a JSON document already in memory (sweeps build one per design point);
// `file` names it in errors, `base_dir` resolves its relative paths.
Architecture parse_architecture(const Json& json, const std::string& file, const std::string& base_dir);
// The hierarchy view: as is, or a systolic config converted with its own energy table.
// A GPU has none (InputError: it runs kernels, see `loom gpu`).
HierarchyConfig as_hierarchy(const Architecture& arch);

}  // namespace loom
