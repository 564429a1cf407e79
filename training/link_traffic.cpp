#include "training/link_traffic.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace loom {

namespace {

std::pair<std::string, std::string> endpoints(std::string a, std::string b) {
  if (b < a) std::swap(a, b);
  return {a, b};
}

}  // namespace

LinkTraffic::LinkTraffic(const SystemConfig& system, const Interconnect& interconnect)
    : system_(system), interconnect_(interconnect) {
  for (size_t i = 0; i < system.links.size(); ++i) {
    const SystemLink& l = system.links[i];
    link_of_.emplace(endpoints(l.a, l.b), i);
    uses_.push_back({l.a, l.b, 0, 0});
  }
}

void LinkTraffic::add_flows(const std::vector<std::pair<int, int>>& flows, double bytes_per_flow, double seconds,
                            int times) {
  if (flows.empty() || bytes_per_flow <= 0) return;
  std::set<size_t> used;
  for (const FlowPath& path : interconnect_.concurrent(flows)) {
    for (size_t h = 1; h < path.hops.size(); ++h) {
      const auto it = link_of_.find(endpoints(path.hops[h - 1], path.hops[h]));
      if (it == link_of_.end()) continue;
      uses_[it->second].bytes += int64_t(std::llround(bytes_per_flow)) * times;
      used.insert(it->second);
    }
  }
  for (size_t link : used) uses_[link].busy_seconds += seconds * times;
}

void LinkTraffic::add_all_reduce(const std::vector<int>& group, int64_t bytes, AllReduceAlgorithm algorithm,
                                 double seconds) {
  const int n = static_cast<int>(group.size());
  if (n < 2) return;
  std::vector<std::pair<int, int>> flows;
  if (algorithm == AllReduceAlgorithm::ring) {
    for (int i = 0; i < n; ++i) flows.push_back({group[i], group[(i + 1) % n]});
    add_flows(flows, 2.0 * (n - 1) / n * double(bytes), seconds, 1);
    return;
  }
  // Reduce up the tree, then broadcast down it: every edge carries the data each way.
  std::vector<std::pair<int, int>> down;
  for (int i = 1; i < n; ++i) {
    flows.push_back({group[i], group[(i - 1) / 2]});
    down.push_back({group[(i - 1) / 2], group[i]});
  }
  add_flows(flows, double(bytes), seconds / 2, 1);
  add_flows(down, double(bytes), seconds / 2, 1);
}

void LinkTraffic::add_all_gather(const std::vector<int>& group, int64_t bytes, double seconds) {
  const int n = static_cast<int>(group.size());
  if (n < 2) return;
  std::vector<std::pair<int, int>> flows;
  for (int i = 0; i < n; ++i) flows.push_back({group[i], group[(i + 1) % n]});
  add_flows(flows, double(n - 1) / n * double(bytes), seconds, 1);
}

void LinkTraffic::add_point_to_point(int from, int to, int64_t bytes, double seconds, int times) {
  add_flows({{from, to}}, double(bytes), seconds, times);
}

std::vector<LinkUse> LinkTraffic::uses() const { return uses_; }

}  // namespace loom
