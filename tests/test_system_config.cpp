// System files (arch/system/system_config.h): every shipped system loads with the topology
// its description claims (counted here, never read back from the loader's own summary), the
// link presets match configs/systems/links.json, and bad inputs fail with InputError naming
// the file, the exact JSON field and the rule.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "arch/system/system_config.h"
#include "sim/error.h"
#include "sim/json_reader.h"

using namespace loom;
namespace fs = std::filesystem;

namespace {

// Relative comparison: doctest::Approx adds an absolute slack of epsilon x 1.0 (about
// 1.2e-5), which would hide microsecond errors in seconds; scale(0) makes it purely relative.
doctest::Approx approx(double v) { return doctest::Approx(v).scale(0); }

std::string source_path(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }

SystemConfig shipped(const std::string& name) { return load_system(source_path("configs/systems/" + name)); }

// A small valid system; tests break one thing at a time. Architecture paths resolve against
// configs/systems/, as for a shipped file.
Json good() {
  return Json::parse(R"({
    "schema": "loom-system/1",
    "name": "test system",
    "devices": [{"name": "gpu", "count": 4, "arch": "../v100.json"}],
    "switches": [{"name": "sw", "bisection_gb_s": 100, "latency_us": 0.5}],
    "links": [
      {"between": ["gpu0", "gpu1"], "type": "nvlink2", "count": 2},
      {"between": ["gpu2", "sw"], "type": "custom", "bandwidth_gb_s": 10, "latency_us": 1.5},
      {"between": ["gpu3", "sw"], "type": "pcie3"}
    ]
  })");
}

SystemConfig parse(const Json& j) { return parse_system(j, "sys.json", source_path("configs/systems")); }

void expect_error(const Json& j, const std::string& field, const std::string& rule) {
  CAPTURE(field);
  try {
    parse(j);
    FAIL("accepted a bad system");
  } catch (const InputError& e) {
    CHECK(e.file() == "sys.json");
    CHECK(e.field() == field);
    CHECK_MESSAGE(std::string(e.what()).find(rule) != std::string::npos, std::string(e.what()));
  }
}

// Parallel links (bricks) touching each endpoint.
std::map<std::string, int> links_per_endpoint(const SystemConfig& s) {
  std::map<std::string, int> out;
  for (const SystemLink& l : s.links) {
    out[l.a] += l.count;
    out[l.b] += l.count;
  }
  return out;
}

std::vector<std::string> device_names(const SystemConfig& s) {
  std::vector<std::string> out;
  for (const SystemDevice& d : s.devices) out.push_back(d.name);
  return out;
}

}  // namespace

TEST_CASE("system: every shipped system loads, cites a source and describes itself") {
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(source_path("configs/systems"))) {
    if (e.path().extension() != ".json" || e.path().filename() == "links.json") continue;
    CAPTURE(e.path().string());
    const SystemConfig s = load_system(e.path().string());
    CHECK(!s.name.empty());
    CHECK(!s.source.empty());
    CHECK(!s.description.empty());
    CHECK(s.source_file == e.path().string());
    files.insert(e.path().filename().string());
  }
  CHECK(files == std::set<std::string>{"dgx1_v100.json", "dgx1_v100_x2_ib_edr.json", "dgx2_v100.json", "dgx_a100.json",
                                       "hgx_h200.json", "v100_single.json", "v100x4_pcie3.json"});
}

TEST_CASE("system: DGX-1 has 8 V100s, 16 NVLink pairs, 6 bricks per GPU, 8 of them doubled") {
  const SystemConfig s = shipped("dgx1_v100.json");
  CHECK(device_names(s) == std::vector<std::string>{"gpu0", "gpu1", "gpu2", "gpu3", "gpu4", "gpu5", "gpu6", "gpu7"});
  CHECK(s.switches.empty());
  CHECK(s.links.size() == 16);
  int doubled = 0;
  for (const SystemLink& l : s.links) {
    CHECK(l.spec.type == "nvlink2");
    CHECK(l.bytes_per_second() == approx(25e9 * l.count));
    doubled += l.count == 2;
  }
  CHECK(doubled == 8);
  for (const auto& endpoint : links_per_endpoint(s)) {
    const auto& name = endpoint.first;  // not a binding: clang 14 cannot capture one
    const auto bricks = endpoint.second;
    CAPTURE(name);
    CHECK(bricks == 6);  // a V100 has 6 NVLink 2.0 bricks, all used in a DGX-1
  }
  // One architecture file, loaded once and shared.
  for (const SystemDevice& d : s.devices) {
    CHECK(d.arch == s.devices[0].arch);
    CHECK(d.memory_bytes == int64_t(16) << 30);  // from the architecture's dram.bytes
    CHECK(d.node == 0);
  }
  CHECK(s.devices[0].arch->name() == "V100-SXM2-16GB");
  CHECK(s.node_count() == 1);
  CHECK(s.devices_on_node(0) == 8);
  CHECK(s.device_index("gpu5") == 5);
  CHECK(s.device_index("gpu8") == -1);
  CHECK(s.host.launch_overhead_seconds == approx(2.2e-6));
}

