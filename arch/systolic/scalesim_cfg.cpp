// SCALE-Sim .cfg importer: reads SCALE-Sim's INI architecture config (v1/v2/v3) into a
// SystolicConfig, so users bring their .cfg files unchanged.
//
// Syntax follows Python's configparser as SCALE-Sim uses it: [section] headers, `key = value`
// or `key : value`, keys case-insensitive (section names are matched case-insensitively too),
// whole-line comments starting with ';' or '#', and (a leniency over configparser) inline
// comments introduced by whitespace followed by ';' or '#'. A key twice in a section, or a
// section twice, is an error, as in configparser's strict mode.
//
// Mapping (SCALE-Sim -> loom):
//   [general] run_name                      -> name (default: the file stem)
//   ArrayHeight / ArrayWidth                -> rows / cols
//   Dataflow ws|is|os                       -> dataflow
//   Ifmap/Filter/OfmapSramSzkB              -> SRAM bytes = kB * 1024; double_buffered = true
//                                              (SCALE-Sim's scratchpads are double-buffered)
//   (word size)                             -> int8, 8-bit ifmap/filter/ofmap words: SCALE-Sim
//                                              counts 1-byte words everywhere, partial sums too
//   InterfaceBandwidth CALC                 -> dram.unlimited, latency 0: CALC mode reports the
//                                              bandwidth needed to never stall
//   InterfaceBandwidth USER + Bandwidth     -> dram.bytes_per_cycle = min of the comma-separated
//                                              list (words/cycle = bytes/cycle at 1-byte words),
//                                              latency 0
//   (clock)                                 -> clock_hz = 1e9: SCALE-Sim has no clock and reports
//                                              cycles only; 1 GHz makes loom's times read as
//                                              cycles / 1e9 s
//   (energy)                                -> the embedded default energy table
// Accepted but ignored (loom does not model them): the address offsets, memory banks/ports,
// request buffers, SRAM bank layout keys, Ramulator traces, SRAM/DRAM row and bank sizes,
// TimeLinearModel, [network_presets] TopologyCsvLoc, and every key of [sparsity] and [layout].
// Anything else is an error that names the line and lists the accepted keys.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arch/systolic/systolic_config.h"
#include "sim/error.h"
#include "sim/text_file.h"

