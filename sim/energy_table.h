// Per-event energies, loaded once from a JSON table in configs/energy/ (schema in
// docs/energy-tables.md). Models only count events; this table prices them.
//
// A table has up to four parts, each optional except the MAC energies: MAC energy per data
// type, an SRAM energy-versus-capacity curve, DRAM energy per bit per technology, and named
// components (a fixed energy per access of a word of a given width, e.g. "glb" or "rf" in
// a relative table such as Eyeriss's). A part that is missing is an error only when an
// architecture actually needs it, and that error names the table and the missing field.
//
// Technology scaling (TechnologyScaling, configs/energy/technology_scaling.json) moves a
// table from its own node to another one by multiplying its on-chip energies by one factor.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "sim/json_reader.h"
#include "workloads/data_type.h"

namespace loom {

// The rule that scales dynamic energy between CMOS nodes (docs/energy-tables.md#technology-scaling):
// each listed node has a polynomial E(V) = a V^2 + b V + c of relative energy per operation
// versus supply voltage; the factor from node f to node t is E_t(V) / E_f(V) at the rule's
// reference voltage, with E interpolated linearly in feature size between listed nodes.
class TechnologyScaling {
 public:
  static TechnologyScaling load(const std::string& path);
  static TechnologyScaling parse(const Json& json, const std::string& file);
  // configs/energy/technology_scaling.json, compiled into the binary ("<embedded>:technology_scaling").
  static std::string default_path();

  const std::string& name() const { return name_; }
  const std::string& file() const { return file_; }
  double vdd_v() const { return vdd_v_; }
  double min_nm() const { return nodes_.front().nm; }
  double max_nm() const { return nodes_.back().nm; }
  bool covers(double nm) const { return nm >= min_nm() && nm <= max_nm(); }
  // Relative energy per operation at `nm` (interpolated), at the reference voltage.
  double relative_energy(double nm) const;
  // Multiplier for energies moved from `from_nm` to `to_nm`; InputError outside the range.
  double factor(double from_nm, double to_nm) const;

 private:
  struct Node { double nm, a, b, c; };
  std::string name_, file_;
  double vdd_v_ = 0;
  std::vector<Node> nodes_;  // ascending nm
};

class EnergyTable {
 public:
  // `path` is a file, or "<embedded>:NAME" for a table compiled into the binary.
  static EnergyTable load(const std::string& path);
  static EnergyTable parse(const Json& json, const std::string& file);

  const std::string& name() const { return name_; }
  const std::string& file() const { return file_; }
  // Energies are in this unit: "pJ" unless the table is relative (e.g. Eyeriss's table,
  // whose unit is the energy of one 16-bit MAC). Every accessor below returns this unit.
  const std::string& unit() const { return unit_; }
  double technology_nm() const { return technology_nm_; }
  double voltage_v() const { return voltage_v_; }
  // Product of every technology-scaling factor applied to the file's values (1 if none).
  double scale_factor() const { return scale_factor_; }

  bool has_mac(DataType t) const { return has_mac_[static_cast<size_t>(t)]; }
  double mac_pj(DataType t) const;
  // One access of a `word_bits` word in an SRAM bank of `capacity_bytes`. InputError
  // (naming the table and sram_pj_per_64b_access) if the table has no SRAM curve.
  bool has_sram_curve() const { return !sram_.empty(); }
  double sram_access_pj(int64_t capacity_bytes, int word_bits) const;
  // Throws InputError (naming the table) when the technology is not in it.
  bool has_dram(const std::string& technology) const { return dram_pj_per_bit_.count(technology) > 0; }
  double dram_pj_per_byte(const std::string& technology) const;
  // A named component: its energy per access scaled linearly to a `bits`-wide word
  // (pj * bits / component bits). InputError naming components.<name> if it is missing.
  bool has_component(const std::string& name) const { return components_.count(name) > 0; }
  double component_pj(const std::string& name, int bits) const;

  // This table moved to `target_nm`: MAC, SRAM and on-chip component energies times
  // rule.factor(technology_nm(), target_nm); DRAM energies and off-chip components are
  // unchanged (they belong to the DRAM device, not to the accelerator's logic node).
  EnergyTable scaled_to(double target_nm, const TechnologyScaling& rule) const;
  // Same, with the shipped rule (TechnologyScaling::default_path()).
  EnergyTable scaled_to(double target_nm) const;

 private:
  struct SramPoint { double capacity_bytes, pj_per_64b; };
  struct Component { double pj; int bits; bool off_chip; };
  std::string name_, file_, unit_ = "pJ";
  double technology_nm_ = 0, voltage_v_ = 0, scale_factor_ = 1;
  std::array<double, kAllDataTypes.size()> mac_pj_{};
  std::array<bool, kAllDataTypes.size()> has_mac_{};
  std::vector<SramPoint> sram_;
  std::map<std::string, double> dram_pj_per_bit_;
  std::map<std::string, Component> components_;
};

// Resolves an architecture's `energy_table` entry: "<embedded>:NAME" as is; a relative
// path beside the architecture file (`base_dir`), failing that in loom's own configs/
// folder, so the shipped configs work from any directory. Returned absolute, so
// resolved_config.json works from anywhere (docs/arch-schema.md).
std::string resolve_energy_table_path(const std::string& name, const std::string& base_dir);

}  // namespace loom
