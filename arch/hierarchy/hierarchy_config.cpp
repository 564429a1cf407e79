#include "arch/hierarchy/hierarchy_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "arch/config_fields.h"
#include "arch/systolic/systolic_config.h"
#include "sim/energy_table.h"
#include "sim/error.h"

namespace loom {

namespace {

// Input bounds (docs/arch-schema.md#hierarchy-limits): far from 64-bit overflow in every
// derived byte and access count.
constexpr int64_t kMaxCapacityBytes = int64_t{1} << 40;
constexpr int64_t kMaxFanout = 65536;
constexpr int64_t kMaxTotalInstances = int64_t{1} << 40;
constexpr double kMinBandwidth = 1.0 / 1024, kMaxBandwidth = 1e9;

constexpr const char* kOperandList = "weights, inputs or outputs";

// 16, not 16.0, for whole numbers in messages.
std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  return Json(v).dump();
}

std::string operand_set(const std::array<bool, kNumOperands>& mask) {
  std::string s;
  for (int o = 0; o < kNumOperands; ++o) {
    if (!mask[o]) continue;
    s += (s.empty() ? "" : ", ") + std::string(operand_name(o));
  }
  return s.empty() ? "none" : s;
}


// Everything a level's parser needs to know about the architecture around it.
struct LevelContext {
  const std::string& file;
  const HierarchyConfig& arch;
  const EnergyTable& table;
  std::string needed_by(const std::string& level) const {
    return "needed by level " + level + " of " + arch.name + " in " + file;
  }
};

// A table component, or an InputError that names the table field and the level needing it.
double component_energy(const LevelContext& ctx, const std::string& level, const std::string& component, int bits) {
  if (!ctx.table.has_component(component)) {
    throw InputError(ctx.table.file(), "components." + component,
                     "the energy table has no component '" + component + "' (" + ctx.needed_by(level) + ")");
  }
  return ctx.table.component_pj(component, bits);
}

// A per-word energy: one number for every operand in `mask`, or an object operand -> pJ
// that lists exactly those operands. Values >= 0.
std::array<double, kNumOperands> per_operand_pj(JsonReader& r, const std::string& key,
                                                const std::array<bool, kNumOperands>& mask, const char* what) {
  std::array<double, kNumOperands> out{0, 0, 0};
  const Json& v = r.value(key);
  if (v.is_number()) {
    const double pj = r.number(key);
    if (pj < 0) r.fail(key, "expected an energy >= 0, got " + Json(pj).dump());
    for (int o = 0; o < kNumOperands; ++o) out[o] = mask[o] ? pj : 0;
    return out;
  }
  if (!v.is_object()) {
    r.fail(key, std::string("expected an energy per word (a number >= 0, or an object operand -> number for ") +
                    what + ")");
  }
  JsonReader p(v, r.file(), r.field(key));
  for (auto it = v.begin(); it != v.end(); ++it) {
    const int o = parse_operand(it.key());
    if (o < 0) p.fail(it.key(), "unknown operand '" + it.key() + "' (expected " + kOperandList + ")");
    if (!mask[o]) p.fail(it.key(), "operand '" + it.key() + "' is not " + what + " (" + operand_set(mask) + ")");
  }
  for (int o = 0; o < kNumOperands; ++o) {
    if (!mask[o]) continue;
    out[o] = p.number(operand_name(o));
    if (out[o] < 0) p.fail(operand_name(o), "expected an energy >= 0, got " + Json(out[o]).dump());
  }
  p.finish();
  return out;
}

Json operand_object(const std::array<double, kNumOperands>& v, const std::array<bool, kNumOperands>& mask) {
  Json j = Json::object();
  for (int o = 0; o < kNumOperands; ++o)
    if (mask[o]) j[operand_name(o)] = v[o];
  return j;
}

double bandwidth(JsonReader& r, const std::string& key) {
  const double bw = r.positive_number(key);
  if (bw < kMinBandwidth || bw > kMaxBandwidth) {
    r.fail(key, "expected a bandwidth between 1/1024 and 1e9 bytes per cycle, got " + Json(bw).dump());
  }
  return bw;
}

int64_t capacity(JsonReader& r, const std::string& key) {
  const int64_t bytes = r.positive_integer(key);
  if (bytes > kMaxCapacityBytes) r.fail(key, "expected at most 2^40 bytes (1 TiB), got " + std::to_string(bytes));
  return bytes;
}

// "keeps": an array of distinct operand names, at least one.
std::array<bool, kNumOperands> parse_keeps(JsonReader& l, const Json& k) {
  const std::string rule = std::string("expected a non-empty array of distinct operand names (") + kOperandList + ")";
  if (!k.is_array() || k.empty()) l.fail("keeps", rule);
  std::array<bool, kNumOperands> keeps{false, false, false};
  for (size_t j = 0; j < k.size(); ++j) {
    const std::string item = l.field("keeps") + "[" + std::to_string(j) + "]";
    if (!k[j].is_string()) throw InputError(l.file(), item, rule + ", got " + k[j].dump());
    const int o = parse_operand(k[j].get<std::string>());
    if (o < 0) {
      throw InputError(l.file(), item, "unknown operand '" + k[j].get<std::string>() + "' (expected " + kOperandList + ")");
    }
    if (keeps[o]) throw InputError(l.file(), item, "operand '" + std::string(operand_name(o)) + "' is listed twice");
    keeps[o] = true;
  }
  return keeps;
}

void parse_capacity(JsonReader& l, StorageLevel& s, const std::optional<std::array<bool, kNumOperands>>& keeps) {
  const Json& cap = l.value("capacity_bytes");
  if (cap.is_number()) {
    s.shared = true;
    s.capacity_bytes = capacity(l, "capacity_bytes");
    s.keeps = keeps ? *keeps : std::array<bool, kNumOperands>{true, true, true};
    return;
  }
  if (!cap.is_object() || cap.empty()) {
    l.fail("capacity_bytes", std::string("expected a whole number of bytes (one pool shared by the kept operands) ") +
                                 "or an object operand -> bytes (one pool per operand)");
  }
  s.shared = false;
  JsonReader p(cap, l.file(), l.field("capacity_bytes"));
  std::array<bool, kNumOperands> named{false, false, false};
  for (auto it = cap.begin(); it != cap.end(); ++it) {
    const int o = parse_operand(it.key());
    if (o < 0) p.fail(it.key(), "unknown operand '" + it.key() + "' (expected " + kOperandList + ")");
    named[o] = true;
  }
  for (int o = 0; o < kNumOperands; ++o)
    if (named[o]) s.operand_capacity_bytes[o] = capacity(p, operand_name(o));
  p.finish();
  if (keeps && *keeps != named) {
    l.fail("keeps", "a partitioned level keeps exactly the operands its capacity_bytes names (" + operand_set(named) +
                        "), got " + operand_set(*keeps));
  }
  s.keeps = named;
  s.capacity_bytes = 0;
  for (int o = 0; o < kNumOperands; ++o) s.capacity_bytes += s.operand_capacity_bytes[o];
}

// Energy per word of each kept operand. Order: explicit read_pj/write_pj > a table
// component > the table's default rule for the level's kind.
void resolve_level_energy(JsonReader& l, StorageLevel& s, const LevelContext& ctx) {
  const auto& bits = ctx.arch.word_bits;
  if (const Json* e = l.optional_value("energy")) {
    if (!e->is_object()) l.fail("energy", "expected {\"component\": NAME} or {\"read_pj\": ..., \"write_pj\": ...}");
    JsonReader er(*e, l.file(), l.field("energy"));
    const bool by_component = er.has("component");
    const bool explicit_pj = er.has("read_pj") || er.has("write_pj");
    if (by_component == explicit_pj) {
      l.fail("energy", "give exactly one of {\"component\": NAME} (from the energy table) or "
                       "{\"read_pj\": ..., \"write_pj\": ...} (per word)");
    }
    if (by_component) {
      const std::string comp = er.string("component");
      for (int o = 0; o < kNumOperands; ++o) {
        if (!s.keeps[o]) continue;
        s.read_pj[o] = s.write_pj[o] = component_energy(ctx, s.name, comp, bits[o]);
      }
    } else {
      s.read_pj = per_operand_pj(er, "read_pj", s.keeps, "kept at this level");
      s.write_pj = per_operand_pj(er, "write_pj", s.keeps, "kept at this level");
    }
    er.finish();
    return;
  }
  for (int o = 0; o < kNumOperands; ++o) {
    if (!s.keeps[o]) continue;
    double pj = 0;
    if (s.kind == LevelKind::dram) {
      if (!ctx.table.has_dram(s.technology)) {
        throw InputError(ctx.table.file(), "dram_pj_per_bit." + s.technology,
                         "the energy table has no DRAM energy for " + s.technology + " (" + ctx.needed_by(s.name) +
                             "); add it, or give the level an \"energy\"");
      }
      pj = ctx.table.dram_pj_per_byte(s.technology) * bits[o] / 8.0;
    } else {
      if (!ctx.table.has_sram_curve()) {
        throw InputError(ctx.table.file(), "sram_pj_per_64b_access",
                         "the energy table has no SRAM energy curve (" + ctx.needed_by(s.name) +
                             "); add one, or give the level an \"energy\"");
      }
      // The bank one tile works in: the operand's pool (or the shared pool), halved when
      // double-buffered, as the systolic model prices its buffers (systolic_energy.cpp).
      pj = ctx.table.sram_access_pj(s.usable_bytes(o), bits[o]);
    }
    s.read_pj[o] = s.write_pj[o] = pj;
  }
}

void parse_fanout(JsonReader& l, StorageLevel& s, const LevelContext& ctx) {
  const Json* f = l.optional_value("fanout");
  if (!f) return;
  if (!f->is_object()) l.fail("fanout", "expected an object {x, y, multicast, reduction, systolic, energy}");
  JsonReader fr(*f, l.file(), l.field("fanout"));
  auto dim = [&](const char* key) {
    const int64_t v = fr.positive_integer(key, 1);
    if (v > kMaxFanout) fr.fail(key, "expected at most " + std::to_string(kMaxFanout) + ", got " + std::to_string(v));
    return v;
  };
  Fanout& out = s.fanout;
  out.x = dim("x");
  out.y = dim("y");
  out.multicast = fr.boolean("multicast", true);
  out.reduction = fr.boolean("reduction", true);
  out.systolic = fr.boolean("systolic", false);
  if (const Json* e = fr.optional_value("energy")) {
    if (!e->is_object()) fr.fail("energy", "expected {\"component\": NAME} or {\"hop_pj\": ...}");
    JsonReader er(*e, l.file(), fr.field("energy"));
    const bool by_component = er.has("component");
    if (by_component == er.has("hop_pj")) {
      fr.fail("energy", "give exactly one of {\"component\": NAME} or {\"hop_pj\": ...} (per word delivered to a child)");
    }
    // Every operand can cross the network (bypassing operands too), so all three are priced.
    const std::array<bool, kNumOperands> all{true, true, true};
    if (by_component) {
      const std::string comp = er.string("component");
      for (int o = 0; o < kNumOperands; ++o)
        out.operand_hop_pj[o] = component_energy(ctx, s.name + " (fanout)", comp, ctx.arch.word_bits[o]);
    } else {
      out.operand_hop_pj = per_operand_pj(er, "hop_pj", all, "delivered across a fan-out");
    }
    er.finish();
  }
  fr.finish();
}

StorageLevel parse_level(JsonReader& l, int index, const LevelContext& ctx, const std::vector<StorageLevel>& outer) {
  StorageLevel s;
  s.name = l.string("name");
  if (s.name.empty()) l.fail("name", "expected a non-empty level name");
  for (const StorageLevel& o : outer) {
    if (o.name == s.name) l.fail("name", "duplicate level name '" + s.name + "' (level names must be unique)");
  }
  const std::string kind = l.choice("kind", {"dram", "sram", "regfile"});
  s.kind = kind == "dram" ? LevelKind::dram : kind == "sram" ? LevelKind::sram : LevelKind::regfile;
  if (index == 0 && s.kind != LevelKind::dram) {
    l.fail("kind", "levels[0] must be the DRAM (kind \"dram\"): levels are listed outermost first, got \"" + kind + "\"");
  }
  if (index > 0 && s.kind == LevelKind::dram) {
    l.fail("kind", "only levels[0] may be DRAM (kind \"dram\"); inner levels are \"sram\" or \"regfile\"");
  }

  std::optional<std::array<bool, kNumOperands>> keeps;
  if (const Json* k = l.optional_value("keeps")) keeps = parse_keeps(l, *k);

  if (s.kind == LevelKind::dram) {
    s.technology = l.choice("technology", {"DDR3", "LPDDR4", "GDDR5", "HBM2", "HMC"}, "DDR3");
    if (l.has("capacity_bytes")) l.fail("capacity_bytes", "the DRAM is unbounded (it holds the whole layer); remove capacity_bytes");
    if (l.has("double_buffered")) l.fail("double_buffered", "has no meaning for the DRAM; remove it");
    if (keeps && *keeps != std::array<bool, kNumOperands>{true, true, true}) {
      l.fail("keeps", "every operand must be kept at the DRAM (it holds the whole layer), got " + operand_set(*keeps));
    }
    s.unbounded = true;
    s.shared = true;
    s.keeps = {true, true, true};
  } else {
    if (l.has("technology")) l.fail("technology", "only the DRAM level has a technology");
    parse_capacity(l, s, keeps);
    s.double_buffered = l.boolean("double_buffered", false);
    // Each instance must hold at least one word of every operand it keeps.
    const auto& bits = ctx.arch.word_bits;
    if (s.shared) {
      int64_t need = 0;
      for (int o = 0; o < kNumOperands; ++o)
        if (s.keeps[o]) need += bytes_for(1, bits[o]);
      const int64_t pool = s.double_buffered ? s.capacity_bytes / 2 : s.capacity_bytes;
      if (pool < need) {
        l.fail("capacity_bytes", "must hold at least one word of each kept operand (" + std::to_string(need) +
                                     " bytes" + (s.double_buffered ? " in each half" : "") + ")");
      }
    } else {
      for (int o = 0; o < kNumOperands; ++o) {
        if (s.keeps[o] && s.usable_bytes(o) < bytes_for(1, bits[o])) {
          throw InputError(l.file(), l.field("capacity_bytes") + "." + operand_name(o),
                           "must hold at least one " + std::to_string(bits[o]) + "-bit word" +
                               (s.double_buffered ? " in each half (double_buffered)" : ""));
        }
      }
    }
  }

  const bool both = l.has("bandwidth_bytes_per_cycle");
  const bool rd = l.has("read_bandwidth_bytes_per_cycle"), wr = l.has("write_bandwidth_bytes_per_cycle");
  if (both && (rd || wr)) {
    l.fail("bandwidth_bytes_per_cycle", "give either bandwidth_bytes_per_cycle (the same limit on reads and on "
                                        "writes) or read_/write_bandwidth_bytes_per_cycle, not both");
  }
  if (both) s.read_bytes_per_cycle = s.write_bytes_per_cycle = bandwidth(l, "bandwidth_bytes_per_cycle");
  if (rd) s.read_bytes_per_cycle = bandwidth(l, "read_bandwidth_bytes_per_cycle");
  if (wr) s.write_bytes_per_cycle = bandwidth(l, "write_bandwidth_bytes_per_cycle");

  resolve_level_energy(l, s, ctx);

  const double leakage_mw = l.number("leakage_mw", 0);
  if (leakage_mw < 0) l.fail("leakage_mw", "expected a power >= 0 mW, got " + Json(leakage_mw).dump());
  // 1 mW = 1e-3 J/s = 1e9 pJ/s; spread over clock_hz cycles per second.
  s.leakage_pj_per_cycle = leakage_mw * 1e9 / ctx.arch.clock_hz;

  parse_fanout(l, s, ctx);
  l.finish();
  return s;
}

}  // namespace

