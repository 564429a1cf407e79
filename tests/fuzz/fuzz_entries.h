// One entry per input parser, shared by the libFuzzer targets (tests/fuzz/fuzz_<name>.cpp)
// and the regression test that replays the corpora and every crash found
// (tests/test_fuzz_regressions.cpp). An entry feeds its bytes to the parser and returns
// normally when the parser accepts them or rejects them with InputError, the one way bad
// input may fail; anything else (another exception, a sanitizer report) escapes and is a bug.
#pragma once

#include <string_view>
#include <vector>

namespace loom::fuzz {

void fuzz_architecture(std::string_view bytes);   // parse_architecture: systolic, hierarchy, GPU
void fuzz_workload(std::string_view bytes);       // parse_network_json
void fuzz_scalesim_csv(std::string_view bytes);   // parse_scalesim_csv
void fuzz_scalesim_cfg(std::string_view bytes);   // parse_scalesim_cfg
void fuzz_sweep_spec(std::string_view bytes);     // parse_sweep_spec (paths from the repo root)
void fuzz_ptx(std::string_view bytes);            // parse_ptx, then decode_kernel of every entry
void fuzz_measurements(std::string_view bytes);   // validate::parse_measurements
void fuzz_system(std::string_view bytes);         // parse_system (paths from configs/systems)
void fuzz_link_presets(std::string_view bytes);   // parse_link_presets
void fuzz_mapping(std::string_view bytes);        // parse_mapping_json, one conv layer on Eyeriss
void fuzz_energy_table(std::string_view bytes);   // EnergyTable::parse
void fuzz_tech_scaling(std::string_view bytes);   // TechnologyScaling::parse
void fuzz_area_table(std::string_view bytes);     // parse_area_table
void fuzz_simt_energy(std::string_view bytes);    // simt::parse_simt_energy_table

// Every entry by its target name: tests/fuzz/corpus/<name>/ and tests/fuzz/regressions/<name>/
// hold its inputs.
struct FuzzTarget {
  const char* name;
  void (*entry)(std::string_view bytes);
};
const std::vector<FuzzTarget>& fuzz_targets();

}  // namespace loom::fuzz
