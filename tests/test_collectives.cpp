// Collectives (arch/system/collectives.h) against their closed forms, computed here from
// the formula and the links' own numbers; routing (widest, then fewest hops, then lowest
// indices), bandwidth sharing on links and switches, and the shipped systems' rings.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "arch/system/collectives.h"
#include "sim/error.h"
#include "sim/json_reader.h"

using namespace loom;

namespace {

// Relative comparison: doctest::Approx adds an absolute slack of epsilon x 1.0 (about
// 1.2e-5), which would hide microsecond errors in seconds; scale(0) makes it purely relative.
doctest::Approx approx(double v) { return doctest::Approx(v).scale(0); }

std::string source_path(const std::string& rel) { return std::string(LOOM_SOURCE_DIR) + "/" + rel; }

SystemConfig shipped(const std::string& name) { return load_system(source_path("configs/systems/" + name)); }

constexpr double kBw = 10e9;    // custom link: 10 GB/s per direction
constexpr double kLat = 2e-6;   // custom link: 2 us
constexpr int64_t kBytes = 51'000'000;

Json custom(const std::string& a, const std::string& b, double gb_s = kBw / 1e9, double us = kLat * 1e6) {
  Json l = Json::object();
  l["between"] = Json::array({a, b});
  l["type"] = "custom";
  l["bandwidth_gb_s"] = gb_s;
  l["latency_us"] = us;
  return l;
}

Json switch_entry(const std::string& name, double bisection_gb_s = 0, double latency_us = 0) {
  Json w = Json::object();
  w["name"] = name;
  w["bisection_gb_s"] = bisection_gb_s;
  w["latency_us"] = latency_us;
  return Json::array({w});
}

// `n` devices with the given links and switches (architecture: the shipped V100).
SystemConfig synthetic(int n, const Json& links, const Json& switches = Json::array()) {
  Json device = Json::object();
  device["name"] = "gpu";
  device["count"] = n;
  device["arch"] = "../v100.json";
  Json j = Json::object();
  j["name"] = "synthetic";
  j["devices"] = Json::array({device});
  j["links"] = links;
  j["switches"] = switches;
  return parse_system(j, "synthetic.json", source_path("configs/systems"));
}

std::string gpu(int i) { return "gpu" + std::to_string(i); }

// gpu0 - gpu1 - ... - gpu{n-1} - gpu0 with custom links.
SystemConfig ring_system(int n) {
  Json links = Json::array();
  for (int i = 0; i < (n == 2 ? 1 : n); ++i) links.push_back(custom(gpu(i), gpu((i + 1) % n)));  // 2: one link
  return synthetic(n, links);
}

// Every pair of n devices joined directly.
SystemConfig complete_system(int n) {
  Json links = Json::array();
  for (int i = 0; i < n; ++i) {
    for (int k = i + 1; k < n; ++k) links.push_back(custom(gpu(i), gpu(k)));
  }
  return synthetic(n, links);
}

std::vector<int> all_devices(const SystemConfig& s) {
  std::vector<int> g;
  for (size_t i = 0; i < s.devices.size(); ++i) g.push_back(static_cast<int>(i));
  return g;
}

int link_count(const SystemConfig& s, const std::string& a, const std::string& b) {
  for (const SystemLink& l : s.links) {
    if ((l.a == a && l.b == b) || (l.a == b && l.b == a)) return l.count;
  }
  return 0;
}

}  // namespace

TEST_CASE("collectives: ring all-reduce is 2(N-1)/N B/bw + 2(N-1) lat on a ring of custom links") {
  for (int n : {2, 3, 4, 7}) {
    CAPTURE(n);
    const SystemConfig s = ring_system(n);
    const Interconnect net(s);
    const CollectiveCost c = all_reduce(net, all_devices(s), kBytes, AllReduceAlgorithm::ring);
    const double expected_bw = 2.0 * (n - 1) / n * kBytes / kBw;
    const double expected_lat = 2.0 * (n - 1) * kLat;
    CHECK(c.algorithm == "ring");
    CHECK(c.bottleneck_bytes_per_second == approx(kBw));
    CHECK(c.bandwidth_seconds == approx(expected_bw));
    CHECK(c.latency_seconds == approx(expected_lat));
    CHECK(c.seconds == approx(expected_bw + expected_lat));
  }
}