TEST_CASE("system: DGX-2 joins 16 V100 32 GB to one NVSwitch with 6 bricks each") {
  const SystemConfig s = shipped("dgx2_v100.json");
  CHECK(s.devices.size() == 16);
  REQUIRE(s.switches.size() == 1);
  CHECK(s.switches[0].name == "nvswitch");
  CHECK(s.switches[0].bisection_bytes_per_second == approx(2.4e12));
  CHECK(s.links.size() == 16);
  for (const SystemLink& l : s.links) {
    CHECK(l.b == "nvswitch");
    CHECK(l.count == 6);
    CHECK(l.bytes_per_second() == approx(150e9));
  }
  for (const SystemDevice& d : s.devices) CHECK(d.memory_bytes == int64_t(32) << 30);  // memory_gib override
}

TEST_CASE("system: 4 V100 on a PCIe 3.0 switch, single V100, DGX A100, HGX H200") {
  const SystemConfig p = shipped("v100x4_pcie3.json");
  CHECK(p.devices.size() == 4);
  REQUIRE(p.switches.size() == 1);
  CHECK(p.links.size() == 4);
  for (const SystemLink& l : p.links) {
    CHECK(l.spec.type == "pcie3");
    CHECK(l.bytes_per_second() == approx(15.75e9));
    CHECK(l.spec.latency_seconds == approx(1.0e-6));
  }

  const SystemConfig one = shipped("v100_single.json");
  CHECK(device_names(one) == std::vector<std::string>{"gpu0"});
  CHECK(one.links.empty());
  CHECK(one.switches.empty());

  const SystemConfig a = shipped("dgx_a100.json");
  CHECK(a.devices.size() == 8);
  CHECK(a.devices[0].arch->name() == "A100-SXM4-40GB");
  CHECK(a.devices[0].memory_bytes == int64_t(40) << 30);
  for (const auto& [name, links] : links_per_endpoint(a)) CHECK(links == (name == "nvswitch" ? 96 : 12));

  const SystemConfig h = shipped("hgx_h200.json");
  CHECK(h.devices.size() == 8);
  CHECK(h.devices[0].arch->name() == "H200-SXM-141GB");
  for (const SystemLink& l : h.links) CHECK(l.bytes_per_second() == approx(450e9));  // 900 GB/s bidirectional
}

TEST_CASE("system: two DGX-1 nodes joined by InfiniBand EDR") {
  const SystemConfig s = shipped("dgx1_v100_x2_ib_edr.json");
  REQUIRE(s.devices.size() == 16);
  CHECK(s.devices[0].name == "n0.gpu0");
  CHECK(s.devices[15].name == "n1.gpu7");
  CHECK(s.node_count() == 2);
  CHECK(s.devices_on_node(0) == 8);
  CHECK(s.devices_on_node(1) == 8);
  CHECK(s.devices[8].node == 1);
  CHECK(s.switches.size() == 3);
  CHECK(s.links.size() == 16 + 16 + 8 + 8 + 2);
  const auto per = links_per_endpoint(s);
  for (const SystemDevice& d : s.devices) CHECK(per.at(d.name) == 6 + 1);  // 6 NVLink bricks + PCIe to the NICs
  CHECK(per.at("ib") == 8);  // 4 EDR ports from each node
  int ib = 0;
  for (const SystemLink& l : s.links) {
    if (l.spec.type != "ib_edr") continue;
    ++ib;
    CHECK(l.bytes_per_second() == approx(4 * 12.5e9));
  }
  CHECK(ib == 2);
}

