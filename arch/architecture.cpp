#include "arch/architecture.h"

#include <filesystem>

#include "sim/energy_table.h"
#include "sim/error.h"

namespace loom {

const std::string& Architecture::name() const {
  if (is_gpu()) return gpu().name;
  return is_hierarchy() ? hierarchy().name : systolic().name;
}

const char* Architecture::kind_name() const {
  if (is_gpu()) return "gpu";
  return is_hierarchy() ? "hierarchy" : "systolic";
}

const std::string& Architecture::source_file() const {
  if (is_gpu()) return gpu().source_file;
  return is_hierarchy() ? hierarchy().source_file : systolic().source_file;
}

Json Architecture::to_json() const {
  if (is_gpu()) return simt::gpu_config_to_json(gpu());
  return is_hierarchy() ? hierarchy().to_json() : systolic().to_json();
}

Architecture load_architecture(const std::string& path) {
  namespace fs = std::filesystem;
  if (fs::path(path).extension() != ".json") return {load_systolic_config(path)};  // .cfg, or its error
  return parse_architecture(load_json_file(path), path, fs::path(path).parent_path().string());
}

Architecture parse_architecture(const Json& json, const std::string& path, const std::string& base_dir) {
  // Each parser re-reads "kind" strictly; here it only picks the parser.
  const auto kind = json.is_object() ? json.find("kind") : json.end();
  if (json.is_object() && kind != json.end() && kind->is_string() && *kind == "hierarchy") {
    return {parse_hierarchy_json(json, path, base_dir)};
  }
  if (json.is_object() && kind != json.end() && kind->is_string() && *kind == "gpu") {
    return {simt::parse_gpu_config(json, path)};
  }
  if (json.is_object() && kind != json.end() && !(kind->is_string() && *kind == "systolic")) {
    throw InputError(path, "kind",
                     "expected \"systolic\" (the default), \"hierarchy\" or \"gpu\", got " + kind->dump());
  }
  return {parse_systolic_json(json, path, base_dir)};
}

HierarchyConfig as_hierarchy(const Architecture& arch) {
  if (arch.is_hierarchy()) return arch.hierarchy();
  if (arch.is_gpu()) {
    throw InputError(arch.gpu().source_file, "kind",
                     "a storage hierarchy or systolic array for the mapper; \"gpu\" architectures run kernels "
                     "(`loom gpu`, or `loom run` for a network through the shipped kernels)");
  }
  const SystolicConfig& s = arch.systolic();
  return hierarchy_from_systolic(s, EnergyTable::load(s.energy_table));
}

}  // namespace loom
