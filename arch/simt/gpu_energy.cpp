// Loads SIMT energy tables strictly and prices GpuStats with them (rule: gpu_energy.h).
#include "arch/simt/gpu_energy.h"

#include "sim/error.h"
#include "sim/json_reader.h"

namespace loom::simt {

namespace {

// {"pj": E >= 0, "sources": ..., "derivation": "..."}: one cited energy.
double cited_pj(JsonReader& e) {
  const double pj = e.number("pj");
  if (pj < 0) e.fail("pj", "expected an energy >= 0 pJ, got " + Json(pj).dump());
  e.value("sources");
  e.string("derivation", "");
  return pj;
}

double read_op(JsonReader& ops, const std::string& key) {
  JsonReader e = ops.object(key);
  const double pj = cited_pj(e);
  e.finish();
  return pj;
}

// {"pj": E, "bytes": B, ...}: energy of one B-byte access, returned per byte.
double read_access_per_byte(JsonReader& memory, const std::string& key) {
  JsonReader e = memory.object(key);
  const double pj = cited_pj(e);
  const int64_t bytes = e.positive_integer("bytes");
  e.finish();
  return pj / static_cast<double>(bytes);
}

}  // namespace

SimtEnergyTable parse_simt_energy_table(const nlohmann::json& doc, const std::string& file) {
  JsonReader r(doc, file, "");
  SimtEnergyTable t;
  t.file = file;
  r.choice("schema", {"loom-simt-energy/1"});
  t.name = r.string("name");
  t.technology_nm = r.positive_number("technology_nm");
  r.string("description", "");
  r.string("rule", "");
  r.string("cross_check", "");
  r.value("sources");

  {
    JsonReader e = r.object("instruction_overhead");
    t.instruction_overhead_pj = cited_pj(e);
    e.finish();
  }
  JsonReader ops = r.object("operations");
  t.int_pj = read_op(ops, "int");
  t.fp32_pj = read_op(ops, "fp32");
  t.fp16_pj = read_op(ops, "fp16");
  t.fp64_pj = read_op(ops, "fp64");
  t.sfu_pj = read_op(ops, "sfu");
  ops.finish();
  {
    JsonReader e = r.object("tensor");
    t.tensor_pj = cited_pj(e);
    const int64_t fmas = e.positive_integer("fmas");
    if (fmas > 1 << 20) e.fail("fmas", "expected at most 1048576 multiply-accumulates per instruction");
    t.tensor_fmas = static_cast<int>(fmas);
    e.finish();
  }
  JsonReader memory = r.object("memory");
  t.shared_pj_per_byte = read_access_per_byte(memory, "shared");
  t.l1_pj_per_byte = read_access_per_byte(memory, "l1");
  t.l2_pj_per_byte = read_access_per_byte(memory, "l2");
  memory.finish();

  const Json& dram = r.value("dram_pj_per_bit");
  if (!dram.is_object() || dram.empty()) r.fail("dram_pj_per_bit", "expected an object technology -> {pj, source}");
  JsonReader dr(dram, file, "dram_pj_per_bit");
  for (auto it = dram.begin(); it != dram.end(); ++it) {
    JsonReader e = dr.object(it.key());
    t.dram_pj_per_bit[it.key()] = e.positive_number("pj");
    e.value("source");
    e.string("derivation", "");
    e.finish();
  }
  if (r.has("static_w_per_sm")) {
    JsonReader e = r.object("static_w_per_sm");
    t.static_w_per_sm = e.number("w");
    if (t.static_w_per_sm < 0) e.fail("w", "expected a power >= 0 W");
    e.value("source");
    e.finish();
  }
  r.finish();
  return t;
}

SimtEnergyTable load_simt_energy_table(const std::string& path) {
  return parse_simt_energy_table(load_json_file(path), path);
}

double SimtEnergyTable::dram_pj_per_byte(const std::string& technology) const {
  auto it = dram_pj_per_bit.find(technology);
  if (it == dram_pj_per_bit.end()) {
    throw InputError(file, "dram_pj_per_bit." + technology,
                     "the SIMT energy table has no DRAM energy for this technology (the GPU config's dram.technology)");
  }
  return it->second * 8.0;
}

SimtEnergyTable SimtEnergyTable::scaled_to(double target_nm, const TechnologyScaling& rule) const {
  const double f = rule.factor(technology_nm, target_nm);
  SimtEnergyTable t = *this;
  for (double* pj : {&t.instruction_overhead_pj, &t.int_pj, &t.fp32_pj, &t.fp16_pj, &t.fp64_pj, &t.sfu_pj,
                     &t.tensor_pj, &t.shared_pj_per_byte, &t.l1_pj_per_byte, &t.l2_pj_per_byte}) {
    *pj *= f;
  }
  t.technology_nm = target_nm;
  t.scale_factor = scale_factor * f;
  return t;
}

GpuEnergy price_gpu_energy(const GpuStats& s, const GpuConfig& c, const SimtEnergyTable& table,
                           const TechnologyScaling& rule) {
  const double node = c.energy_technology_nm > 0 ? c.energy_technology_nm : c.technology_nm;
  const SimtEnergyTable t = table.scaled_to(node, rule);
  auto lanes = [&](EnergyClass k) { return static_cast<double>(s.thread_instructions_by_class[size_t(k)]); };

  GpuEnergy e;
  e.table = t.name;
  e.technology_nm = node;
  e.scale_factor = t.scale_factor;
  double all = 0;
  for (int64_t n : s.thread_instructions_by_class) all += static_cast<double>(n);
  e.instruction_overhead_pj = all * t.instruction_overhead_pj;
  e.int_pj = lanes(EnergyClass::int_op) * t.int_pj;
  e.fp32_pj = lanes(EnergyClass::fp32_op) * t.fp32_pj;
  e.fp16_pj = lanes(EnergyClass::fp16_op) * t.fp16_pj;
  e.fp64_pj = lanes(EnergyClass::fp64_op) * t.fp64_pj;
  e.sfu_pj = lanes(EnergyClass::sfu_op) * t.sfu_pj;
  // Counted from the tensor-core operations, not from MMA instructions, so any warp-level
  // shape (16x16x16, m16n8k16, ...) is priced by the multiply-accumulates it really did.
  const double op_fmas = static_cast<double>(c.tensor.m) * c.tensor.n * c.tensor.k;
  e.tensor_pj = static_cast<double>(s.tensor_core_ops) * op_fmas * t.tensor_pj_per_fma();
  e.shared_pj = static_cast<double>(s.shared_wavefronts) * c.shared_banks * c.shared_bank_bytes * t.shared_pj_per_byte;
  e.l1_pj = static_cast<double>(s.l1_sector_accesses) * c.l1.sector_bytes * t.l1_pj_per_byte;
  e.l2_pj = static_cast<double>(s.l2_sector_accesses) * c.l2_sector_bytes * t.l2_pj_per_byte;
  e.dram_pj = static_cast<double>(s.dram_read_bytes + s.dram_write_bytes) * t.dram_pj_per_byte(c.dram_technology);
  e.static_pj = t.static_w_per_sm * c.sms * (static_cast<double>(s.cycles) / c.clock_hz) * 1e12;
  e.total_pj = e.instruction_overhead_pj + e.int_pj + e.fp32_pj + e.fp16_pj + e.fp64_pj + e.sfu_pj + e.tensor_pj +
               e.shared_pj + e.l1_pj + e.l2_pj + e.dram_pj + e.static_pj;
  return e;
}

GpuEnergy price_gpu_energy(const GpuStats& stats, const GpuConfig& config, const SimtEnergyTable& table) {
  return price_gpu_energy(stats, config, table, TechnologyScaling::load(TechnologyScaling::default_path()));
}

nlohmann::json GpuEnergy::to_json() const {
  return {{"table", table},
          {"technology_nm", technology_nm},
          {"scale_factor", scale_factor},
          {"total_pj", total_pj},
          {"breakdown_pj",
           {{"instruction_overhead", instruction_overhead_pj},
            {"int", int_pj},
            {"fp32", fp32_pj},
            {"fp16", fp16_pj},
            {"fp64", fp64_pj},
            {"sfu", sfu_pj},
            {"tensor", tensor_pj},
            {"shared", shared_pj},
            {"l1", l1_pj},
            {"l2", l2_pj},
            {"dram", dram_pj},
            {"static", static_pj}}}};
}

}  // namespace loom::simt
