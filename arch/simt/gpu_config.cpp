// Strict loader for "kind": "gpu" architecture files (schema: docs/arch-schema.md, section
// "gpu"). Every key goes through JsonReader, so a misspelled key is an error and every error
// names the file and the JSON path. Rules are checked here, once, so the timing and energy
// models can trust the struct (whole cache sets, powers of two where they index, ...).
#include "arch/simt/gpu_config.h"

#include <climits>
#include <cmath>
#include <filesystem>
#include <optional>

#include "arch/config_fields.h"
#include "sim/energy_table.h"
#include "sim/error.h"
#include "sim/json_reader.h"

namespace loom::simt {

namespace {

// "7", not "7.0": nodes and rates are usually whole numbers.
std::string num(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? std::to_string(static_cast<int64_t>(v)) : Json(v).dump();
}

// A whole number in [lo, hi] (hi no larger than an int holds); nullopt fallback = required.
int64_t whole(JsonReader& r, const std::string& key, int64_t lo, int64_t hi,
              std::optional<int64_t> fallback = std::nullopt) {
  const int64_t v = fallback ? r.integer(key, *fallback) : r.integer(key);
  if (v < lo || v > hi) {
    r.fail(key, "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                    ", got " + std::to_string(v));
  }
  return v;
}

int small(JsonReader& r, const std::string& key, int64_t lo, std::optional<int64_t> fallback = std::nullopt) {
  return static_cast<int>(whole(r, key, lo, INT_MAX, fallback));
}

bool is_power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Caches and banks are indexed by address bits: the model needs these to be powers of two.
int power_of_two(JsonReader& r, const std::string& key, std::optional<int64_t> fallback = std::nullopt) {
  const int v = small(r, key, 1, fallback);
  if (!is_power_of_two(v)) r.fail(key, "expected a power of two, got " + std::to_string(v));
  return v;
}

FunctionalUnitConfig read_unit(JsonReader& units, const std::string& key, int warp_size) {
  JsonReader u = units.object(key);
  FunctionalUnitConfig f;
  f.lanes = static_cast<int>(whole(u, "lanes", 1, warp_size));
  f.latency = small(u, "latency", 1);
  f.initiation_interval = small(u, "initiation_interval", 1, 1);
  u.finish();
  return f;
}

void read_occupancy(JsonReader o, GpuConfig& c) {
  c.max_threads_per_sm = small(o, "max_threads_per_sm", 1);
  c.max_warps_per_sm = small(o, "max_warps_per_sm", 1);
  c.max_ctas_per_sm = small(o, "max_ctas_per_sm", 1);
  c.registers_per_sm = small(o, "registers_per_sm", 1);
  // CUDA constants since compute capability 3.5 / 2.0 / 3.0: honest defaults.
  c.max_registers_per_thread = small(o, "max_registers_per_thread", 1, 255);
  c.max_threads_per_cta = small(o, "max_threads_per_cta", 1, 1024);
  c.max_shared_per_cta = whole(o, "max_shared_per_cta", 0, INT64_MAX);
  c.max_grid_x = small(o, "max_grid_x", 1, 2147483647);
  c.max_grid_yz = small(o, "max_grid_yz", 1, 65535);
  if (c.max_threads_per_sm > static_cast<int64_t>(c.max_warps_per_sm) * c.warp_size) {
    o.fail("max_threads_per_sm", "must be at most max_warps_per_sm x warp_size (" +
                                     std::to_string(static_cast<int64_t>(c.max_warps_per_sm) * c.warp_size) + ")");
  }
  // Warps are dealt to sub-cores round-robin; each sub-core holds the same share.
  if (c.max_warps_per_sm % c.subcores_per_sm != 0) {
    o.fail("max_warps_per_sm", "must be a multiple of subcores_per_sm (" + std::to_string(c.subcores_per_sm) + ")");
  }
  if (c.registers_per_sm % c.subcores_per_sm != 0) {
    o.fail("registers_per_sm", "must be a multiple of subcores_per_sm: each sub-core has its own register file");
  }
  if (c.max_threads_per_cta > c.max_threads_per_sm) {
    o.fail("max_threads_per_cta", "must be at most max_threads_per_sm (" + std::to_string(c.max_threads_per_sm) + ")");
  }
  o.finish();
}

void read_subcore(JsonReader s, GpuConfig& c) {
  c.scheduler = s.choice("scheduler", {"gto", "lrr"}) == "gto" ? WarpSchedulerPolicy::gto : WarpSchedulerPolicy::lrr;
  c.ibuffer_entries = small(s, "ibuffer_entries", 1, 2);
  c.fetch_latency = small(s, "fetch_latency", 1, 1);
  c.register_banks = power_of_two(s, "register_banks");  // bank = register id % banks
  c.register_bank_ports = small(s, "register_bank_ports", 1, 1);
  c.branch_latency = small(s, "branch_latency", 1);
  s.finish();
}

void read_units(JsonReader u, GpuConfig& c) {
  c.int_alu = read_unit(u, "int", c.warp_size);
  c.fp32 = read_unit(u, "fp32", c.warp_size);
  c.fp16 = read_unit(u, "fp16", c.warp_size);
  c.fp64 = read_unit(u, "fp64", c.warp_size);
  c.sfu = read_unit(u, "sfu", c.warp_size);
  c.ldst = read_unit(u, "ldst", c.warp_size);
  u.finish();
}

double rate(JsonReader& r, const std::string& key, std::optional<double> fallback) {
  const double v = fallback ? r.number(key, *fallback) : r.number(key);
  if (v < 0) r.fail(key, "expected a throughput multiplier >= 0 (0 = unsupported), got " + num(v));
  return v;
}

void read_tensor(JsonReader t, TensorCoreConfig& tc) {
  tc.per_subcore = small(t, "per_subcore", 0);
  // 4x4x4 is loom's unit of tensor work (the Volta tensor-core operation); wider
  // tensor cores are described by their rates, not by another shape.
  tc.m = small(t, "m", 1, 4);
  tc.n = small(t, "n", 1, 4);
  tc.k = small(t, "k", 1, 4);
  tc.pipeline_latency = small(t, "pipeline_latency", 1);
  tc.step_overhead = small(t, "step_overhead", 0, 0);
  JsonReader r = t.object("rates");
  tc.rate_f16 = rate(r, "f16", std::nullopt);
  tc.rate_bf16 = rate(r, "bf16", 0.0);
  tc.rate_tf32 = rate(r, "tf32", 0.0);
  tc.rate_s8 = rate(r, "s8", 0.0);
  tc.rate_s4 = rate(r, "s4", 0.0);
  tc.rate_b1 = rate(r, "b1", 0.0);
  r.finish();
  t.finish();
}

// Line and sector sizes shared by L1 and L2: sectors subdivide lines.
void read_line_geometry(JsonReader& r, int& line_bytes, int& sector_bytes) {
  line_bytes = power_of_two(r, "line_bytes", 128);
  sector_bytes = power_of_two(r, "sector_bytes", 32);
  if (sector_bytes > line_bytes) {
    r.fail("sector_bytes", "must be at most line_bytes (" + std::to_string(line_bytes) + ")");
  }
}

void require_whole_sets(JsonReader& r, const std::string& key, int64_t bytes, int line_bytes, int ways,
                        const std::string& what) {
  const int64_t set_bytes = static_cast<int64_t>(line_bytes) * ways;
  if (bytes % set_bytes != 0) {
    r.fail(key, what + " (" + std::to_string(bytes) + " bytes) must be a whole number of sets of line_bytes x associativity = " +
                    std::to_string(set_bytes) + " bytes");
  }
}

// l1_shared.carveouts: optional, ascending shared-memory capacities ending at shared_bytes.
std::vector<int64_t> read_carveouts(JsonReader& s, int64_t shared_bytes) {
  std::vector<int64_t> out;
  const nlohmann::json* list = s.optional_value("carveouts");
  if (!list) return out;
  const std::string expected = "expected an ascending array of shared-memory capacities in bytes, each a whole number "
                               "from 0 to shared_bytes, the last equal to shared_bytes (" +
                               std::to_string(shared_bytes) + ")";
  if (!list->is_array() || list->empty()) s.fail("carveouts", expected);
  for (size_t i = 0; i < list->size(); ++i) {
    const nlohmann::json& v = (*list)[i];
    const std::string where = "carveouts[" + std::to_string(i) + "]";
    // Whole numbers may be written 2.0, as everywhere in the file.
    const std::optional<int64_t> whole_bytes = JsonReader::whole_number(v);
    if (!whole_bytes) s.fail(where, expected + "; found " + v.dump());
    const int64_t bytes = *whole_bytes;
    if (bytes < 0 || bytes > shared_bytes) s.fail(where, expected + "; found " + std::to_string(bytes));
    if (!out.empty() && bytes <= out.back())
      s.fail(where, expected + "; found " + std::to_string(bytes) + " after " + std::to_string(out.back()));
    out.push_back(bytes);
  }
  if (out.back() != shared_bytes) s.fail("carveouts", expected + "; the last is " + std::to_string(out.back()));
  return out;
}

void read_l1_shared(JsonReader s, GpuConfig& c) {
  c.l1_shared_bytes = whole(s, "bytes", 1, INT64_MAX);
  c.shared_bytes = whole(s, "shared_bytes", 0, INT64_MAX);
  if (c.shared_bytes > c.l1_shared_bytes) {
    s.fail("shared_bytes", "must be at most l1_shared.bytes (" + std::to_string(c.l1_shared_bytes) +
                               "): shared memory is a carve-out of the unified array");
  }
  c.shared_carveouts = read_carveouts(s, c.shared_bytes);
  c.shared_reserved_per_cta = whole(s, "shared_reserved_per_cta", 0, c.shared_bytes, 0);
  c.shared_banks = power_of_two(s, "shared_banks", 32);
  c.shared_bank_bytes = power_of_two(s, "shared_bank_bytes", 4);
  c.shared_latency = small(s, "shared_latency", 1);

  JsonReader l1 = s.object("l1");
  c.l1.bytes = c.l1_shared_bytes - c.shared_bytes;  // the rest of the array
  read_line_geometry(l1, c.l1.line_bytes, c.l1.sector_bytes);
  c.l1.hit_latency = small(l1, "hit_latency", 1);
  c.l1.mshrs = small(l1, "mshrs", 1);
  // The L1 of the default carve-out, and every L1 a carve-out may leave a launch.
  std::vector<std::pair<int64_t, std::string>> sizes = {{c.l1.bytes, "the L1 (l1_shared.bytes - shared_bytes)"}};
  for (const int64_t carveout : c.shared_carveouts)
    sizes.emplace_back(c.l1_shared_bytes - carveout,
                       "the L1 left by carve-out " + std::to_string(carveout) + " (l1_shared.bytes - carve-out)");
  if (l1.optional_value("sets")) {
    // A fixed number of sets, whose ways follow the L1's size (Accel-Sim's adaptive L1).
    if (l1.optional_value("associativity"))
      l1.fail("sets", "give associativity or sets, not both: with sets, the associativity follows the L1's size");
    c.l1.sets = static_cast<int>(whole(l1, "sets", 1, kMaxCacheAssociativity));
    const int64_t set_column = int64_t{c.l1.line_bytes} * c.l1.sets;  // one way of every set
    for (const auto& [bytes, what] : sizes) {
      if (bytes % set_column != 0 || bytes / set_column > kMaxCacheAssociativity)
        l1.fail("sets", what + " (" + std::to_string(bytes) + " bytes) must be a whole number of at most " +
                            std::to_string(kMaxCacheAssociativity) + " ways of line_bytes x sets = " +
                            std::to_string(set_column) + " bytes");
    }
    c.l1.associativity = l1_associativity_at(c.l1, c.l1.bytes);
  } else {
    c.l1.associativity = static_cast<int>(whole(l1, "associativity", 1, kMaxCacheAssociativity));
    for (const auto& [bytes, what] : sizes)
      require_whole_sets(l1, "associativity", bytes, c.l1.line_bytes, c.l1.associativity, what);
  }
  l1.finish();
  s.finish();
}

void read_l2(JsonReader l, GpuConfig& c) {
  c.l2_bytes = whole(l, "bytes", 1, INT64_MAX);
  c.l2_slices = small(l, "slices", 1);
  read_line_geometry(l, c.l2_line_bytes, c.l2_sector_bytes);
  c.l2_associativity = static_cast<int>(whole(l, "associativity", 1, kMaxCacheAssociativity));
  c.l2_hit_latency = small(l, "hit_latency", 1);
  c.l2_bytes_per_cycle_per_slice = l.positive_number("bytes_per_cycle_per_slice");
  if (c.l2_bytes % c.l2_slices != 0) l.fail("slices", "must divide l2.bytes (" + std::to_string(c.l2_bytes) + ") evenly");
  require_whole_sets(l, "associativity", c.l2_bytes / c.l2_slices, c.l2_line_bytes, c.l2_associativity,
                     "each L2 slice (bytes / slices)");
  l.finish();
}

void read_dram(JsonReader d, GpuConfig& c) {
  c.dram_technology = d.string("technology");
  if (c.dram_technology.empty()) d.fail("technology", "expected a DRAM technology name, e.g. \"HBM2\"");
  c.dram_bytes = whole(d, "bytes", 1, INT64_MAX);
  c.dram_bytes_per_second = d.positive_number("bytes_per_second");
  c.dram_channels = small(d, "channels", 1);
  c.dram_latency = small(d, "latency", 0);
  d.finish();
}

void read_interconnect(JsonReader n, GpuConfig& c) {
  c.noc_latency = small(n, "latency", 0, 0);
  c.noc_bytes_per_cycle_per_sm = n.positive_number("bytes_per_cycle_per_sm");
  n.finish();
}

// The energy table and pricing node; checked against the scaling rule now, so a config
// that could never be priced fails at load with its own file and field.
void read_energy(JsonReader& top, GpuConfig& c, const std::string& base_dir) {
  std::string table = "energy/simt_volta_talk_45nm.json";
  std::string node_field = "technology_nm";
  if (top.has("energy")) {
    JsonReader e = top.object("energy");
    table = e.string("table", table);
    if (e.has("technology_nm")) {
      c.energy_technology_nm = e.positive_number("technology_nm");
      node_field = e.field("technology_nm");
    }
    e.finish();
  }
  c.energy_table = resolve_energy_table_path(table, base_dir);
  const double node = c.energy_technology_nm > 0 ? c.energy_technology_nm : c.technology_nm;
  const TechnologyScaling rule = TechnologyScaling::load(TechnologyScaling::default_path());
  if (!rule.covers(node)) {
    throw InputError(c.source_file, node_field,
                     "energies cannot be priced at " + num(node) + " nm: the technology scaling rule covers " +
                         num(rule.min_nm()) + " to " + num(rule.max_nm()) +
                         " nm; set energy.technology_nm to a node in that range");
  }
}

}  // namespace

GpuConfig parse_gpu_config(const nlohmann::json& doc, const std::string& source_name) {
  JsonReader r(doc, source_name, "");
  GpuConfig c;
  c.source_file = source_name;
  r.choice("schema", {"loom-arch/1"}, "loom-arch/1");
  r.choice("kind", {"gpu"});
  c.name = r.string("name");
  if (c.name.empty()) r.fail("name", "expected a non-empty name");
  r.string("description", "");
  if (const Json* notes = r.optional_value("notes"); notes && !notes->is_object() && !notes->is_string()) {
    r.fail("notes", "expected free text or an object of free-text notes");
  }
  c.sources = r.value("sources");
  if (!c.sources.is_object()) r.fail("sources", "expected an object: cited value -> reference");

  c.clock_hz = read_clock_hz(r);
  c.technology_nm = r.positive_number("technology_nm");
  c.sms = small(r, "sms", 1);
  c.subcores_per_sm = small(r, "subcores_per_sm", 1);
  // ExecutedInstruction::active_mask is 32 bits and the PTX model executes 32-lane warps.
  c.warp_size = static_cast<int>(whole(r, "warp_size", 32, 32, 32));

  read_occupancy(r.object("occupancy"), c);
  read_subcore(r.object("subcore"), c);
  read_units(r.object("units"), c);
  read_tensor(r.object("tensor_core"), c.tensor);
  read_l1_shared(r.object("l1_shared"), c);
  if (c.max_shared_per_cta + c.shared_reserved_per_cta > c.shared_bytes) {
    throw InputError(source_name, "occupancy.max_shared_per_cta",
                     "must be at most l1_shared.shared_bytes (" + std::to_string(c.shared_bytes) + ")" +
                         (c.shared_reserved_per_cta > 0
                              ? " less l1_shared.shared_reserved_per_cta (" + std::to_string(c.shared_reserved_per_cta) + ")"
                              : std::string()));
  }
  read_l2(r.object("l2"), c);
  read_dram(r.object("dram"), c);
  read_interconnect(r.object("interconnect"), c);
  read_energy(r, c, std::filesystem::path(source_name).parent_path().string());
  r.finish();
  return c;
}

GpuConfig load_gpu_config(const std::string& path) { return parse_gpu_config(load_json_file(path), path); }

double tensor_rate(const TensorCoreConfig& t, TensorPrecision p) {
  switch (p) {
    case TensorPrecision::none: return 0;
    case TensorPrecision::f16_f16:
    case TensorPrecision::f16_f32: return t.rate_f16;
    case TensorPrecision::bf16_f32: return t.rate_bf16;
    case TensorPrecision::tf32_f32: return t.rate_tf32;
    case TensorPrecision::s8_s32: return t.rate_s8;
    case TensorPrecision::s4_s32: return t.rate_s4;
    case TensorPrecision::b1_s32: return t.rate_b1;
  }
  return 0;
}

double GpuConfig::peak_tensor_flops(TensorPrecision p) const {
  // One m x n x k operation is m*n*k multiply-adds = 2*m*n*k FLOP (integer "FLOP" = ops).
  return static_cast<double>(sms) * subcores_per_sm * tensor.per_subcore * 2.0 * tensor.m * tensor.n * tensor.k *
         tensor_rate(tensor, p) * clock_hz;
}

double GpuConfig::peak_fp32_flops() const {
  return static_cast<double>(sms) * subcores_per_sm * fp32.lanes * 2.0 * clock_hz;  // FFMA = 2 FLOP
}

}  // namespace loom::simt

namespace loom::simt {

namespace {
nlohmann::json unit_json(const FunctionalUnitConfig& u) {
  return {{"lanes", u.lanes}, {"latency", u.latency}, {"initiation_interval", u.initiation_interval}};
}
}  // namespace

// The resolved config in the file schema (every default filled in), so resolved_config.json
// reloads to the same GpuConfig.
nlohmann::json gpu_config_to_json(const GpuConfig& c) {
  const TensorCoreConfig& t = c.tensor;
  nlohmann::json j = {
      {"schema", "loom-arch/1"},
      {"kind", "gpu"},
      {"name", c.name},
      {"clock_hz", c.clock_hz},
      {"technology_nm", c.technology_nm},
      {"sms", c.sms},
      {"subcores_per_sm", c.subcores_per_sm},
      {"warp_size", c.warp_size},
      {"occupancy",
       {{"max_threads_per_sm", c.max_threads_per_sm},
        {"max_warps_per_sm", c.max_warps_per_sm},
        {"max_ctas_per_sm", c.max_ctas_per_sm},
        {"registers_per_sm", c.registers_per_sm},
        {"max_registers_per_thread", c.max_registers_per_thread},
        {"max_threads_per_cta", c.max_threads_per_cta},
        {"max_shared_per_cta", c.max_shared_per_cta},
        {"max_grid_x", c.max_grid_x},
        {"max_grid_yz", c.max_grid_yz}}},
      {"subcore",
       {{"scheduler", c.scheduler == WarpSchedulerPolicy::gto ? "gto" : "lrr"},
        {"ibuffer_entries", c.ibuffer_entries},
        {"fetch_latency", c.fetch_latency},
        {"register_banks", c.register_banks},
        {"register_bank_ports", c.register_bank_ports},
        {"branch_latency", c.branch_latency}}},
      {"units",
       {{"int", unit_json(c.int_alu)},
        {"fp32", unit_json(c.fp32)},
        {"fp16", unit_json(c.fp16)},
        {"fp64", unit_json(c.fp64)},
        {"sfu", unit_json(c.sfu)},
        {"ldst", unit_json(c.ldst)}}},
      {"tensor_core",
       {{"per_subcore", t.per_subcore},
        {"m", t.m},
        {"n", t.n},
        {"k", t.k},
        {"pipeline_latency", t.pipeline_latency},
        {"step_overhead", t.step_overhead},
        {"rates",
         {{"f16", t.rate_f16}, {"bf16", t.rate_bf16}, {"tf32", t.rate_tf32}, {"s8", t.rate_s8}, {"s4", t.rate_s4},
          {"b1", t.rate_b1}}}}},
      {"l1_shared",
       {{"bytes", c.l1_shared_bytes},
        {"shared_bytes", c.shared_bytes},
        {"shared_reserved_per_cta", c.shared_reserved_per_cta},
        {"shared_banks", c.shared_banks},
        {"shared_bank_bytes", c.shared_bank_bytes},
        {"shared_latency", c.shared_latency},
        {"l1",
         {{"line_bytes", c.l1.line_bytes},
          {"sector_bytes", c.l1.sector_bytes},
          {c.l1.sets > 0 ? "sets" : "associativity", c.l1.sets > 0 ? c.l1.sets : c.l1.associativity},
          {"hit_latency", c.l1.hit_latency},
          {"mshrs", c.l1.mshrs}}}}},
      {"l2",
       {{"bytes", c.l2_bytes},
        {"slices", c.l2_slices},
        {"line_bytes", c.l2_line_bytes},
        {"sector_bytes", c.l2_sector_bytes},
        {"associativity", c.l2_associativity},
        {"hit_latency", c.l2_hit_latency},
        {"bytes_per_cycle_per_slice", c.l2_bytes_per_cycle_per_slice}}},
      {"dram",
       {{"technology", c.dram_technology},
        {"bytes", c.dram_bytes},
        {"bytes_per_second", c.dram_bytes_per_second},
        {"channels", c.dram_channels},
        {"latency", c.dram_latency}}},
      {"interconnect", {{"latency", c.noc_latency}, {"bytes_per_cycle_per_sm", c.noc_bytes_per_cycle_per_sm}}},
      {"energy", c.energy_technology_nm > 0
                     ? nlohmann::json{{"table", c.energy_table}, {"technology_nm", c.energy_technology_nm}}
                     : nlohmann::json{{"table", c.energy_table}}},
      {"sources", c.sources},
  };
  if (!c.shared_carveouts.empty()) j["l1_shared"]["carveouts"] = c.shared_carveouts;
  return j;
}

}  // namespace loom::simt
