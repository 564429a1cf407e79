// Strict loading of system files ("loom-system/1", docs/system-schema.md) and of the link
// presets (configs/systems/links.json, embedded in the binary).
#include "arch/system/system_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "sim/embedded_files.h"
#include "sim/error.h"

namespace loom {

namespace {

namespace fs = std::filesystem;

constexpr double kGB = 1e9;       // GB/s = 1e9 bytes/s
constexpr double kMicro = 1e-6;   // us
constexpr double kGiB = 1073741824.0;
constexpr int kMaxLinkCount = 1024;  // parallel links in one entry
constexpr int kMaxNode = kMaxSystemDevices - 1;
constexpr const char* kDefaultHostSource =
    "loom defaults: 2.2 us per kernel launch and per CUDA Graph launch (CUDA 10); loader not limiting";

std::string num(double v) { return Json(v).dump(); }

// Names are used in reports, error messages and as link endpoints: keep them plain.
bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

std::string read_name(JsonReader& r, const std::string& key) {
  const std::string s = r.string(key);
  if (!valid_name(s)) {
    r.fail(key, "expected a non-empty name of letters, digits, '_', '-' and '.', got \"" + s + "\"");
  }
  return s;
}

// "a, b, c, ... (N in all)": error hints stay short on a 4096-device system.
std::string name_list(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  constexpr size_t kShown = 8;
  std::string out;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > kShown) out += ", ... (" + std::to_string(names.size()) + " in all)";
  return out;
}

double non_negative(JsonReader& r, const std::string& key, double fallback) {
  const double v = r.number(key, fallback);
  if (v < 0) r.fail(key, "expected a number >= 0, got " + num(v));
  return v;
}

std::string known_types() {
  std::string out;
  for (const LinkSpec& l : link_presets()) out += l.type + ", ";
  return out + "custom";
}

LinkSpec read_link_spec(JsonReader& l) {
  const std::string type = l.string("type");
  const bool has_bw = l.has("bandwidth_gb_s");
  const bool has_lat = l.has("latency_us");
  LinkSpec spec;
  if (type == "custom") {
    if (!has_bw) l.fail("bandwidth_gb_s", "a \"custom\" link needs bandwidth_gb_s (GB/s per direction) and latency_us");
    if (!has_lat) l.fail("latency_us", "a \"custom\" link needs latency_us (one way, microseconds) and bandwidth_gb_s");
    spec.type = "custom";
    spec.source = "custom link of the system file";
  } else {
    const LinkSpec* preset = find_link_preset(type);
    if (!preset) {
      l.fail("type", "unknown link type \"" + type + "\" (known: " + known_types() +
                         "; presets are configs/systems/links.json)");
    }
    spec = *preset;
    if (has_bw || has_lat) spec.source += " (overridden in the system file:" + std::string(has_bw ? " bandwidth" : "") +
                                          std::string(has_lat ? " latency" : "") + ")";
  }
  if (has_bw) spec.bytes_per_second = l.positive_number("bandwidth_gb_s") * kGB;
  if (has_lat) spec.latency_seconds = non_negative(l, "latency_us", 0) * kMicro;
  return spec;
}

}  // namespace

// ---------------------------------------------------------------- link presets

std::vector<LinkSpec> parse_link_presets(const Json& json, const std::string& file) {
  JsonReader r(json, file, "");
  r.choice("schema", {"loom-links/1"}, "loom-links/1");
  r.string("description", "");
  if (const Json* refs = r.optional_value("references"); refs && !refs->is_object()) {
    r.fail("references", "expected an object: reference name -> citation");
  }
  std::vector<LinkSpec> out;
  std::set<std::string> seen;
  for (JsonReader& l : r.array_of_objects("links")) {
    LinkSpec spec;
    spec.type = read_name(l, "type");
    if (spec.type == "custom") l.fail("type", "\"custom\" is reserved for links spelled out in a system file");
    if (!seen.insert(spec.type).second) l.fail("type", "link type \"" + spec.type + "\" is listed twice");
    l.string("description", "");
    spec.bytes_per_second = l.positive_number("bandwidth_gb_s") * kGB;
    spec.latency_seconds = non_negative(l, "latency_us", 0) * kMicro;
    spec.source = l.string("source");
    if (spec.source.empty()) l.fail("source", "expected a citation of the figures");
    l.string("note", "");
    l.finish();
    out.push_back(spec);
  }
  if (out.empty()) r.fail("links", "expected at least one link type");
  r.finish();
  return out;
}

const std::vector<LinkSpec>& link_presets() {
  static const std::vector<LinkSpec> presets = [] {
    const std::string_view text = embedded_file("system_links");
    if (text.empty()) internal_bug("system_config", "configs/systems/links.json was not embedded in the binary");
    try {
      return parse_link_presets(Json::parse(text), "<embedded>:system_links");
    } catch (const std::exception& e) {
      internal_bug("system_config", std::string("the embedded configs/systems/links.json is invalid: ") + e.what());
    }
  }();
  return presets;
}

