#include "sim/energy_table.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "sim/embedded_files.h"
#include "sim/error.h"

namespace loom {

namespace {
// "45 nm", not "45.0 nm": nodes are usually whole numbers.
std::string nm_text(double nm) {
  const bool whole = nm == std::floor(nm) && std::fabs(nm) < 1e15;
  return (whole ? std::to_string(static_cast<int64_t>(nm)) : Json(nm).dump()) + " nm";
}
}  // namespace

// ---------------------------------------------------------------- technology scaling

std::string TechnologyScaling::default_path() { return "<embedded>:technology_scaling"; }

TechnologyScaling TechnologyScaling::load(const std::string& path) {
  const std::string prefix = "<embedded>:";
  if (path.rfind(prefix, 0) == 0) {
    const std::string_view text = embedded_file(path.substr(prefix.size()));
    if (text.empty()) throw InputError(path, "technology_scaling", "no such embedded scaling rule");
    return parse(Json::parse(text), path);
  }
  return parse(load_json_file(path), path);
}

TechnologyScaling TechnologyScaling::parse(const Json& json, const std::string& file) {
  JsonReader r(json, file, "");
  TechnologyScaling s;
  s.file_ = file;
  r.choice("schema", {"loom-scaling/1"}, "loom-scaling/1");
  s.name_ = r.string("name");
  r.string("description", "");
  r.string("rule", "");
  r.string("scaled", "");
  r.string("not_scaled", "");
  r.string("caveats", "");
  r.value("sources");
  s.vdd_v_ = r.positive_number("vdd_v");
  for (JsonReader& n : r.array_of_objects("nodes")) {
    Node node{n.positive_number("nm"), n.number("a"), n.number("b"), n.number("c")};
    n.string("source", "");
    n.finish();
    const double e = node.a * s.vdd_v_ * s.vdd_v_ + node.b * s.vdd_v_ + node.c;
    if (!(e > 0)) {
      r.fail("nodes", "the polynomial of the " + nm_text(node.nm) + " node is not positive at vdd_v (" +
                          Json(e).dump() + "); energies cannot be scaled by it");
    }
    s.nodes_.push_back(node);
  }
  if (s.nodes_.size() < 2) r.fail("nodes", "expected at least two nodes to interpolate between");
  std::sort(s.nodes_.begin(), s.nodes_.end(), [](const Node& a, const Node& b) { return a.nm < b.nm; });
  for (size_t i = 1; i < s.nodes_.size(); ++i) {
    if (s.nodes_[i].nm == s.nodes_[i - 1].nm) r.fail("nodes", "two nodes have the same nm (" + nm_text(s.nodes_[i].nm) + ")");
  }
  r.finish();
  return s;
}

double TechnologyScaling::relative_energy(double nm) const {
  if (!covers(nm)) {
    throw InputError(file_, "nodes", "technology node " + nm_text(nm) + " is outside the scaling rule's range (" +
                                         nm_text(min_nm()) + " to " + nm_text(max_nm()) + ")");
  }
  auto energy = [&](const Node& n) { return n.a * vdd_v_ * vdd_v_ + n.b * vdd_v_ + n.c; };
  size_t hi = 1;
  while (hi + 1 < nodes_.size() && nm > nodes_[hi].nm) ++hi;
  const Node& a = nodes_[hi - 1];
  const Node& b = nodes_[hi];
  // Linear in feature size between the two listed nodes that bracket nm.
  const double x = (nm - a.nm) / (b.nm - a.nm);
  return energy(a) + x * (energy(b) - energy(a));
}

double TechnologyScaling::factor(double from_nm, double to_nm) const {
  return relative_energy(to_nm) / relative_energy(from_nm);
}

// ---------------------------------------------------------------- energy table

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
  t.unit_ = r.string("unit", "pJ");
  if (t.unit_.empty()) r.fail("unit", "expected a non-empty unit name (default \"pJ\")");
  t.technology_nm_ = r.positive_number("technology_nm");
  t.voltage_v_ = r.number("voltage_v", 0);
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