const char* name_of(LevelKind k) {
  switch (k) {
    case LevelKind::dram: return "dram";
    case LevelKind::sram: return "sram";
    case LevelKind::regfile: return "regfile";
  }
  return "?";
}

int64_t StorageLevel::usable_bytes(int operand) const {
  if (unbounded) return std::numeric_limits<int64_t>::max();
  // Shared: the whole pool whatever the operand (callers sum the kept operands' tiles
  // against it). Partitioned: that operand's pool, 0 when it is not kept.
  if (!shared && !keeps[operand]) return 0;
  const int64_t pool = shared ? capacity_bytes : operand_capacity_bytes[operand];
  return double_buffered ? pool / 2 : pool;
}

int64_t HierarchyConfig::total_pes() const {
  int64_t n = 1;
  for (const StorageLevel& l : levels) n *= l.fanout.size();
  return n;
}

int HierarchyConfig::array_level() const {
  // The largest fan-out; on a tie the inner one, which is nearer the MACs.
  int best = -1;
  int64_t best_size = 1;
  for (int i = 0; i < num_levels(); ++i) {
    const int64_t n = levels[i].fanout.size();
    if (n > 1 && n >= best_size) {
      best = i;
      best_size = n;
    }
  }
  return best;
}

HierarchyConfig parse_hierarchy_json(const Json& json, const std::string& file, const std::string& base_dir) {
  JsonReader r(json, file, "");
  HierarchyConfig c;
  c.source_file = file;
  r.choice("schema", {"loom-arch/1"}, "loom-arch/1");
  r.choice("kind", {"hierarchy"});
  c.name = r.string("name");
  if (c.name.empty()) r.fail("name", "expected a non-empty name");
  c.description = r.string("description", "");
  c.source = r.string("source", "");
  c.clock_hz = read_clock_hz(r);

  c.data_type = read_data_type(r, "int8");
  // Defaults as for systolic files: operands at the data type's width, partial sums in 32 bits.
  c.word_bits = {bits_of(c.data_type), bits_of(c.data_type), 32};
  if (const Json* wb = r.optional_value("word_bits")) {
    if (!wb->is_object()) r.fail("word_bits", "expected an object {weights, inputs, outputs}");
    JsonReader w(*wb, file, "word_bits");
    for (int o = 0; o < kNumOperands; ++o) {
      const int64_t b = w.positive_integer(operand_name(o), c.word_bits[o]);
      if (b > 64) w.fail(operand_name(o), "expected a word width of 1 to 64 bits, got " + std::to_string(b));
      c.word_bits[o] = static_cast<int>(b);
    }
    w.finish();
  }
  const std::string dataflow = r.choice("dataflow", {"ws", "is", "os", "rs", "none"}, "none");
  c.dataflow = dataflow == "none" ? "" : dataflow;
  c.im2col = r.boolean("im2col", false);

  // The energy table: a path, or {"file": path, "technology_nm": node} to scale it.
  std::string table_path = "<embedded>:default_energy";
  if (const Json* et = r.optional_value("energy_table")) {
    if (et->is_string()) {
      table_path = et->get<std::string>();
    } else if (et->is_object()) {
      JsonReader e(*et, file, "energy_table");
      table_path = e.string("file");
      c.energy_technology_nm = e.positive_number("technology_nm");
      e.finish();
    } else {
      r.fail("energy_table", "expected a path, or {\"file\": PATH, \"technology_nm\": NODE} to scale the table");
    }
  }
  c.energy_table = resolve_energy_table_path(table_path, base_dir);
  EnergyTable table = EnergyTable::load(c.energy_table);
  if (c.energy_technology_nm > 0) {
    const TechnologyScaling rule = TechnologyScaling::load(TechnologyScaling::default_path());
    for (double nm : {table.technology_nm(), c.energy_technology_nm}) {
      if (!rule.covers(nm)) {
        r.fail("energy_table.technology_nm",
               "cannot scale from " + number_text(table.technology_nm()) + " nm to " +
                   number_text(c.energy_technology_nm) + " nm: the scaling rule (" + rule.file() + ") covers " +
                   number_text(rule.min_nm()) + " to " + number_text(rule.max_nm()) + " nm");
      }
    }
    table = table.scaled_to(c.energy_technology_nm, rule);
  }
  c.energy_unit = table.unit();

  if (r.has("mac_pj")) {
    c.mac_pj = r.number("mac_pj");
    if (c.mac_pj < 0) r.fail("mac_pj", "expected an energy >= 0, got " + Json(c.mac_pj).dump());
  } else {
    if (!table.has_mac(c.data_type)) {
      throw InputError(table.file(), std::string("mac_pj.") + name_of(c.data_type),
                       std::string("the energy table has no MAC energy for ") + name_of(c.data_type) +
                           " (needed by data_type of " + c.name + " in " + file + "); add it, or give \"mac_pj\"");
    }
    c.mac_pj = table.mac_pj(c.data_type);
  }

  const Json& levels = r.value("levels");
  if (!levels.is_array() || levels.empty() || levels.size() > static_cast<size_t>(kMaxLevels)) {
    r.fail("levels", "expected an array of 1 to " + std::to_string(kMaxLevels) +
                         " levels, outermost (the DRAM) first" +
                         (levels.is_array() ? ", got " + std::to_string(levels.size()) : std::string()));
  }
  const LevelContext ctx{file, c, table};
  std::vector<JsonReader> level_readers = r.array_of_objects("levels");
  for (size_t i = 0; i < level_readers.size(); ++i) {
    StorageLevel s = parse_level(level_readers[i], static_cast<int>(i), ctx, c.levels);
    c.levels.push_back(std::move(s));
  }
  int64_t instances = 1;
  for (const StorageLevel& l : c.levels) {
    instances *= l.fanout.size();  // each factor <= 2^32 and the running product <= 2^40
    if (instances > kMaxTotalInstances) {
      r.fail("levels", "the fan-outs multiply to more than 2^40 MAC units (at level " + l.name + ")");
    }
  }

  if (const Json* sa = r.optional_value("systolic_array")) {
    if (!sa->is_object()) r.fail("systolic_array", "expected {\"rows\": R, \"cols\": C}");
    JsonReader s(*sa, file, "systolic_array");
    const int64_t rows = s.positive_integer("rows"), cols = s.positive_integer("cols");
    s.finish();
    bool found = false;
    for (const StorageLevel& l : c.levels)
      found = found || (l.fanout.systolic && l.fanout.y == rows && l.fanout.x == cols);
    if (!found) {
      r.fail("systolic_array", "must match a systolic fan-out of the levels (fanout.systolic true, y = rows, x = cols)");
    }
    c.systolic_array = std::make_pair(rows, cols);
  }
  // A 1x1 systolic array (a systolic config may have one) has no fan-out but is still an array.
  if (!c.dataflow.empty() && c.array_level() < 0 && !c.systolic_array) {
    r.fail("dataflow", "dataflow \"" + c.dataflow + "\" needs a PE array: a level whose fan-out is larger than 1x1");
  }
  r.finish();
  return c;
}