const LinkSpec* find_link_preset(const std::string& type) {
  for (const LinkSpec& l : link_presets()) {
    if (l.type == type) return &l;
  }
  return nullptr;
}

// ---------------------------------------------------------------- queries

int SystemConfig::node_count() const {
  int n = 0;
  for (const SystemDevice& d : devices) n = std::max(n, d.node + 1);
  return n;
}

int SystemConfig::devices_on_node(int node) const {
  return static_cast<int>(std::count_if(devices.begin(), devices.end(), [&](const SystemDevice& d) { return d.node == node; }));
}

int SystemConfig::device_index(const std::string& device) const {
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i].name == device) return static_cast<int>(i);
  }
  return -1;
}

Json SystemConfig::to_json() const {
  Json j;
  j["schema"] = "loom-system/1";
  j["name"] = name;
  j["source"] = source;
  j["description"] = description;
  j["file"] = source_file;
  j["devices"] = Json::array();
  for (const SystemDevice& d : devices) {
    j["devices"].push_back({{"name", d.name},
                            {"arch", d.arch ? d.arch->name() : ""},
                            {"arch_kind", d.arch ? d.arch->kind_name() : ""},
                            {"arch_file", d.arch ? d.arch->source_file() : ""},
                            {"memory_bytes", d.memory_bytes},
                            {"node", d.node}});
  }
  j["switches"] = Json::array();
  for (const SystemSwitch& s : switches) {
    j["switches"].push_back({{"name", s.name},
                             {"bisection_bytes_per_second", s.bisection_bytes_per_second},
                             {"latency_seconds", s.latency_seconds}});
  }
  j["links"] = Json::array();
  for (const SystemLink& l : links) {
    j["links"].push_back({{"between", {l.a, l.b}},
                          {"type", l.spec.type},
                          {"count", l.count},
                          {"bytes_per_second_per_link", l.spec.bytes_per_second},
                          {"bytes_per_second", l.bytes_per_second()},
                          {"latency_seconds", l.spec.latency_seconds},
                          {"source", l.spec.source}});
  }
  j["host"] = {{"launch_overhead_seconds", host.launch_overhead_seconds},
               {"graph_launch_seconds", host.graph_launch_seconds},
               {"loader_samples_per_second", host.loader_samples_per_second},
               {"source", host.source}};
  return j;
}

// ---------------------------------------------------------------- loading

SystemConfig load_system(const std::string& path) {
  return parse_system(load_json_file(path), path, fs::path(path).parent_path().string());
}

