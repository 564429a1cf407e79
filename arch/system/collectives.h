// Communication between the devices of a system: routes, bandwidth sharing and the
// collectives that training uses, in closed form (docs/system-schema.md, "Collectives").
//
// Flows are routed on the widest path (largest bottleneck bandwidth, then fewest hops)
// through devices and switches. Flows that run at the same time share each link direction
// equally, and share a switch's bisection bandwidth; a flow's bandwidth is its smallest share
// along the path, its latency the sum of link and switch latencies.
//   ring all-reduce over N devices (listed order) of B bytes:
//        2(N-1)/N x B / bw_ring + 2(N-1) x latency_ring
//   tree all-reduce (binary tree, reduce then broadcast, pipelined):
//        2 x B / bw_tree + 2 ceil(log2 N) x latency_tree
//   ring all-gather (each device ends with all N shards of B/N bytes):
//        (N-1)/N x B / bw_ring + (N-1) x latency_ring
//   point to point: B / bw + latency
// where bw_* is the smallest flow bandwidth when all of the algorithm's flows of one step run
// together. No wire overheads, no protocol efficiencies: these are the links' figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/system/system_config.h"

namespace loom {

struct FlowPath {
  double bytes_per_second = 0;  // after sharing
  double latency_seconds = 0;
  std::vector<std::string> hops;  // endpoint names, source first
};

class Interconnect {
 public:
  explicit Interconnect(const SystemConfig& system);
  // Bandwidth and latency of each flow (device indices) when all run at the same time.
  // InputError (file = the system's) when a pair has no path.
  std::vector<FlowPath> concurrent(const std::vector<std::pair<int, int>>& flows) const;
  FlowPath path(int from, int to) const;  // alone on the network

 private:
  struct Edge { int to; int id; double bytes_per_second; double latency_seconds; };
  // Copies, not a pointer to the system: an Interconnect outlives the SystemConfig it was
  // built from (Interconnect net(first_devices(system, 4)) is fine).
  std::string file_;                      // the system's file, for errors
  std::vector<std::string> names_;        // endpoint names: devices first, then switches
  int devices_ = 0;
  int endpoints_ = 0;
  std::vector<double> switch_capacity_;   // per endpoint; 0 = unlimited (and every device)
  std::vector<double> switch_latency_;    // per endpoint; 0 for devices
  int edges_ = 0;                         // directed edges; ids 0 .. edges_-1
  std::vector<std::vector<Edge>> adjacency_;
  // The widest path, then the fewest hops, then the lowest endpoint indices; endpoint
  // indices from `from` to `to`, empty when there is no path.
  std::vector<int> route(int from, int to) const;
};

enum class AllReduceAlgorithm { ring, tree };
const char* name_of(AllReduceAlgorithm a);

struct CollectiveCost {
  double seconds = 0;
  double bandwidth_seconds = 0;   // the bytes / bandwidth part
  double latency_seconds = 0;     // the per-step latency part
  double bottleneck_bytes_per_second = 0;
  std::string algorithm;          // "ring", "tree", "ring_all_gather", "p2p", "none"
};

// `group` lists device indices in ring order; a group of one costs nothing.
CollectiveCost all_reduce(const Interconnect& net, const std::vector<int>& group, int64_t bytes,
                          AllReduceAlgorithm algorithm);
CollectiveCost all_gather(const Interconnect& net, const std::vector<int>& group, int64_t total_bytes);
CollectiveCost point_to_point(const Interconnect& net, int from, int to, int64_t bytes);

}  // namespace loom