HierarchyConfig load_hierarchy_config(const std::string& path) {
  return parse_hierarchy_json(load_json_file(path), path, std::filesystem::path(path).parent_path().string());
}

Json HierarchyConfig::to_json() const {
  Json lv = Json::array();
  for (const StorageLevel& l : levels) {
    Json j = {{"name", l.name}, {"kind", name_of(l.kind)}};
    Json keeps = Json::array();
    for (int o = 0; o < kNumOperands; ++o)
      if (l.keeps[o]) keeps.push_back(operand_name(o));
    j["keeps"] = keeps;
    if (l.kind == LevelKind::dram) {
      j["technology"] = l.technology;
    } else {
      if (l.shared) {
        j["capacity_bytes"] = l.capacity_bytes;
      } else {
        Json cap = Json::object();
        for (int o = 0; o < kNumOperands; ++o)
          if (l.keeps[o]) cap[operand_name(o)] = l.operand_capacity_bytes[o];
        j["capacity_bytes"] = cap;
      }
      j["double_buffered"] = l.double_buffered;
    }
    if (l.read_bytes_per_cycle > 0) j["read_bandwidth_bytes_per_cycle"] = l.read_bytes_per_cycle;
    if (l.write_bytes_per_cycle > 0) j["write_bandwidth_bytes_per_cycle"] = l.write_bytes_per_cycle;
    // Resolved per-word energies, so the file prices the same without the table.
    j["energy"] = {{"read_pj", operand_object(l.read_pj, l.keeps)}, {"write_pj", operand_object(l.write_pj, l.keeps)}};
    j["leakage_mw"] = l.leakage_pj_per_cycle * clock_hz / 1e9;
    const Fanout& f = l.fanout;
    j["fanout"] = {{"x", f.x},
                   {"y", f.y},
                   {"multicast", f.multicast},
                   {"reduction", f.reduction},
                   {"systolic", f.systolic},
                   {"energy", {{"hop_pj", operand_object(f.operand_hop_pj, {true, true, true})}}}};
    lv.push_back(j);
  }
  Json table = energy_table;
  if (energy_technology_nm > 0) table = {{"file", energy_table}, {"technology_nm", energy_technology_nm}};
  Json out = {{"schema", "loom-arch/1"},
              {"kind", "hierarchy"},
              {"name", name},
              {"description", description},
              {"source", source},
              {"clock_hz", clock_hz},
              {"data_type", name_of(data_type)},
              {"word_bits",
               {{"weights", word_bits[kWeights]}, {"inputs", word_bits[kInputs]}, {"outputs", word_bits[kOutputs]}}},
              {"dataflow", dataflow.empty() ? "none" : dataflow},
              {"im2col", im2col},
              {"energy_table", table},
              {"mac_pj", mac_pj},
              {"levels", lv}};
  if (systolic_array) out["systolic_array"] = {{"rows", systolic_array->first}, {"cols", systolic_array->second}};
  return out;
}