TEST_CASE("collectives: tree all-reduce is 2 B/bw + 2 ceil(log2 N) lat") {
  for (int n : {2, 4, 5, 8}) {
    CAPTURE(n);
    const SystemConfig s = complete_system(n);  // every child-parent flow has its own link
    const Interconnect net(s);
    const CollectiveCost c = all_reduce(net, all_devices(s), kBytes, AllReduceAlgorithm::tree);
    const double depth = std::ceil(std::log2(static_cast<double>(n)));
    CHECK(c.algorithm == "tree");
    CHECK(c.bottleneck_bytes_per_second == approx(kBw));
    CHECK(c.seconds == approx(2.0 * kBytes / kBw + 2 * depth * kLat));
    CHECK(c.latency_seconds == approx(2 * depth * kLat));
  }
}

TEST_CASE("collectives: tree on a ring shares the links its flows are routed over") {
  // Flows 1->0, 2->0, 3->1. 2->0 has two 2-hop routes; the lowest indices win (2-1-0), so
  // the edge 1->0 carries two flows. 3->1 goes 3-0-1.
  const SystemConfig s = ring_system(4);
  const Interconnect net(s);
  const CollectiveCost c = all_reduce(net, all_devices(s), kBytes, AllReduceAlgorithm::tree);
  CHECK(c.bottleneck_bytes_per_second == approx(kBw / 2));
  CHECK(c.seconds == approx(2.0 * kBytes / (kBw / 2) + 2 * 2 * (2 * kLat)));
  const std::vector<FlowPath> f = net.concurrent({{1, 0}, {2, 0}, {3, 1}});
  CHECK(f[1].hops == std::vector<std::string>{"gpu2", "gpu1", "gpu0"});
  CHECK(f[2].hops == std::vector<std::string>{"gpu3", "gpu0", "gpu1"});
}

TEST_CASE("collectives: ring all-gather and point to point") {
  const SystemConfig s = ring_system(4);
  const Interconnect net(s);
  const CollectiveCost g = all_gather(net, all_devices(s), kBytes);
  CHECK(g.algorithm == "ring_all_gather");
  CHECK(g.seconds == approx(3.0 / 4 * kBytes / kBw + 3 * kLat));

  const CollectiveCost p = point_to_point(net, 0, 2, kBytes);  // two hops: gpu0 - gpu1 - gpu2
  CHECK(p.algorithm == "p2p");
  CHECK(p.seconds == approx(kBytes / kBw + 2 * kLat));
  CHECK(p.bottleneck_bytes_per_second == approx(kBw));
  CHECK(net.path(0, 2).hops == std::vector<std::string>{"gpu0", "gpu1", "gpu2"});
  CHECK(net.path(0, 1).latency_seconds == approx(kLat));
}

TEST_CASE("collectives: one device or no bytes costs nothing") {
  const SystemConfig s = ring_system(4);
  const Interconnect net(s);
  for (const CollectiveCost& c :
       {all_reduce(net, {2}, kBytes, AllReduceAlgorithm::ring), all_reduce(net, {}, kBytes, AllReduceAlgorithm::tree),
        all_reduce(net, all_devices(s), 0, AllReduceAlgorithm::ring), all_gather(net, {1}, kBytes),
        point_to_point(net, 3, 3, kBytes), point_to_point(net, 0, 1, 0)}) {
    CHECK(c.algorithm == "none");
    CHECK(c.seconds == 0);
  }
  CHECK(std::string(name_of(AllReduceAlgorithm::ring)) == "ring");
  CHECK(std::string(name_of(AllReduceAlgorithm::tree)) == "tree");
}

