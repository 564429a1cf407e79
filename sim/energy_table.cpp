#include "sim/energy_table.h"

#include <algorithm>
#include <cmath>

#include "sim/embedded_files.h"
#include "sim/error.h"

namespace loom {

EnergyTable EnergyTable::load(const std::string& path) {
  const std::string prefix = "<embedded>:";
  if (path.rfind(prefix, 0) == 0) {
    const std::string_view text = embedded_file(path.substr(prefix.size()));
    if (text.empty()) throw InputError(path, "energy_table", "no such embedded energy table");
    return parse(Json::parse(text), path);
  }
  return parse(load_json_file(path), path);
}

EnergyTable EnergyTable::parse(const Json& json, const std::string& file) {
  JsonReader r(json, file, "");
  EnergyTable t;
  t.file_ = file;
  r.choice("schema", {"loom-energy/1"}, "loom-energy/1");
  t.name_ = r.string("name");
  r.positive_number("technology_nm");
  r.number("voltage_v", 0);
  r.string("description", "");
  r.string("sram_rule", "");
  r.string("cross_check", "");
  r.value("sources");

  JsonReader macs = r.object("mac_pj");
  for (DataType d : kAllDataTypes) {
    if (!macs.has(name_of(d))) continue;
    JsonReader e = macs.object(name_of(d));
    const auto i = static_cast<size_t>(d);
    t.mac_pj_[i] = e.positive_number("pj");
    t.has_mac_[i] = true;
    e.value("sources");
    e.string("derivation", "");
    e.finish();
  }
  macs.finish();

  const Json& sram = r.value("sram_pj_per_64b_access");
  if (!sram.is_array() || sram.empty()) r.fail("sram_pj_per_64b_access", "expected a non-empty array of points");
  for (JsonReader& p : r.array_of_objects("sram_pj_per_64b_access")) {
    t.sram_.push_back({static_cast<double>(p.positive_integer("capacity_bytes")), p.positive_number("pj")});
    p.string("source", "");
    p.string("note", "");
    p.finish();
  }
  std::sort(t.sram_.begin(), t.sram_.end(),
            [](const SramPoint& a, const SramPoint& b) { return a.capacity_bytes < b.capacity_bytes; });
  for (size_t i = 1; i < t.sram_.size(); ++i) {
    if (t.sram_[i].capacity_bytes == t.sram_[i - 1].capacity_bytes) {
      r.fail("sram_pj_per_64b_access", "two points have the same capacity_bytes (" +
                                           Json(t.sram_[i].capacity_bytes).dump() + "); capacities must differ");
    }
  }

  const Json& dram = r.value("dram_pj_per_bit");
  if (!dram.is_object()) r.fail("dram_pj_per_bit", "expected an object technology -> {pj, source}");
  JsonReader dr(dram, file, "dram_pj_per_bit");
  for (auto it = dram.begin(); it != dram.end(); ++it) {
    JsonReader e = dr.object(it.key());
    t.dram_pj_per_bit_[it.key()] = e.positive_number("pj");
    e.string("source", "");
    e.finish();
  }
  r.finish();
  return t;
}

double EnergyTable::mac_pj(DataType d) const {
  const auto i = static_cast<size_t>(d);
  if (!has_mac_[i]) {
    throw InputError(file_, std::string("mac_pj.") + name_of(d), "the energy table has no MAC energy for this data type");
  }
  return mac_pj_[i];
}

double EnergyTable::sram_access_pj(int64_t capacity_bytes, int word_bits) const {
  const double cap = std::max<double>(1.0, static_cast<double>(capacity_bytes));
  double pj64 = sram_.front().pj_per_64b;
  if (sram_.size() > 1) {
    // Pick the segment containing cap (or the nearest end segment); energy follows a power
    // law in capacity between points, so interpolate log(energy) over log(capacity).
    size_t hi = 1;
    while (hi + 1 < sram_.size() && cap > sram_[hi].capacity_bytes) ++hi;
    const SramPoint& a = sram_[hi - 1];
    const SramPoint& b = sram_[hi];
    const double x = (std::log(cap) - std::log(a.capacity_bytes)) /
                     (std::log(b.capacity_bytes) - std::log(a.capacity_bytes));
    pj64 = std::exp(std::log(a.pj_per_64b) + x * (std::log(b.pj_per_64b) - std::log(a.pj_per_64b)));
  }
  return pj64 * word_bits / 64.0;
}

double EnergyTable::dram_pj_per_byte(const std::string& technology) const {
  auto it = dram_pj_per_bit_.find(technology);
  if (it == dram_pj_per_bit_.end()) {
    throw InputError(file_, "dram_pj_per_bit." + technology, "the energy table has no DRAM energy for this technology");
  }
  return it->second * 8.0;
}

}  // namespace loom