HierarchyConfig hierarchy_from_systolic(const SystolicConfig& config, const EnergyTable& energy) {
  HierarchyConfig h;
  h.name = config.name;
  h.description = config.description;
  h.source = config.source;
  h.source_file = config.source_file;
  h.clock_hz = config.clock_hz;
  h.data_type = config.data_type;
  h.word_bits = {config.filter_bits, config.ifmap_bits, config.ofmap_bits};
  h.im2col = true;  // the array streams im2col rows: it sees every layer as its GEMM
  h.dataflow = name_of(config.dataflow);
  h.energy_table = config.energy_table;
  h.energy_unit = energy.unit();
  h.mac_pj = energy.mac_pj(config.data_type);
  h.systolic_array = std::make_pair(config.rows, config.cols);

  StorageLevel dram;
  dram.name = "DRAM";
  dram.kind = LevelKind::dram;
  dram.unbounded = true;
  dram.technology = config.dram.technology;
  // One FIFO channel in the systolic engine; here the same limit applies to reads and to writes.
  if (!config.dram.unlimited) dram.read_bytes_per_cycle = dram.write_bytes_per_cycle = config.dram.bytes_per_cycle;
  for (int o = 0; o < kNumOperands; ++o)
    dram.read_pj[o] = dram.write_pj[o] = energy.dram_pj_per_byte(config.dram.technology) * h.word_bits[o] / 8.0;

  // The three SRAM buffers are one partitioned level. Their port widths (words_per_cycle)
  // are per buffer, which a level's bandwidth cannot express; they are left unlimited.
  StorageLevel sram;
  sram.name = "SRAM";
  sram.kind = LevelKind::sram;
  sram.shared = false;
  sram.operand_capacity_bytes = {config.sram.filter_bytes, config.sram.ifmap_bytes, config.sram.ofmap_bytes};
  sram.capacity_bytes = config.sram.filter_bytes + config.sram.ifmap_bytes + config.sram.ofmap_bytes;
  sram.double_buffered = config.sram.double_buffered;
  for (int o = 0; o < kNumOperands; ++o) {
    // Priced exactly as price_layer does: the working half of that buffer.
    sram.read_pj[o] = sram.write_pj[o] =
        energy.sram_access_pj(config.sram.working_bytes(sram.operand_capacity_bytes[o]), h.word_bits[o]);
  }
  sram.fanout.x = config.cols;
  sram.fanout.y = config.rows;
  sram.fanout.multicast = true;  // a word enters at the edge and is forwarded PE to PE
  sram.fanout.reduction = true;  // partial sums are added down the columns
  sram.fanout.systolic = true;

  // Each PE keeps one word of the stationary operand only: the other two flow through
  // its pipeline registers and are never reused from them (a streamed word is re-sent
  // for every fold). The systolic energy model folds register energy into the MAC, so
  // the register is free here too.
  const int stationary = config.dataflow == Dataflow::ws   ? kWeights
                         : config.dataflow == Dataflow::is ? kInputs
                                                           : kOutputs;
  StorageLevel pe;
  pe.name = "PE";
  pe.kind = LevelKind::regfile;
  pe.shared = false;
  for (int o = 0; o < kNumOperands; ++o) {
    pe.keeps[o] = o == stationary;
    pe.operand_capacity_bytes[o] = o == stationary ? bytes_for(1, h.word_bits[o]) : 0;
  }
  pe.capacity_bytes = pe.operand_capacity_bytes[stationary];

  h.levels = {dram, sram, pe};
  return h;
}

}  // namespace loom