TEST_CASE("collectives: flows sharing a link direction get equal shares; opposite directions do not share") {
  const SystemConfig s = synthetic(3, Json::array({custom("gpu0", "gpu1"), custom("gpu1", "gpu2")}));
  const Interconnect net(s);
  const std::vector<FlowPath> same = net.concurrent({{0, 1}, {0, 1}});
  CHECK(same[0].bytes_per_second == approx(kBw / 2));
  CHECK(same[1].bytes_per_second == approx(kBw / 2));
  const std::vector<FlowPath> opposite = net.concurrent({{0, 1}, {1, 0}});
  CHECK(opposite[0].bytes_per_second == approx(kBw));
  CHECK(opposite[1].bytes_per_second == approx(kBw));
  // 0->2 and 1->2 share the edge 1->2; 0->2 also crosses 0->1 alone.
  const std::vector<FlowPath> merge = net.concurrent({{0, 2}, {1, 2}});
  CHECK(merge[0].bytes_per_second == approx(kBw / 2));
  CHECK(merge[1].bytes_per_second == approx(kBw / 2));
  CHECK(merge[0].latency_seconds == approx(2 * kLat));
  CHECK(net.path(0, 2).bytes_per_second == approx(kBw));  // alone
}

TEST_CASE("collectives: a switch's capacity is shared by the flows crossing it; its latency adds") {
  Json links = Json::array();
  for (int i = 0; i < 4; ++i) links.push_back(custom(gpu(i), "sw"));
  // 4 ring flows cross the switch: 20 GB/s / 4 = 5 GB/s each, below the 10 GB/s links.
  const SystemConfig limited = synthetic(4, links, switch_entry("sw", 20, 0.5));
  const Interconnect net(limited);
  const CollectiveCost c = all_reduce(net, all_devices(limited), kBytes, AllReduceAlgorithm::ring);
  const double lat = kLat + 0.5e-6 + kLat;  // link, switch, link
  CHECK(c.bottleneck_bytes_per_second == approx(5e9));
  CHECK(c.seconds == approx(2.0 * 3 / 4 * kBytes / 5e9 + 2 * 3 * lat));
  CHECK(net.path(0, 1).bytes_per_second == approx(kBw));  // one flow: 20 GB/s is not the limit
  CHECK(net.path(0, 1).hops == std::vector<std::string>{"gpu0", "sw", "gpu1"});

  // Unlimited switch (bisection 0): the links decide.
  const SystemConfig open = synthetic(4, links, switch_entry("sw"));
  const CollectiveCost o = all_reduce(Interconnect(open), all_devices(open), kBytes, AllReduceAlgorithm::ring);
  CHECK(o.bottleneck_bytes_per_second == approx(kBw));
}

TEST_CASE("collectives: routes take the widest path, then the fewest hops") {
  // gpu0-gpu1 direct at 1 GB/s; gpu0-gpu2-gpu1 at 10 GB/s: the wider detour wins.
  const SystemConfig s =
      synthetic(3, Json::array({custom("gpu0", "gpu1", 1.0), custom("gpu0", "gpu2"), custom("gpu2", "gpu1")}));
  const Interconnect net(s);
  const FlowPath p = net.path(0, 1);
  CHECK(p.hops == std::vector<std::string>{"gpu0", "gpu2", "gpu1"});
  CHECK(p.bytes_per_second == approx(kBw));
  CHECK(p.latency_seconds == approx(2 * kLat));
}

TEST_CASE("collectives: no path is an input error naming the system and both devices") {
  const SystemConfig s = synthetic(3, Json::array({custom("gpu0", "gpu1")}));
  const Interconnect net(s);
  try {
    net.path(0, 2);
    FAIL("routed between unconnected devices");
  } catch (const InputError& e) {
    CHECK(e.file() == "synthetic.json");
    CHECK(std::string(e.what()).find("no path between devices 'gpu0' and 'gpu2'") != std::string::npos);
  }
  CHECK_THROWS_AS(all_reduce(net, {0, 1, 2}, kBytes, AllReduceAlgorithm::ring), InputError);
  // The interconnect keeps its own copy: built from a temporary system, it stays valid.
  const Interconnect from_temporary(first_devices(ring_system(4), 2));
  CHECK(from_temporary.path(0, 1).bytes_per_second == approx(kBw));
}

