#include "arch/area_model.h"

#include <algorithm>
#include <cmath>

#include "arch/architecture.h"
#include "sim/embedded_files.h"
#include "sim/energy_table.h"
#include "sim/error.h"

namespace loom {

namespace {

constexpr double kMm2PerUm2 = 1e-6;

// ---------------------------------------------------------------- loading

std::string required_source(JsonReader& r) {
  const std::string s = r.string("source");
  if (s.empty()) r.fail("source", "expected a non-empty citation of where the figure comes from");
  return s;
}

AreaLogic read_logic(JsonReader& logic, const std::string& key) {
  JsonReader e = logic.object(key);
  AreaLogic l;
  l.um2 = e.positive_number("um2");
  const int64_t bits = e.positive_integer("bits");
  if (bits > 4096) e.fail("bits", "expected a width from 1 to 4096 bits, got " + std::to_string(bits));
  l.bits = static_cast<int>(bits);
  const std::string scaling = e.choice("width_scaling", {"quadratic", "linear", "none"});
  l.scaling = scaling == "quadratic" ? AreaLogic::Scaling::quadratic
              : scaling == "linear"  ? AreaLogic::Scaling::linear
                                     : AreaLogic::Scaling::none;
  required_source(e);
  e.string("derivation", "");
  e.string("assumption", "");
  e.finish();
  return l;
}

double read_fraction(JsonReader& overheads, const std::string& key) {
  JsonReader e = overheads.object(key);
  const double f = e.number("value");
  if (!(f >= 0 && f < 1)) e.fail("value", "expected a fraction of the total from 0 to below 1, got " + Json(f).dump());
  required_source(e);
  e.string("assumption", "");
  e.finish();
  return f;
}

ReferenceDie read_reference_die(JsonReader& d) {
  ReferenceDie die;
  die.name = d.string("name");
  die.config = d.string("config");
  die.die_mm2 = d.positive_number("die_mm2");
  die.die_mm2_is_upper_bound = d.boolean("die_mm2_is_upper_bound", false);
  die.technology_nm = d.positive_number("technology_nm");
  die.sms_on_die = static_cast<int>(d.positive_integer("sms_on_die", 0));
  die.transistors_billion = d.positive_number("transistors_billion", 0);
  if (d.has("parts")) {
    for (JsonReader& p : d.array_of_objects("parts")) {
      ReferenceDie::Part part;
      part.name = p.string("name");
      const Json& comps = p.value("components");
      if (!comps.is_array() || comps.empty()) p.fail("components", "expected a non-empty array of component names");
      for (const Json& c : comps) {
        if (!c.is_string()) p.fail("components", "expected component names (strings), got " + c.dump());
        part.components.push_back(c.get<std::string>());
      }
      part.fraction = p.positive_number("fraction");
      if (part.fraction > 1) p.fail("fraction", "expected a fraction of the die, at most 1");
      p.finish();
      die.parts.push_back(std::move(part));
    }
  }
  die.source = required_source(d);
  d.finish();
  return die;
}

// ---------------------------------------------------------------- per-unit areas (um2 at the table's node)

// Significand width (hidden bit included) an FP multiplier array is sized by.
int significand_bits(DataType t) {
  switch (t) {
    case DataType::fp32: return 24;
    case DataType::fp16: return 11;
    case DataType::bf16: return 8;
    default: return 0;
  }
}

bool is_float(DataType t) { return significand_bits(t) > 0; }

// One multiply-accumulate: a multiplier at the operand type and an accumulator adder at
// `accumulator_bits` (integer or FP like the operands).
double mac_um2(const AreaTable& t, DataType type, int accumulator_bits) {
  if (is_float(type)) {
    return t.fp_multiplier.at_width(significand_bits(type)) + t.fp_adder.at_width(accumulator_bits);
  }
  return t.int_multiplier.at_width(bits_of(type)) + t.int_adder.at_width(accumulator_bits);
}

double sram_mm2(const AreaTable& t, double bytes) { return bytes * 8 * t.sram_um2_per_bit() * kMm2PerUm2; }

// Adds `fraction` of the total as one more component (control, uncore): sum x f / (1 - f).
void add_overhead(AreaBreakdown& a, const std::string& name, double fraction) {
  if (fraction <= 0) return;
  const double rest = a.total_mm2();
  a.components_mm2.emplace_back(name, rest * fraction / (1 - fraction));
}

// ---------------------------------------------------------------- per architecture kind (mm2 at the table's node)

AreaBreakdown systolic_area(const SystolicConfig& s, const AreaTable& t) {
  AreaBreakdown a;
  // A PE: multiplier, accumulator at the ofmap width, pipeline registers for the three words.
  const double pe_um2 = mac_um2(t, s.data_type, s.ofmap_bits) +
                        t.register_bit.at_width(s.ifmap_bits + s.filter_bits + s.ofmap_bits);
  const double pes = static_cast<double>(s.rows * s.cols);
  a.components_mm2 = {{"pe_array", pe_um2 * pes * kMm2PerUm2},
                      {"sram_ifmap", sram_mm2(t, static_cast<double>(s.sram.ifmap_bytes))},
                      {"sram_filter", sram_mm2(t, static_cast<double>(s.sram.filter_bytes))},
                      {"sram_ofmap", sram_mm2(t, static_cast<double>(s.sram.ofmap_bytes))}};
  add_overhead(a, "control", t.accelerator_control_fraction);
  return a;
}

AreaBreakdown hierarchy_area(const HierarchyConfig& h, const AreaTable& t) {
  AreaBreakdown a;
  const double macs = static_cast<double>(h.total_pes());
  a.components_mm2.emplace_back("pe_array", mac_um2(t, h.data_type, h.word_bits[kOutputs]) * macs * kMm2PerUm2);
  double instances = 1;
  for (const StorageLevel& level : h.levels) {
    if (level.kind != LevelKind::dram) {  // DRAM is off-chip
      double bytes = static_cast<double>(level.capacity_bytes);
      if (!level.shared) {
        bytes = 0;
        for (int64_t b : level.operand_capacity_bytes) bytes += static_cast<double>(b);
      }
      a.components_mm2.emplace_back(std::string(name_of(level.kind)) + "_" + level.name,
                                    sram_mm2(t, bytes * instances));
    }
    instances *= static_cast<double>(level.fanout.size());
  }
  add_overhead(a, "control", t.accelerator_control_fraction);
  return a;
}

AreaBreakdown gpu_area(const simt::GpuConfig& g, const AreaTable& t) {
  const double subcores = g.subcores_per_sm;
  // Lanes per SM: a unit of `lanes` lanes accepting a warp every `initiation_interval`
  // cycles has the throughput (and is counted as) lanes / interval lanes.
  auto lanes = [&](const simt::FunctionalUnitConfig& u) {
    return subcores * u.lanes / static_cast<double>(u.initiation_interval);
  };
  const double fp32_lane = t.fp_multiplier.at_width(24) + t.fp_adder.at_width(32);
  const double int_lane = t.int_multiplier.at_width(32) + t.int_adder.at_width(32);  // IMAD
  const double fp16_lane = t.fp_multiplier.at_width(11) + t.fp_adder.at_width(16);
  const double fp64_lane = t.fp64_multiplier.at_width(t.fp64_multiplier.bits) +
                           t.fp64_adder.at_width(t.fp64_adder.bits);
  // A tensor core completes m*n*k*rate_f16 FP16 FMAs per clock; each is an FP16 FMA datapath.
  const double tensor_fmas = subcores * g.tensor.per_subcore * g.tensor.m * g.tensor.n * g.tensor.k * g.tensor.rate_f16;
  const double sms = g.sms;
  const double per_sm = sms * kMm2PerUm2;
  AreaBreakdown a;
  a.components_mm2 = {
      {"fp32_lanes", lanes(g.fp32) * fp32_lane * per_sm},
      {"int_lanes", lanes(g.int_alu) * int_lane * per_sm},
      {"fp16_lanes", lanes(g.fp16) * fp16_lane * per_sm},
      {"fp64_lanes", lanes(g.fp64) * fp64_lane * per_sm},
      {"sfu", lanes(g.sfu) * t.sfu.at_width(t.sfu.bits) * per_sm},
      {"tensor_cores", tensor_fmas * fp16_lane * per_sm},
      {"register_file", sram_mm2(t, static_cast<double>(g.registers_per_sm) * 4) * sms},
      {"l1_shared", sram_mm2(t, static_cast<double>(g.l1_shared_bytes)) * sms},
      {"l2", sram_mm2(t, static_cast<double>(g.l2_bytes))},
  };
  add_overhead(a, "uncore", t.gpu_uncore_fraction);
  return a;
}

// The node an architecture's area is given at (see area_of).
double node_of(const Architecture& arch, const AreaTable& t) {
  if (arch.is_gpu()) return arch.gpu().technology_nm;
  if (arch.is_hierarchy()) {
    const HierarchyConfig& h = arch.hierarchy();
    if (h.energy_technology_nm > 0) return h.energy_technology_nm;
    return h.energy_table.empty() ? t.technology_nm : EnergyTable::load(h.energy_table).technology_nm();
  }
  const SystolicConfig& s = arch.systolic();
  return s.energy_table.empty() ? t.technology_nm : EnergyTable::load(s.energy_table).technology_nm();
}

}  // namespace

double AreaBreakdown::total_mm2() const {
  // Summed smallest first, so the total depends on the components' values only, not on
  // which component holds which: designs that swap two buffers' sizes get the very same
  // area, and a Pareto front never keeps one of them on a last-bit difference.
  std::vector<double> values;
  for (const auto& [name, mm2] : components_mm2) values.push_back(mm2);
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  return sum;
}

double AreaLogic::at_width(int width) const {
  const double r = static_cast<double>(width) / bits;
  switch (scaling) {
    case Scaling::quadratic: return um2 * r * r;
    case Scaling::linear: return um2 * r;
    case Scaling::none: break;
  }
  return um2;
}

double AreaTable::scale_to(double nm) const {
  const double r = nm / technology_nm;
  return r * r;
}

AreaBreakdown area_of(const Architecture& arch) { return area_of(arch, default_area_table()); }

AreaBreakdown area_of(const Architecture& arch, const AreaTable& table) {
  AreaBreakdown a = arch.is_gpu()         ? gpu_area(arch.gpu(), table)
                    : arch.is_hierarchy() ? hierarchy_area(arch.hierarchy(), table)
                                          : systolic_area(arch.systolic(), table);
  a.table = table.name;
  a.technology_nm = table.technology_nm;
  return scale_area(a, node_of(arch, table));
}

AreaBreakdown scale_area(const AreaBreakdown& area, double target_nm) {
  LOOM_CHECK(area.technology_nm > 0 && target_nm > 0, "area_model", "technology nodes must be positive");
  AreaBreakdown out = area;
  const double r = target_nm / area.technology_nm;
  for (auto& [name, mm2] : out.components_mm2) mm2 *= r * r;
  out.technology_nm = target_nm;
  return out;
}

AreaTable parse_area_table(const Json& json, const std::string& file) {
  JsonReader r(json, file, "");
  AreaTable t;
  t.file = file;
  r.choice("schema", {"loom-area/1"});
  t.name = r.string("name");
  t.technology_nm = r.positive_number("technology_nm");
  r.string("description", "");
  r.string("technology_scaling", "");
  r.string("width_scaling", "");
  r.value("sources");

  JsonReader logic = r.object("logic");
  t.int_multiplier = read_logic(logic, "int_multiplier");
  t.int_adder = read_logic(logic, "int_adder");
  t.register_bit = read_logic(logic, "register");
  t.fp_multiplier = read_logic(logic, "fp_multiplier");
  t.fp_adder = read_logic(logic, "fp_adder");
  t.fp64_multiplier = read_logic(logic, "fp64_multiplier");
  t.fp64_adder = read_logic(logic, "fp64_adder");
  t.sfu = read_logic(logic, "sfu");
  logic.finish();

  JsonReader sram = r.object("sram");
  t.sram_bit_cell_um2 = sram.positive_number("bit_cell_um2");
  t.sram_array_efficiency = sram.positive_number("array_efficiency");
  if (t.sram_array_efficiency > 1) {
    sram.fail("array_efficiency", "expected the fraction of the array taken by bit cells, from above 0 to 1");
  }
  required_source(sram);
  sram.string("assumption", "");
  sram.finish();

  JsonReader overheads = r.object("overheads");
  t.accelerator_control_fraction = read_fraction(overheads, "accelerator_control_fraction");
  t.gpu_uncore_fraction = read_fraction(overheads, "gpu_uncore_fraction");
  overheads.finish();

  if (r.has("reference_dies")) {
    for (JsonReader& d : r.array_of_objects("reference_dies")) t.reference_dies.push_back(read_reference_die(d));
  }
  r.finish();
  return t;
}

AreaTable load_area_table(const std::string& path) {
  const std::string prefix = "<embedded>:";
  if (path.rfind(prefix, 0) == 0) {
    const std::string_view text = embedded_file(path.substr(prefix.size()));
    if (text.empty()) throw InputError(path, "area_table", "no such embedded area table");
    return parse_area_table(Json::parse(text), path);
  }
  return parse_area_table(load_json_file(path), path);
}

const AreaTable& default_area_table() {
  static const AreaTable table = load_area_table("<embedded>:default_area");
  return table;
}

Json area_to_json(const AreaBreakdown& area) {
  Json components = Json::object();
  for (const auto& [name, mm2] : area.components_mm2) components[name] = mm2;
  return {{"table", area.table},
          {"technology_nm", area.technology_nm},
          {"total_mm2", area.total_mm2()},
          {"components_mm2", components}};
}

}  // namespace loom
