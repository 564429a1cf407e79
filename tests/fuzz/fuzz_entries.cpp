#include "tests/fuzz/fuzz_entries.h"

#include <string>

#include "arch/architecture.h"
#include "arch/area_model.h"
#include "arch/simt/gpu_energy.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "arch/simt/ptx/ptx_parser.h"
#include "arch/system/system_config.h"
#include "arch/systolic/systolic_config.h"
#include "mapper/mapping.h"
#include "sim/energy_table.h"
#include "sim/error.h"
#include "sim/json_reader.h"
#include "sweep/sweep_spec.h"
#include "validate/measurements.h"
#include "workloads/network.h"

namespace loom::fuzz {

namespace {

// Relative paths inside fuzzed documents resolve where the shipped files they were copied
// from live, so seeds that name shipped configs and workloads parse as they do there.
const std::string kRepo = LOOM_SOURCE_DIR;

// Runs `parse` on the bytes as text; InputError is the accepted way to reject them.
template <class Parse>
void on_text(std::string_view bytes, Parse&& parse) {
  try {
    parse(std::string(bytes));
  } catch (const InputError&) {
  }
}

// The same for JSON documents: syntax errors are InputErrors of parse_json_text, exactly as
// for a file, so the fuzzer also checks that no JSON text escapes it another way.
template <class Parse>
void on_json(std::string_view bytes, const std::string& file, Parse&& parse) {
  on_text(bytes, [&](const std::string& text) { parse(parse_json_text(text, file)); });
}

// The pinned-mapping parser needs a layer and a hierarchy: one conv layer on the shipped
// Eyeriss-like architecture, loaded once.
const HierarchyConfig& mapping_arch() {
  static const HierarchyConfig arch = as_hierarchy(load_architecture(kRepo + "/configs/eyeriss_like_rs.json"));
  return arch;
}

Problem mapping_problem() {
  Problem p;
  p.layer_name = "conv";
  p.bound = {2, 64, 32, 28, 28, 3, 3};  // N K C P Q R S
  return p;
}

}  // namespace

void fuzz_architecture(std::string_view bytes) {
  on_json(bytes, "fuzz_arch.json", [](const Json& j) { (void)parse_architecture(j, "fuzz_arch.json", kRepo + "/configs"); });
}

void fuzz_workload(std::string_view bytes) {
  on_json(bytes, "fuzz_net.json", [](const Json& j) { (void)parse_network_json(j, "fuzz_net.json"); });
}

void fuzz_scalesim_csv(std::string_view bytes) {
  on_text(bytes, [](const std::string& t) { (void)parse_scalesim_csv(t, "fuzz_topology.csv"); });
}

void fuzz_scalesim_cfg(std::string_view bytes) {
  on_text(bytes, [](const std::string& t) { (void)parse_scalesim_cfg(t, "fuzz.cfg"); });
}

void fuzz_sweep_spec(std::string_view bytes) {
  on_json(bytes, "fuzz_sweep.json", [](const Json& j) { (void)parse_sweep_spec(j, "fuzz_sweep.json", kRepo); });
}

void fuzz_ptx(std::string_view bytes) {
  on_text(bytes, [](const std::string& t) {
    const simt::PtxModule module = simt::parse_ptx(t, "fuzz.ptx");
    for (const simt::PtxEntry& entry : module.entries) (void)simt::decode_kernel(module, entry.name);
  });
}

void fuzz_measurements(std::string_view bytes) {
  on_json(bytes, "fuzz_measured.json",
          [](const Json& j) { (void)validate::parse_measurements(j, "fuzz_measured.json"); });
}

void fuzz_system(std::string_view bytes) {
  on_json(bytes, "fuzz_system.json",
          [](const Json& j) { (void)parse_system(j, "fuzz_system.json", kRepo + "/configs/systems"); });
}

void fuzz_link_presets(std::string_view bytes) {
  on_json(bytes, "fuzz_links.json", [](const Json& j) { (void)parse_link_presets(j, "fuzz_links.json"); });
}

void fuzz_mapping(std::string_view bytes) {
  const HierarchyConfig& arch = mapping_arch();
  on_json(bytes, "fuzz_mapping.json",
          [&](const Json& j) { (void)parse_mapping_json(j, "fuzz_mapping.json", mapping_problem(), arch); });
}

void fuzz_energy_table(std::string_view bytes) {
  on_json(bytes, "fuzz_energy.json", [](const Json& j) { (void)EnergyTable::parse(j, "fuzz_energy.json"); });
}

void fuzz_tech_scaling(std::string_view bytes) {
  on_json(bytes, "fuzz_scaling.json", [](const Json& j) { (void)TechnologyScaling::parse(j, "fuzz_scaling.json"); });
}

void fuzz_area_table(std::string_view bytes) {
  on_json(bytes, "fuzz_area.json", [](const Json& j) { (void)parse_area_table(j, "fuzz_area.json"); });
}

void fuzz_simt_energy(std::string_view bytes) {
  on_json(bytes, "fuzz_simt_energy.json",
          [](const Json& j) { (void)simt::parse_simt_energy_table(j, "fuzz_simt_energy.json"); });
}

const std::vector<FuzzTarget>& fuzz_targets() {
  static const std::vector<FuzzTarget> targets = {
      {"architecture", fuzz_architecture},   {"workload", fuzz_workload},
      {"scalesim_csv", fuzz_scalesim_csv},   {"scalesim_cfg", fuzz_scalesim_cfg},
      {"sweep_spec", fuzz_sweep_spec},       {"ptx", fuzz_ptx},
      {"measurements", fuzz_measurements},   {"system", fuzz_system},
      {"link_presets", fuzz_link_presets},   {"mapping", fuzz_mapping},
      {"energy_table", fuzz_energy_table},   {"tech_scaling", fuzz_tech_scaling},
      {"area_table", fuzz_area_table},       {"simt_energy", fuzz_simt_energy},
  };
  return targets;
}

}  // namespace loom::fuzz