TEST_CASE("collectives: the DGX-1 ring runs over doubled NVLink neighbours only (50 GB/s)") {
  const SystemConfig s = shipped("dgx1_v100.json");
  const Interconnect net(s);
  std::vector<std::pair<int, int>> ring;
  for (int i = 0; i < 8; ++i) ring.emplace_back(i, (i + 1) % 8);
  for (const FlowPath& f : net.concurrent(ring)) {
    CAPTURE(f.hops[0]);
    REQUIRE(f.hops.size() == 2);  // direct neighbours, no relay
    CHECK(link_count(s, f.hops[0], f.hops[1]) == 2);
    CHECK(f.bytes_per_second == approx(50e9));
    CHECK(f.latency_seconds == approx(0.47e-6));
  }
  const CollectiveCost c = all_reduce(net, all_devices(s), kBytes, AllReduceAlgorithm::ring);
  CHECK(c.bottleneck_bytes_per_second == approx(50e9));
  CHECK(c.seconds == approx(2.0 * 7 / 8 * kBytes / 50e9 + 2 * 7 * 0.47e-6));
  // Tree (parents (i-1)/2) over widest paths: the 3->2 edge (2 bricks) carries the flows of
  // 3, 4, 5 and 6, worked out by hand from the mesh: 50 / 4 GB/s; the longest route has 4 hops.
  const CollectiveCost t = all_reduce(net, all_devices(s), kBytes, AllReduceAlgorithm::tree);
  CHECK(t.bottleneck_bytes_per_second == approx(12.5e9));
  CHECK(t.latency_seconds == approx(2 * 3 * 4 * 0.47e-6));
}

TEST_CASE("collectives: DGX-2 ring runs at 6 bricks (150 GB/s); the bisection is not lower") {
  const SystemConfig s = shipped("dgx2_v100.json");
  const CollectiveCost c = all_reduce(Interconnect(s), all_devices(s), kBytes, AllReduceAlgorithm::ring);
  CHECK(c.bottleneck_bytes_per_second == approx(150e9));  // 2400 / 16 = 150 as well
  CHECK(c.seconds == approx(2.0 * 15 / 16 * kBytes / 150e9 + 2 * 15 * (2 * 0.47e-6)));
  const SystemConfig half = first_devices(s, 8);
  CHECK(all_reduce(Interconnect(half), all_devices(half), kBytes, AllReduceAlgorithm::ring).bottleneck_bytes_per_second ==
        approx(150e9));
}

TEST_CASE("collectives: PCIe and two-node rings are bound by PCIe 3.0 x16") {
  const SystemConfig p = shipped("v100x4_pcie3.json");
  const CollectiveCost c = all_reduce(Interconnect(p), all_devices(p), kBytes, AllReduceAlgorithm::ring);
  CHECK(c.bottleneck_bytes_per_second == approx(15.75e9));
  CHECK(c.latency_seconds == approx(2 * 3 * 2 * 1.0e-6));

  const SystemConfig x2 = shipped("dgx1_v100_x2_ib_edr.json");
  const Interconnect net(x2);
  const FlowPath cross = net.path(7, 8);  // n0.gpu7 -> n1.gpu0
  CHECK(cross.hops == std::vector<std::string>{"n0.gpu7", "n0.nic", "ib", "n1.nic", "n1.gpu0"});
  CHECK(cross.bytes_per_second == approx(15.75e9));
  CHECK(cross.latency_seconds == approx(1.0e-6 + 1.35e-6 + 1.35e-6 + 1.0e-6));
  const CollectiveCost r = all_reduce(net, all_devices(x2), kBytes, AllReduceAlgorithm::ring);
  CHECK(r.bottleneck_bytes_per_second == approx(15.75e9));
  CHECK(r.seconds == approx(2.0 * 15 / 16 * kBytes / 15.75e9 + 2 * 15 * 4.7e-6));
}