namespace loom {

namespace {

struct KeySpec {
  const char* name;  // SCALE-Sim's spelling, used in messages
  bool modeled;      // false: accepted for compatibility, ignored
};

struct SectionSpec {
  const char* name;
  bool any_key;  // every key accepted (and ignored)
  std::vector<KeySpec> keys;
};

const std::vector<SectionSpec>& sections() {
  static const std::vector<SectionSpec> specs = {
      {"general", false, {{"run_name", true}}},
      {"architecture_presets",
       false,
       {{"ArrayHeight", true},
        {"ArrayWidth", true},
        {"IfmapSramSzkB", true},
        {"FilterSramSzkB", true},
        {"OfmapSramSzkB", true},
        {"Dataflow", true},
        {"Bandwidth", true},
        {"IfmapOffset", false},
        {"FilterOffset", false},
        {"OfmapOffset", false},
        {"MemoryBanks", false},
        {"ReadRequestBuffer", false},
        {"WriteRequestBuffer", false},
        // SCALE-Sim v2 also accepts the SRAM layout keys here (configs/scale.cfg).
        {"OnChipMemoryBanks", false},
        {"OnChipMemoryBankPorts", false},
        {"IfmapCustomLayout", false},
        {"FilterCustomLayout", false},
        {"IfmapSRAMBankBandwidth", false},
        {"IfmapSRAMBankNum", false},
        {"IfmapSRAMBankPort", false},
        {"FilterSRAMBankBandwidth", false},
        {"FilterSRAMBankNum", false},
        {"FilterSRAMBankPort", false}}},
      {"run_presets",
       false,
       {{"InterfaceBandwidth", true},
        {"UseRamulatorTrace", false},
        {"SRAM_row_size", false},
        {"SRAM_bank_size", false},
        {"DRAM_row_size", false},
        {"DRAM_bank_size", false},
        {"TimeLinearModel", false}}},
      {"network_presets", false, {{"TopologyCsvLoc", false}}},
      {"sparsity", true, {}},
      {"layout", true, {}},
  };
  return specs;
}

const SectionSpec* find_section(const std::string& name) {
  const std::string l = to_lower(name);
  for (const SectionSpec& s : sections()) {
    if (l == s.name) return &s;
  }
  return nullptr;
}

const KeySpec* find_key(const SectionSpec& section, const std::string& key) {
  const std::string l = to_lower(key);
  for (const KeySpec& k : section.keys) {
    if (l == to_lower(k.name)) return &k;
  }
  return nullptr;
}

std::string accepted_sections() {
  std::string out;
  for (const SectionSpec& s : sections()) out += (out.empty() ? "[" : ", [") + std::string(s.name) + "]";
  return out;
}

std::string accepted_keys(const SectionSpec& section) {
  std::string out;
  for (const KeySpec& k : section.keys) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

struct Entry {
  std::string key;  // as written
  std::string value;
  int line = 0;
};

struct Section {
  const SectionSpec* spec = nullptr;
  int line = 0;
  std::map<std::string, Entry> entries;  // lower-cased key -> entry
};

std::string at_line(int line) { return "line " + std::to_string(line); }
std::string at_key(const Entry& e) { return at_line(e.line) + ", key '" + e.key + "'"; }

// Removes an inline comment: ';' or '#' preceded by whitespace.
std::string strip_inline_comment(const std::string& s) {
  for (size_t i = 1; i < s.size(); ++i) {
    if ((s[i] == ';' || s[i] == '#') && std::isspace(static_cast<unsigned char>(s[i - 1]))) {
      return s.substr(0, i);
    }
  }
  return s;
}

std::map<std::string, Section> parse_ini(const std::string& text, const std::string& file) {
  std::map<std::string, Section> out;
  Section* current = nullptr;
  size_t pos = 0;
  int line_no = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) pos = 3;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    ++line_no;
    std::string line = trim(std::string_view(text).substr(pos, end - pos));
    pos = end + 1;
    const bool last = end == text.size();
    if (line.empty() || line[0] == ';' || line[0] == '#') {
      if (last) break;
      continue;
    }
    line = trim(strip_inline_comment(line));
    if (line[0] == '[') {
      if (line.back() != ']' || line.size() < 3) {
        throw InputError(file, at_line(line_no), "expected a section header like [architecture_presets], got '" + line + "'");
      }
      const std::string name = trim(std::string_view(line).substr(1, line.size() - 2));
      const SectionSpec* spec = find_section(name);
      if (!spec) {
        throw InputError(file, at_line(line_no),
                         "unknown section [" + name + "]; expected one of " + accepted_sections());
      }
      auto [it, inserted] = out.emplace(spec->name, Section{});
      if (!inserted) {
        throw InputError(file, at_line(line_no),
                         "section [" + name + "] appears twice (first on line " +
                             std::to_string(it->second.line) + "); expected each section once");
      }
      it->second.spec = spec;
      it->second.line = line_no;
      current = &it->second;
    } else {
      const size_t delim = line.find_first_of("=:");
      if (delim == std::string::npos) {
        throw InputError(file, at_line(line_no), "expected 'key = value' or 'key : value', got '" + line + "'");
      }
      Entry e;
      e.key = trim(std::string_view(line).substr(0, delim));
      e.value = trim(std::string_view(line).substr(delim + 1));
      e.line = line_no;
      if (e.key.empty()) {
        throw InputError(file, at_line(line_no), "expected a key before '" + std::string(1, line[delim]) + "'");
      }
      if (!current) {
        throw InputError(file, at_key(e),
                         "expected a section header (one of " + accepted_sections() + ") before the first key");
      }
      const SectionSpec& spec = *current->spec;
      if (!spec.any_key && !find_key(spec, e.key)) {
        throw InputError(file, at_key(e),
                         "unknown key in [" + std::string(spec.name) + "]; accepted keys (case-insensitive): " +
                             accepted_keys(spec));
      }
      auto [it, inserted] = current->entries.emplace(to_lower(e.key), e);
      if (!inserted) {
        throw InputError(file, at_key(e),
                         "key appears twice in [" + std::string(spec.name) + "] (first on line " +
                             std::to_string(it->second.line) + "); expected it once");
      }
    }
    if (last) break;
  }
  return out;
}

const Entry* lookup(const std::map<std::string, Section>& ini, const char* section, const char* key) {
  const auto s = ini.find(section);
  if (s == ini.end()) return nullptr;
  const auto e = s->second.entries.find(to_lower(key));
  return e == s->second.entries.end() ? nullptr : &e->second;
}

const Entry& required(const std::map<std::string, Section>& ini, const char* section, const char* key,
                      const std::string& example, const std::string& file) {
  const Entry* e = lookup(ini, section, key);
  if (!e) {
    throw InputError(file, "[" + std::string(section) + "] " + key,
                     "missing required key; add e.g. '" + std::string(key) + " : " + example + "' under [" +
                         section + "]");
  }
  return *e;
}

int64_t positive_integer(const std::string& text, const Entry& e, const std::string& file) {
  std::string_view digits(text);
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || value <= 0 ||
      value > (int64_t{1} << 40)) {
    throw InputError(file, at_key(e), "expected a positive whole number, got '" + text + "'");
  }
  return value;
}

}  // namespace