TEST_CASE("system: link presets are links.json as embedded, with cited figures") {
  const std::vector<LinkSpec> on_disk =
      parse_link_presets(load_json_file(source_path("configs/systems/links.json")), "links.json");
  const std::vector<LinkSpec>& embedded = link_presets();
  REQUIRE(on_disk.size() == embedded.size());
  for (size_t i = 0; i < embedded.size(); ++i) {
    CHECK(embedded[i].type == on_disk[i].type);
    CHECK(embedded[i].bytes_per_second == on_disk[i].bytes_per_second);
    CHECK(embedded[i].latency_seconds == on_disk[i].latency_seconds);
    CHECK(!embedded[i].source.empty());
  }
  // Per direction: NVLink 25 GB/s per brick/link; PCIe x16 by generation; InfiniBand 4x ports.
  const std::map<std::string, double> expected = {{"nvlink2", 25e9}, {"nvlink3", 25e9}, {"nvlink4", 25e9},
                                                  {"pcie2", 8e9},    {"pcie3", 15.75e9}, {"pcie4", 31.5e9},
                                                  {"pcie5", 63e9},   {"ib_edr", 12.5e9}, {"ib_hdr", 25e9},
                                                  {"ib_ndr", 50e9}};
  for (const auto& preset : expected) {
    const auto& type = preset.first;  // not a binding: clang 14 cannot capture one
    const auto bw = preset.second;
    CAPTURE(type);
    const LinkSpec* l = find_link_preset(type);
    REQUIRE(l != nullptr);
    CHECK(l->bytes_per_second == approx(bw));
    CHECK(l->latency_seconds > 0);
    CHECK(l->latency_seconds < 10e-6);
  }
  CHECK(find_link_preset("custom") == nullptr);
  CHECK(find_link_preset("nvlink9") == nullptr);
}

TEST_CASE("system: the test system parses; overrides, defaults and to_json") {
  Json j = good();
  j["links"][2]["bandwidth_gb_s"] = 12;  // a preset with its bandwidth overridden
  j["devices"][0]["memory_gib"] = 32;
  j["host"] = {{"launch_overhead_us", 5}, {"loader_samples_per_s", 3000}};
  const SystemConfig s = parse(j);
  CHECK(device_names(s) == std::vector<std::string>{"gpu0", "gpu1", "gpu2", "gpu3"});
  CHECK(s.links[0].bytes_per_second() == approx(50e9));
  CHECK(s.links[1].spec.type == "custom");
  CHECK(s.links[1].bytes_per_second() == approx(10e9));
  CHECK(s.links[1].spec.latency_seconds == approx(1.5e-6));
  CHECK(s.links[2].spec.type == "pcie3");
  CHECK(s.links[2].bytes_per_second() == approx(12e9));
  CHECK(s.links[2].spec.latency_seconds == approx(1.0e-6));  // the preset's
  CHECK(s.links[2].spec.source.find("overridden") != std::string::npos);
  CHECK(s.switches[0].bisection_bytes_per_second == approx(100e9));
  CHECK(s.switches[0].latency_seconds == approx(0.5e-6));
  CHECK(s.devices[0].memory_bytes == int64_t(32) << 30);
  CHECK(s.host.launch_overhead_seconds == approx(5e-6));
  CHECK(s.host.graph_launch_seconds == approx(2.2e-6));
  CHECK(s.host.loader_samples_per_second == 3000);

  const Json r = s.to_json();
  CHECK(r["devices"].size() == 4);
  CHECK(r["devices"][0]["arch"] == "V100-SXM2-16GB");
  CHECK(r["devices"][0]["arch_kind"] == "gpu");
  CHECK(r["devices"][0]["memory_bytes"] == int64_t(32) << 30);
  CHECK(r["links"][0]["bytes_per_second"].get<double>() == approx(50e9));
  CHECK(r["links"][0]["count"] == 2);
  CHECK(r["links"][0]["between"] == Json::array({"gpu0", "gpu1"}));
  CHECK(r["switches"][0]["name"] == "sw");
  CHECK(r["host"]["loader_samples_per_second"] == 3000);
}