SystemConfig parse_system(const Json& json, const std::string& file, const std::string& base_dir) {
  JsonReader r(json, file, "");
  SystemConfig s;
  s.source_file = file;
  r.choice("schema", {"loom-system/1"}, "loom-system/1");
  s.name = r.string("name");
  if (s.name.empty()) r.fail("name", "expected a non-empty name");
  s.source = r.string("source", "");
  s.description = r.string("description", "");
  if (const Json* notes = r.optional_value("notes"); notes && !notes->is_object() && !notes->is_string()) {
    r.fail("notes", "expected free text or an object of free-text notes");
  }

  std::map<std::string, std::string> taken;  // name -> JSON path of the entry that has it
  auto claim = [&](JsonReader& e, const std::string& key, const std::string& name) {
    auto [it, fresh] = taken.emplace(name, e.field(key));
    if (!fresh) {
      e.fail(key, "'" + name + "' is already the name of " + it->second +
                      " (names must be unique across devices and switches)");
    }
  };

  // Devices: each entry expands to `count` devices; one file loaded once, shared.
  std::map<std::string, std::shared_ptr<const Architecture>> archs;
  std::vector<JsonReader> device_entries = r.array_of_objects("devices");
  if (device_entries.empty()) r.fail("devices", "expected at least one device");
  for (JsonReader& d : device_entries) {
    const std::string base = read_name(d, "name");
    const int64_t count = d.positive_integer("count", 1);
    if (count > kMaxSystemDevices || static_cast<int64_t>(s.devices.size()) + count > kMaxSystemDevices) {
      d.fail("count", "a system has at most " + std::to_string(kMaxSystemDevices) + " devices; this entry brings it to " +
                          std::to_string(static_cast<int64_t>(s.devices.size()) + count));
    }
    const std::string arch_text = d.string("arch");
    if (arch_text.empty()) d.fail("arch", "expected the path of an architecture file");
    fs::path arch_path(arch_text);
    if (arch_path.is_relative()) arch_path = fs::path(base_dir) / arch_path;
    const std::string resolved = arch_path.lexically_normal().string();
    std::shared_ptr<const Architecture>& arch = archs[resolved];
    if (!arch) {
      std::error_code ec;
      if (!fs::is_regular_file(resolved, ec)) {
        d.fail("arch", "architecture file \"" + arch_text + "\" not found (looked for " + resolved +
                           "; relative paths are resolved against the system file's directory)");
      }
      arch = std::make_shared<const Architecture>(load_architecture(resolved));
    }
    int64_t memory = arch->is_gpu() ? arch->gpu().dram_bytes : 0;
    if (d.has("memory_gib")) {
      const double gib = d.positive_number("memory_gib");
      if (gib > 1e9) d.fail("memory_gib", "expected at most 1e9 GiB, got " + num(gib));
      memory = static_cast<int64_t>(std::llround(gib * kGiB));
    }
    const int64_t node = d.non_negative_integer("node", 0);
    if (node > kMaxNode) d.fail("node", "expected a node index from 0 to " + std::to_string(kMaxNode));
    for (int64_t i = 0; i < count; ++i) {
      const std::string name = count > 1 ? base + std::to_string(i) : base;
      claim(d, "name", name);
      s.devices.push_back({name, arch, memory, static_cast<int>(node)});
    }
    d.finish();
  }

  if (r.has("switches")) {
    for (JsonReader& w : r.array_of_objects("switches")) {
      SystemSwitch sw;
      sw.name = read_name(w, "name");
      claim(w, "name", sw.name);
      sw.bisection_bytes_per_second = non_negative(w, "bisection_gb_s", 0) * kGB;
      sw.latency_seconds = non_negative(w, "latency_us", 0) * kMicro;
      w.finish();
      s.switches.push_back(sw);
    }
  }

  std::vector<std::string> device_names, switch_names;
  for (const SystemDevice& d : s.devices) device_names.push_back(d.name);
  for (const SystemSwitch& w : s.switches) switch_names.push_back(w.name);

  if (r.has("links")) {
    std::map<std::pair<std::string, std::string>, std::string> joined;  // endpoint pair -> entry path
    for (JsonReader& l : r.array_of_objects("links")) {
      const Json& between = l.value("between");
      const std::string field = l.field("between");
      if (!between.is_array() || between.size() != 2 || !between[0].is_string() || !between[1].is_string()) {
        throw InputError(file, field, "expected two endpoint names, [\"gpu0\", \"gpu1\"], got " + between.dump());
      }
      SystemLink link;
      link.a = between[0].get<std::string>();
      link.b = between[1].get<std::string>();
      for (int k = 0; k < 2; ++k) {
        const std::string& end = k == 0 ? link.a : link.b;
        if (!taken.count(end)) {
          throw InputError(file, field + "[" + std::to_string(k) + "]",
                           "'" + end + "' is not a device or switch of this system (devices: " + name_list(device_names) +
                               "; switches: " + name_list(switch_names) + ")");
        }
      }
      if (link.a == link.b) throw InputError(file, field, "a link joins two different endpoints, got '" + link.a + "' twice");
      const auto key = std::minmax(link.a, link.b);
      auto [it, fresh] = joined.emplace(std::make_pair(key.first, key.second), field);
      if (!fresh) {
        throw InputError(file, field, "'" + link.a + "' and '" + link.b + "' are already joined by " + it->second +
                                          " (give parallel links as one entry with \"count\")");
      }
      link.spec = read_link_spec(l);
      const int64_t count = l.positive_integer("count", 1);
      if (count > kMaxLinkCount) l.fail("count", "expected at most " + std::to_string(kMaxLinkCount) + " parallel links");
      link.count = static_cast<int>(count);
      l.finish();
      s.links.push_back(link);
    }
  }

  if (r.has("host")) {
    JsonReader h = r.object("host");
    s.host.launch_overhead_seconds = non_negative(h, "launch_overhead_us", s.host.launch_overhead_seconds / kMicro) * kMicro;
    s.host.graph_launch_seconds = non_negative(h, "graph_launch_us", s.host.graph_launch_seconds / kMicro) * kMicro;
    s.host.loader_samples_per_second = non_negative(h, "loader_samples_per_s", 0);
    s.host.source = h.string("source", "");
    h.finish();
  } else {
    s.host.source = kDefaultHostSource;
  }
  r.finish();
  return s;
}

SystemConfig single_device_system(const Architecture& arch) {
  SystemConfig s;
  s.name = arch.name();
  s.source = "one device (--arch without --system)";
  s.source_file = arch.source_file();
  auto shared = std::make_shared<const Architecture>(arch);
  s.devices.push_back({"device0", shared, arch.is_gpu() ? arch.gpu().dram_bytes : 0, 0});
  s.host.source = kDefaultHostSource;
  return s;
}

SystemConfig first_devices(const SystemConfig& system, int count) {
  const int n = static_cast<int>(system.devices.size());
  if (count < 1 || count > n) {
    throw InputError("", "--devices",
                     "expected 1 to " + std::to_string(n) + " (the devices of system '" + system.name + "' in " +
                         system.source_file + "), got " + std::to_string(count));
  }
  SystemConfig out = system;
  out.devices.resize(static_cast<size_t>(count));
  std::set<std::string> kept;
  for (const SystemDevice& d : out.devices) kept.insert(d.name);
  for (const SystemSwitch& w : out.switches) kept.insert(w.name);
  out.links.clear();
  for (const SystemLink& l : system.links) {
    if (kept.count(l.a) && kept.count(l.b)) out.links.push_back(l);
  }
  return out;
}

}  // namespace loom