SystolicConfig parse_scalesim_cfg(const std::string& text, const std::string& file) {
  const std::map<std::string, Section> ini = parse_ini(text, file);
  SystolicConfig c;
  c.source_file = file;

  const Entry* run_name = lookup(ini, "general", "run_name");
  c.name = run_name && !run_name->value.empty() ? run_name->value : std::filesystem::path(file).stem().string();
  if (c.name.empty()) c.name = "scalesim_config";

  // The same bounds as loom's JSON architectures (systolic_config.h).
  auto positive = [&](const char* key, const char* example, int64_t at_most) {
    const Entry& e = required(ini, "architecture_presets", key, example, file);
    const int64_t v = positive_integer(e.value, e, file);
    if (v > at_most) throw InputError(file, at_key(e), "expected at most " + std::to_string(at_most));
    return v;
  };
  c.rows = positive("ArrayHeight", "32", kMaxArrayDimension);
  c.cols = positive("ArrayWidth", "32", kMaxArrayDimension);
  c.sram.ifmap_bytes = positive("IfmapSramSzkB", "64", kMaxSramKib) * 1024;
  c.sram.filter_bytes = positive("FilterSramSzkB", "64", kMaxSramKib) * 1024;
  c.sram.ofmap_bytes = positive("OfmapSramSzkB", "64", kMaxSramKib) * 1024;
  c.sram.double_buffered = true;

  const Entry& df = required(ini, "architecture_presets", "Dataflow", "ws", file);
  const std::string dfl = to_lower(df.value);
  if (dfl == "ws") {
    c.dataflow = Dataflow::ws;
  } else if (dfl == "is") {
    c.dataflow = Dataflow::is;
  } else if (dfl == "os") {
    c.dataflow = Dataflow::os;
  } else {
    throw InputError(file, at_key(df), "expected a dataflow of ws, is or os, got '" + df.value + "'");
  }

  c.data_type = DataType::int8;
  c.ifmap_bits = c.filter_bits = c.ofmap_bits = 8;

  const Entry& mode = required(ini, "run_presets", "InterfaceBandwidth", "USER", file);
  const std::string model = to_lower(mode.value);
  std::string dram_text;
  c.dram.latency_cycles = 0;
  if (model == "calc") {
    c.dram.unlimited = true;
    dram_text = "InterfaceBandwidth CALC: unlimited DRAM bandwidth, zero latency";
  } else if (model == "user") {
    const Entry& bw = required(ini, "architecture_presets", "Bandwidth", "10", file);
    int64_t min_bw = 0;
    for (const std::string& item : split_trimmed(bw.value, ',')) {
      const int64_t v = positive_integer(item, bw, file);
      min_bw = min_bw == 0 ? v : std::min(min_bw, v);
    }
    if (min_bw > 1'000'000'000) throw InputError(file, at_key(bw), "expected at most 1e9 words per cycle");
    c.dram.unlimited = false;
    c.dram.bytes_per_cycle = static_cast<double>(min_bw);
    dram_text = "InterfaceBandwidth USER: " + std::to_string(min_bw) + " bytes/cycle DRAM, zero latency";
  } else {
    throw InputError(file, at_key(mode), "expected CALC or USER, got '" + mode.value + "'");
  }

  c.clock_hz = 1e9;  // SCALE-Sim has no clock; see the note at the top
  c.energy_table = "<embedded>:default_energy";

  // Keys present in the file that loom does not model, grouped by section, for the record.
  std::string ignored_text;
  for (const auto& [name, section] : ini) {
    std::string keys;
    for (const auto& [key, entry] : section.entries) {
      const KeySpec* spec = section.spec->any_key ? nullptr : find_key(*section.spec, entry.key);
      if (!spec || !spec->modeled) keys += (keys.empty() ? "" : ", ") + entry.key;
    }
    if (!keys.empty()) ignored_text += (ignored_text.empty() ? "[" : "; [") + name + "] " + keys;
  }
  c.description = "Imported from SCALE-Sim config " + file + " (name '" + c.name + "'): " +
                  std::to_string(c.rows) + "x" + std::to_string(c.cols) + " " + name_of(c.dataflow) +
                  ", 1-byte words, double-buffered SRAM, " + dram_text +
                  ", clock assumed 1 GHz (SCALE-Sim counts cycles only)." +
                  (ignored_text.empty() ? "" : " Not modeled by loom, ignored: " + ignored_text + ".");
  return c;
}

}  // namespace loom
