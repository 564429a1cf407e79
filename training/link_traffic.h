// Communication per link: the bytes each of the system's links carries in one step and how
// long it is busy, from the collectives the schedule issued, routed the way the collectives
// route their flows (arch/system/collectives.h): ring i -> i+1, tree child <-> parent,
// point to point. Each collective adds its duration to every link it uses.
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "arch/system/collectives.h"
#include "training/train_estimate.h"

namespace loom {

class LinkTraffic {
 public:
  LinkTraffic(const SystemConfig& system, const Interconnect& interconnect);
  void add_all_reduce(const std::vector<int>& group, int64_t bytes, AllReduceAlgorithm algorithm, double seconds);
  void add_all_gather(const std::vector<int>& group, int64_t bytes, double seconds);
  void add_point_to_point(int from, int to, int64_t bytes, double seconds, int times = 1);
  std::vector<LinkUse> uses() const;  // one row per system link, in file order

 private:
  const SystemConfig& system_;
  const Interconnect& interconnect_;
  std::map<std::pair<std::string, std::string>, size_t> link_of_;  // endpoint names (sorted) -> link
  std::vector<LinkUse> uses_;
  void add_flows(const std::vector<std::pair<int, int>>& flows, double bytes_per_flow, double seconds, int times);
};

}  // namespace loom
