#include "arch/systolic/systolic_config.h"

#include <filesystem>

#include "arch/config_fields.h"
#include "sim/energy_table.h"
#include "sim/error.h"
#include "sim/text_file.h"

namespace loom {

const char* name_of(Dataflow d) {
  switch (d) {
    case Dataflow::ws: return "ws";
    case Dataflow::is: return "is";
    case Dataflow::os: return "os";
  }
  return "?";
}

namespace {

Dataflow parse_dataflow(const std::string& s) {
  return s == "ws" ? Dataflow::ws : s == "is" ? Dataflow::is : Dataflow::os;
}


}  // namespace

SystolicConfig parse_systolic_json(const Json& json, const std::string& file, const std::string& base_dir) {
  JsonReader r(json, file, "");
  SystolicConfig c;
  c.source_file = file;
  r.choice("schema", {"loom-arch/1"}, "loom-arch/1");
  c.name = r.string("name");
  c.description = r.string("description", "");
  r.choice("kind", {"systolic"}, "systolic");
  c.source = r.string("source", "");
  c.clock_hz = read_clock_hz(r);

  JsonReader array = r.object("array");
  c.rows = array.positive_integer("rows");
  c.cols = array.positive_integer("cols");
  if (c.rows > kMaxArrayDimension) array.fail("rows", "expected at most " + std::to_string(kMaxArrayDimension));
  if (c.cols > kMaxArrayDimension) array.fail("cols", "expected at most " + std::to_string(kMaxArrayDimension));
  c.dataflow = parse_dataflow(array.choice("dataflow", {"ws", "is", "os"}));
  array.finish();

  c.data_type = read_data_type(r, "int8");
  const int64_t default_bits = bits_of(c.data_type);
  const int64_t default_acc_bits = 32;  // partial sums accumulate in 32 bits for every type
  if (const Json* wb = r.optional_value("word_bits")) {
    JsonReader w(*wb, file, "word_bits");
    auto bits = [&](const char* key, int64_t fallback) {
      const int64_t b = w.positive_integer(key, fallback);
      if (b > 64) w.fail(key, "expected a word width of 1 to 64 bits, got " + std::to_string(b));
      return static_cast<int>(b);
    };
    c.ifmap_bits = bits("ifmap", default_bits);
    c.filter_bits = bits("filter", default_bits);
    c.ofmap_bits = bits("ofmap", default_acc_bits);
    w.finish();
  } else {
    c.ifmap_bits = c.filter_bits = static_cast<int>(default_bits);
    c.ofmap_bits = static_cast<int>(default_acc_bits);
  }

  JsonReader sram = r.object("sram");
  auto kib = [&](const char* key) {
    const double v = sram.positive_number(key);
    if (v > kMaxSramKib) sram.fail(key, "expected at most " + std::to_string(kMaxSramKib) + " KiB");
    const double bytes = v * 1024.0;
    if (bytes != static_cast<double>(static_cast<int64_t>(bytes))) {
      sram.fail(key, "expected a size in KiB that is a whole number of bytes");
    }
    return static_cast<int64_t>(bytes);
  };
  c.sram.ifmap_bytes = kib("ifmap_kib");
  c.sram.filter_bytes = kib("filter_kib");
  c.sram.ofmap_bytes = kib("ofmap_kib");
  c.sram.double_buffered = sram.boolean("double_buffered", true);
  if (const Json* bw = sram.optional_value("words_per_cycle")) {
    JsonReader w(*bw, file, "sram.words_per_cycle");
    // 0 (or absent) = as wide as the array edge needs.
    c.sram.ifmap_words_per_cycle = w.non_negative_integer("ifmap", 0);
    c.sram.filter_words_per_cycle = w.non_negative_integer("filter", 0);
    c.sram.ofmap_words_per_cycle = w.non_negative_integer("ofmap", 0);
    w.finish();
  }
  sram.finish();

  JsonReader dram = r.object("dram");
  const bool has_bytes = dram.has("bandwidth_bytes_per_cycle");
  const bool has_gbs = dram.has("bandwidth_gb_s");
  if (has_bytes == has_gbs) {
    dram.fail("bandwidth_bytes_per_cycle",
              "give exactly one of bandwidth_bytes_per_cycle (a number or \"unlimited\") or bandwidth_gb_s");
  }
  if (has_bytes && dram.value("bandwidth_bytes_per_cycle").is_string()) {
    if (dram.string("bandwidth_bytes_per_cycle") != "unlimited") {
      dram.fail("bandwidth_bytes_per_cycle", "expected a positive number or \"unlimited\"");
    }
    c.dram.unlimited = true;
  } else if (has_bytes) {
    c.dram.bytes_per_cycle = dram.positive_number("bandwidth_bytes_per_cycle");
  } else {
    // GB/s (10^9 bytes per second) divided by the clock gives bytes per cycle.
    c.dram.bytes_per_cycle = dram.positive_number("bandwidth_gb_s") * 1e9 / c.clock_hz;
  }
  if (!c.dram.unlimited && (c.dram.bytes_per_cycle < 1.0 / 1024 || c.dram.bytes_per_cycle > 1e9)) {
    dram.fail(has_bytes ? "bandwidth_bytes_per_cycle" : "bandwidth_gb_s",
              "expected a bandwidth between 1/1024 and 1e9 bytes per cycle, got " +
                  Json(c.dram.bytes_per_cycle).dump() + " bytes per cycle");
  }
  c.dram.latency_cycles = dram.non_negative_integer("latency_cycles", 0);
  if (c.dram.latency_cycles > 1'000'000'000) dram.fail("latency_cycles", "expected at most 10^9 cycles");
  if (c.dram.unlimited && c.dram.latency_cycles != 0) {
    dram.fail("latency_cycles", "an \"unlimited\" DRAM is ideal memory: latency_cycles must be 0 (or omitted)");
  }
  c.dram.technology = dram.choice("technology", {"DDR3", "LPDDR4", "GDDR5", "HBM2", "HMC"}, "DDR3");
  dram.finish();

  c.energy_table = resolve_energy_table_path(r.string("energy_table", "<embedded>:default_energy"), base_dir);
  r.finish();

  // Cross-field rules: one fold's stationary/edge data must fit the working half.
  if (c.sram.working_bytes(c.sram.filter_bytes) < bytes_for(1, c.filter_bits) ||
      c.sram.working_bytes(c.sram.ifmap_bytes) < bytes_for(1, c.ifmap_bits) ||
      c.sram.working_bytes(c.sram.ofmap_bytes) < bytes_for(1, c.ofmap_bits)) {
    throw InputError(file, "sram", "each buffer must hold at least one word in each half");
  }
  return c;
}

SystolicConfig load_systolic_config(const std::string& path) {
  namespace fs = std::filesystem;
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".json") {
    return parse_systolic_json(load_json_file(path), path, fs::path(path).parent_path().string());
  }
  if (ext == ".cfg") return parse_scalesim_cfg(read_text_file(path), path);
  throw InputError(path, "--arch", "expected a loom .json architecture or a SCALE-Sim .cfg file");
}

Json SystolicConfig::to_json() const {
  Json sram_json = {{"ifmap_kib", sram.ifmap_bytes / 1024.0},
                    {"filter_kib", sram.filter_bytes / 1024.0},
                    {"ofmap_kib", sram.ofmap_bytes / 1024.0},
                    {"double_buffered", sram.double_buffered}};
  if (sram.ifmap_words_per_cycle || sram.filter_words_per_cycle || sram.ofmap_words_per_cycle) {
    Json w = Json::object();
    if (sram.ifmap_words_per_cycle) w["ifmap"] = sram.ifmap_words_per_cycle;
    if (sram.filter_words_per_cycle) w["filter"] = sram.filter_words_per_cycle;
    if (sram.ofmap_words_per_cycle) w["ofmap"] = sram.ofmap_words_per_cycle;
    sram_json["words_per_cycle"] = w;
  }
  Json dram_json = {{"latency_cycles", dram.latency_cycles}, {"technology", dram.technology}};
  if (dram.unlimited) {
    dram_json["bandwidth_bytes_per_cycle"] = "unlimited";
  } else {
    dram_json["bandwidth_bytes_per_cycle"] = dram.bytes_per_cycle;
  }
  return {{"schema", "loom-arch/1"},
          {"name", name},
          {"description", description},
          {"source", source},
          {"kind", "systolic"},
          {"clock_hz", clock_hz},
          {"array", {{"rows", rows}, {"cols", cols}, {"dataflow", name_of(dataflow)}}},
          {"data_type", name_of(data_type)},
          {"word_bits", {{"ifmap", ifmap_bits}, {"filter", filter_bits}, {"ofmap", ofmap_bits}}},
          {"sram", sram_json},
          {"dram", dram_json},
          {"energy_table", energy_table}};
}

}  // namespace loom