  // Optional since relative tables (Eyeriss) price storage by named components instead;
  // sram_access_pj reports its absence when a level actually needs the curve.
  if (r.has("sram_pj_per_64b_access")) {
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
  }

  if (const Json* dram = r.optional_value("dram_pj_per_bit")) {
    if (!dram->is_object()) r.fail("dram_pj_per_bit", "expected an object technology -> {pj, source}");
    JsonReader dr(*dram, file, "dram_pj_per_bit");
    for (auto it = dram->begin(); it != dram->end(); ++it) {
      JsonReader e = dr.object(it.key());
      t.dram_pj_per_bit_[it.key()] = e.positive_number("pj");
      e.string("source", "");
      e.finish();
    }
  }

  if (const Json* comps = r.optional_value("components")) {
    if (!comps->is_object()) r.fail("components", "expected an object name -> {pj, bits, source}");
    JsonReader cr(*comps, file, "components");
    for (auto it = comps->begin(); it != comps->end(); ++it) {
      JsonReader e = cr.object(it.key());
      Component c{};
      c.pj = e.number("pj");
      if (c.pj < 0) e.fail("pj", "expected an energy >= 0, got " + Json(c.pj).dump());
      const int64_t bits = e.positive_integer("bits");
      if (bits > 65536) e.fail("bits", "expected an access width of 1 to 65536 bits, got " + std::to_string(bits));
      c.bits = static_cast<int>(bits);
      c.off_chip = e.boolean("off_chip", false);
      e.value("source");
      e.string("note", "");
      e.finish();
      t.components_[it.key()] = c;
    }
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
  if (sram_.empty()) {
    throw InputError(file_, "sram_pj_per_64b_access",
                     "the energy table has no SRAM energy curve; add points, or price the buffer by a component");
  }
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

double EnergyTable::component_pj(const std::string& name, int bits) const {
  auto it = components_.find(name);
  if (it == components_.end()) {
    throw InputError(file_, "components." + name, "the energy table has no component '" + name + "'");
  }
  // Access energy grows with the word width (more bit lines / wires switch): linear,
  // the same rule as the SRAM curve's bits / 64.
  return it->second.pj * bits / it->second.bits;
}

EnergyTable EnergyTable::scaled_to(double target_nm, const TechnologyScaling& rule) const {
  const double f = rule.factor(technology_nm_, target_nm);
  EnergyTable t = *this;
  for (size_t i = 0; i < t.mac_pj_.size(); ++i) t.mac_pj_[i] *= f;
  for (SramPoint& p : t.sram_) p.pj_per_64b *= f;
  for (auto& [name, c] : t.components_) {
    if (!c.off_chip) c.pj *= f;
  }
  // dram_pj_per_bit is left alone: it is the DRAM device's and its interface's energy,
  // chosen by the level's technology (DDR3, HBM2, ...), not by the accelerator's node.
  t.technology_nm_ = target_nm;
  t.scale_factor_ = scale_factor_ * f;
  return t;
}

EnergyTable EnergyTable::scaled_to(double target_nm) const {
  return scaled_to(target_nm, TechnologyScaling::load(TechnologyScaling::default_path()));
}

std::string resolve_energy_table_path(const std::string& name, const std::string& base_dir) {
  namespace fs = std::filesystem;
  if (name.rfind("<embedded>", 0) == 0) return name;
  const fs::path p(name);
  if (p.is_absolute()) return name;
  // Absolute paths, so resolved_config.json works from any directory.
  auto absolute = [](const fs::path& x) { return fs::absolute(x).lexically_normal().string(); };
  // The error_code overloads: a name the OS cannot look up (too long, say) is simply not
  // there, and the loader then reports it missing; the throwing ones would escape as a crash.
  std::error_code ec;
  const fs::path beside = fs::path(base_dir.empty() ? "." : base_dir) / p;
  if (fs::exists(beside, ec)) return absolute(beside);
  const fs::path shipped = fs::path(LOOM_SOURCE_DIR) / "configs" / p;
  if (fs::exists(shipped, ec)) return absolute(shipped);
  return absolute(beside);  // the loader reports it missing, with this path
}

}  // namespace loom
