// First-order silicon area of an architecture, from a table of component areas at one
// reference node (configs/area/area_45nm.json, schema "loom-area/1", embedded in the binary
// as "<embedded>:default_area"). Counted: the datapath (MACs, GPU lanes, tensor cores) and
// every on-chip memory; not counted: wiring, I/O, DRAM and its PHYs. Formulas, figures,
// assumptions and the comparison with published dies: docs/area-model.md.
//
// Areas scale with technology as (node / table node)^2, a first-order rule: meant for
// comparing designs at one node (sweep constraints and throughput per area), not for
// predicting a die to better than a factor of a few.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/json_reader.h"

namespace loom {

struct Architecture;

struct AreaBreakdown {
  std::string table;            // area table name
  double technology_nm = 0;     // node the areas are given at
  std::vector<std::pair<std::string, double>> components_mm2;  // e.g. {"pe_array", ...}, {"sram_ifmap", ...}
  double total_mm2() const;
};

// One logic component of the table: `um2` at the table's node for a `bits`-wide unit,
// and how it grows with width.
struct AreaLogic {
  enum class Scaling { quadratic, linear, none };
  double um2 = 0;
  int bits = 1;
  Scaling scaling = Scaling::linear;
  // um2 for a `width`-bit unit: um2 x (width/bits)^2, x width/bits, or um2.
  double at_width(int width) const;
};

// A published die the model is compared against (docs/area-model.md). Not used by area_of.
struct ReferenceDie {
  struct Part {
    std::string name;
    std::vector<std::string> components;  // AreaBreakdown component names it covers
    double fraction = 0;                  // of the die
  };
  std::string name, config, source;       // config: file name under configs/
  double die_mm2 = 0, technology_nm = 0;
  bool die_mm2_is_upper_bound = false;
  int sms_on_die = 0;                     // GPUs: SMs on the full die (0: not given)
  double transistors_billion = 0;         // 0: not given
  std::vector<Part> parts;
};

struct AreaTable {
  std::string name;
  std::string file;             // where it was loaded from ("<embedded>:default_area")
  double technology_nm = 45;    // node of every figure
  AreaLogic int_multiplier, int_adder, register_bit, fp_multiplier, fp_adder, fp64_multiplier,
      fp64_adder, sfu;          // fp_multiplier's bits are significand bits (fp32: 24)
  double sram_bit_cell_um2 = 0;
  double sram_array_efficiency = 1;  // fraction of an SRAM's area that is bit cells
  double accelerator_control_fraction = 0;  // of a systolic/hierarchy total
  double gpu_uncore_fraction = 0;           // of a GPU total
  std::vector<ReferenceDie> reference_dies;

  double sram_um2_per_bit() const { return sram_bit_cell_um2 / sram_array_efficiency; }
  // Factor from the table's node to `nm`: (nm / technology_nm)^2.
  double scale_to(double nm) const;
};

// The area of an architecture from the shipped table (embedded in the binary), scaled to
// the architecture's node: a GPU config's technology_nm; a systolic/hierarchy config's
// energy table node (EnergyTable::technology_nm()) unless it gives none (then the table's).
AreaBreakdown area_of(const Architecture& arch);
AreaBreakdown area_of(const Architecture& arch, const AreaTable& table);
// {"table", "technology_nm", "total_mm2", "components_mm2": {name: mm2}}
Json area_to_json(const AreaBreakdown& area);

// `area` moved to another node: every component x (target_nm / area.technology_nm)^2.
AreaBreakdown scale_area(const AreaBreakdown& area, double target_nm);

// Loaded strictly (unknown keys, negative areas and missing sources are InputErrors naming
// the file and field). `path` is a file or "<embedded>:NAME".
AreaTable load_area_table(const std::string& path);
AreaTable parse_area_table(const Json& json, const std::string& file);
// The embedded configs/area/area_45nm.json, parsed once (thread-safe: function-local static).
const AreaTable& default_area_table();

}  // namespace loom
