// Per-event energies, loaded once from a JSON table in configs/energy/ (schema in
// docs/energy-tables.md). Models only count events; this table prices them.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "sim/json_reader.h"
#include "workloads/data_type.h"

namespace loom {

class EnergyTable {
 public:
  // `path` is a file, or "<embedded>:NAME" for a table compiled into the binary.
  static EnergyTable load(const std::string& path);
  static EnergyTable parse(const Json& json, const std::string& file);

  const std::string& name() const { return name_; }
  const std::string& file() const { return file_; }
  double mac_pj(DataType t) const;
  // One access of a `word_bits` word in an SRAM bank of `capacity_bytes`.
  double sram_access_pj(int64_t capacity_bytes, int word_bits) const;
  // Throws InputError (naming the table) when the technology is not in it.
  double dram_pj_per_byte(const std::string& technology) const;

 private:
  struct SramPoint { double capacity_bytes, pj_per_64b; };
  std::string name_, file_;
  std::array<double, kAllDataTypes.size()> mac_pj_{};
  std::array<bool, kAllDataTypes.size()> has_mac_{};
  std::vector<SramPoint> sram_;
  std::map<std::string, double> dram_pj_per_bit_;
};

}  // namespace loom
