// A multi-device system (`loom train --system FILE`): devices (any loom architecture), the
// switches and links that connect them, and the host that feeds them. Schema:
// docs/system-schema.md; shipped systems: configs/systems/; link types with their published
// bandwidths and latencies: configs/systems/links.json.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arch/architecture.h"
#include "sim/json_reader.h"

namespace loom {

// One link type (a row of configs/systems/links.json, or spelled out in the system file).
struct LinkSpec {
  std::string type;                 // "nvlink2", "pcie3", "ib_edr", ... or "custom"
  double bytes_per_second = 0;      // per direction
  double latency_seconds = 0;       // one hop, one way
  std::string source;               // citation of the figures
};

struct SystemDevice {
  std::string name;                 // unique: "gpu0", "n1.gpu3"
  std::shared_ptr<const Architecture> arch;  // devices of one file share one loaded copy
  int64_t memory_bytes = 0;         // device memory; 0 = unknown (fit not checked)
  int node = 0;                     // host (node) index, for the input pipeline and reports
};

struct SystemSwitch {
  std::string name;
  double bisection_bytes_per_second = 0;  // capacity shared by flows crossing it; 0 = unlimited
  double latency_seconds = 0;
};

// A bidirectional link between two endpoints (device or switch names); `count` parallel
// links add their bandwidth (NVLink bricks between one GPU pair).
struct SystemLink {
  std::string a, b;
  LinkSpec spec;
  int count = 1;
  double bytes_per_second() const { return spec.bytes_per_second * count; }
};

struct HostSpec {
  double launch_overhead_seconds = 2.2e-6;  // CPU time per kernel launch (CUDA 10)
  double graph_launch_seconds = 2.2e-6;     // one CUDA Graph launch replaces a step's launches
  double loader_samples_per_second = 0;     // per node: decode + augment rate; 0 = not limiting
  std::string source;
};

struct SystemConfig {
  std::string name, source, source_file;
  std::string description;
  std::vector<SystemDevice> devices;  // listed order = ring order for collectives
  std::vector<SystemSwitch> switches;
  std::vector<SystemLink> links;
  HostSpec host;

  int node_count() const;                 // max node + 1
  int devices_on_node(int node) const;
  int device_index(const std::string& name) const;  // -1 when absent
  Json to_json() const;                   // resolved: every device, switch and link spelled out
};

// Strict loading; InputError names the file and field (unknown device in a link, duplicate
// names, unknown link type, a device count out of range, a missing architecture file, ...).
SystemConfig load_system(const std::string& path);
SystemConfig parse_system(const Json& json, const std::string& file, const std::string& base_dir);
// `--arch FILE` without `--system`: one device, no links, default host.
SystemConfig single_device_system(const Architecture& arch);
// The first `count` devices with the links and switches among them (scaling studies:
// `--devices N`). InputError when count is out of 1 .. devices.size().
SystemConfig first_devices(const SystemConfig& system, int count);

// The most devices one system may have (after expanding "count").
constexpr int kMaxSystemDevices = 4096;

// The shipped link types (configs/systems/links.json, embedded in the binary).
const std::vector<LinkSpec>& link_presets();
const LinkSpec* find_link_preset(const std::string& type);
// Strict reading of a links.json document ("loom-links/1"); `file` names it in errors.
std::vector<LinkSpec> parse_link_presets(const Json& json, const std::string& file);

}  // namespace loom