TEST_CASE("system: bad inputs name the file, the field and the rule") {
  Json j = good();
  j["links"][0]["between"][1] = "gpu9";
  expect_error(j, "links[0].between[1]", "'gpu9' is not a device or switch of this system (devices: gpu0, gpu1, gpu2, gpu3; switches: sw)");

  j = good();
  j["devices"].push_back({{"name", "gpu1"}, {"arch", "../v100.json"}});
  expect_error(j, "devices[1].name", "'gpu1' is already the name of devices[0].name");

  j = good();
  j["switches"][0]["name"] = "gpu2";
  expect_error(j, "switches[0].name", "already the name");

  j = good();
  j["links"][0]["type"] = "nvlink9";
  expect_error(j, "links[0].type", "unknown link type \"nvlink9\" (known: nvlink2");

  j = good();
  j["links"][1].erase("bandwidth_gb_s");
  expect_error(j, "links[1].bandwidth_gb_s", "a \"custom\" link needs bandwidth_gb_s");

  j = good();
  j["links"][1].erase("latency_us");
  expect_error(j, "links[1].latency_us", "a \"custom\" link needs latency_us");

  j = good();
  j["links"][0]["colour"] = "green";
  expect_error(j, "links[0].colour", "unknown key");

  j = good();
  j["hosts"] = Json::object();
  expect_error(j, "hosts", "unknown key");

  j = good();
  j["devices"][0]["arch"] = "../no_such_gpu.json";
  expect_error(j, "devices[0].arch", "architecture file \"../no_such_gpu.json\" not found");

  j = good();
  j["devices"][0]["count"] = 4097;
  expect_error(j, "devices[0].count", "at most 4096 devices");

  j = good();
  j["devices"][0]["count"] = 4000;
  j["devices"].push_back({{"name", "more"}, {"count", 97}, {"arch", "../v100.json"}});
  expect_error(j, "devices[1].count", "at most 4096 devices; this entry brings it to 4097");

  j = good();
  j["devices"][0]["count"] = 0;
  expect_error(j, "devices[0].count", "positive");

  j = good();
  j["devices"] = Json::array();
  expect_error(j, "devices", "at least one device");

  j = good();
  j["links"][0]["count"] = 0;
  expect_error(j, "links[0].count", "positive");

  j = good();
  j["links"][0]["between"] = Json::array({"gpu0", "gpu0"});
  expect_error(j, "links[0].between", "two different endpoints");

  j = good();
  j["links"][0]["between"] = Json::array({"gpu0"});
  expect_error(j, "links[0].between", "expected two endpoint names");

  j = good();
  j["links"].push_back({{"between", {"gpu1", "gpu0"}}, {"type", "pcie3"}});
  expect_error(j, "links[3].between", "already joined by links[0].between");

  j = good();
  j["devices"][0]["name"] = "gpu 0";
  expect_error(j, "devices[0].name", "letters, digits");

  j = good();
  j["switches"][0]["bisection_gb_s"] = -1;
  expect_error(j, "switches[0].bisection_gb_s", ">= 0");

  j = good();
  j["schema"] = "loom-system/2";
  expect_error(j, "schema", "loom-system/1");
}

TEST_CASE("system: single_device_system and first_devices") {
  const SystemConfig dgx1 = shipped("dgx1_v100.json");
  const SystemConfig one = single_device_system(*dgx1.devices[0].arch);
  REQUIRE(one.devices.size() == 1);
  CHECK(one.devices[0].name == "device0");
  CHECK(one.devices[0].memory_bytes == int64_t(16) << 30);
  CHECK(one.links.empty());
  CHECK(one.name == "V100-SXM2-16GB");

  const SystemConfig four = first_devices(dgx1, 4);
  CHECK(device_names(four) == std::vector<std::string>{"gpu0", "gpu1", "gpu2", "gpu3"});
  CHECK(four.links.size() == 6);  // gpu0..gpu3 are fully connected in the DGX-1 mesh
  for (const SystemLink& l : four.links) {
    CHECK(four.device_index(l.a) >= 0);
    CHECK(four.device_index(l.b) >= 0);
  }
  CHECK(first_devices(dgx1, 8).links.size() == 16);

  const SystemConfig dgx2 = first_devices(shipped("dgx2_v100.json"), 3);
  CHECK(dgx2.switches.size() == 1);  // switches stay
  CHECK(dgx2.links.size() == 3);

  const SystemConfig node0 = first_devices(shipped("dgx1_v100_x2_ib_edr.json"), 8);
  CHECK(node0.node_count() == 1);
  CHECK(node0.links.size() == 16 + 8 + 2);  // NVLink, PCIe to n0.nic, and the switch-to-switch IB links

  for (int bad : {0, 9, -1}) {
    CAPTURE(bad);
    try {
      first_devices(dgx1, bad);
      FAIL("accepted a bad device count");
    } catch (const InputError& e) {
      CHECK(e.field() == "--devices");
      CHECK(std::string(e.what()).find("expected 1 to 8") != std::string::npos);
    }
  }
}
