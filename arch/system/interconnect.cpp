// Routing and bandwidth sharing between the devices of a system (collectives.h,
// docs/system-schema.md "Routing and sharing").
#include <algorithm>
#include <limits>
#include <map>
#include <queue>

#include "arch/system/collectives.h"
#include "sim/error.h"

namespace loom {

Interconnect::Interconnect(const SystemConfig& system)
    : file_(system.source_file),
      devices_(static_cast<int>(system.devices.size())),
      endpoints_(static_cast<int>(system.devices.size() + system.switches.size())) {
  std::map<std::string, int> index;
  for (const SystemDevice& d : system.devices) {
    index.emplace(d.name, static_cast<int>(names_.size()));
    names_.push_back(d.name);
  }
  switch_capacity_.assign(static_cast<size_t>(endpoints_), 0.0);
  switch_latency_.assign(static_cast<size_t>(endpoints_), 0.0);
  for (const SystemSwitch& w : system.switches) {
    const int i = static_cast<int>(names_.size());
    index.emplace(w.name, i);
    names_.push_back(w.name);
    switch_capacity_[static_cast<size_t>(i)] = w.bisection_bytes_per_second;
    switch_latency_[static_cast<size_t>(i)] = w.latency_seconds;
  }
  if (index.size() != names_.size()) internal_bug("interconnect", "duplicate endpoint names in system '" + system.name + "'");
  adjacency_.resize(static_cast<size_t>(endpoints_));
  for (const SystemLink& l : system.links) {
    const auto a = index.find(l.a), b = index.find(l.b);
    if (a == index.end() || b == index.end() || a->second == b->second || !(l.bytes_per_second() > 0)) {
      internal_bug("interconnect", "link " + l.a + " - " + l.b + " of system '" + system.name + "' was not validated");
    }
    adjacency_[static_cast<size_t>(a->second)].push_back({b->second, edges_++, l.bytes_per_second(), l.spec.latency_seconds});
    adjacency_[static_cast<size_t>(b->second)].push_back({a->second, edges_++, l.bytes_per_second(), l.spec.latency_seconds});
  }
}

std::vector<int> Interconnect::route(int from, int to) const {
  const auto n = static_cast<size_t>(endpoints_);
  // 1. The widest bottleneck to `to` (Dijkstra on max-min).
  std::vector<double> widest(n, 0.0);
  std::vector<char> done(n, 0);
  std::priority_queue<std::pair<double, int>> queue;
  widest[static_cast<size_t>(from)] = std::numeric_limits<double>::infinity();
  queue.push({widest[static_cast<size_t>(from)], from});
  while (!queue.empty()) {
    const auto [w, u] = queue.top();
    queue.pop();
    if (done[static_cast<size_t>(u)]) continue;
    done[static_cast<size_t>(u)] = 1;
    if (u == to) break;
    for (const Edge& e : adjacency_[static_cast<size_t>(u)]) {
      const double through = std::min(w, e.bytes_per_second);
      if (through > widest[static_cast<size_t>(e.to)]) {
        widest[static_cast<size_t>(e.to)] = through;
        queue.push({through, e.to});
      }
    }
  }
  const double bottleneck = widest[static_cast<size_t>(to)];
  if (!(bottleneck > 0)) return {};
  // 2. Hop distances to `to` over the edges at least that wide (links are symmetric).
  std::vector<int> hops(n, -1);
  std::vector<int> frontier{to};
  hops[static_cast<size_t>(to)] = 0;
  for (size_t k = 0; k < frontier.size(); ++k) {
    const int u = frontier[k];
    for (const Edge& e : adjacency_[static_cast<size_t>(u)]) {
      if (e.bytes_per_second >= bottleneck && hops[static_cast<size_t>(e.to)] < 0) {
        hops[static_cast<size_t>(e.to)] = hops[static_cast<size_t>(u)] + 1;
        frontier.push_back(e.to);
      }
    }
  }
  // 3. Walk down the distances, taking the lowest-numbered endpoint at each step.
  std::vector<int> path{from};
  int u = from;
  while (u != to) {
    int next = -1;
    for (const Edge& e : adjacency_[static_cast<size_t>(u)]) {
      if (e.bytes_per_second >= bottleneck && hops[static_cast<size_t>(e.to)] == hops[static_cast<size_t>(u)] - 1 &&
          (next < 0 || e.to < next)) {
        next = e.to;
      }
    }
    if (next < 0) internal_bug("interconnect", "widest path from " + names_[static_cast<size_t>(from)] + " lost");
    path.push_back(next);
    u = next;
  }
  return path;
}

std::vector<FlowPath> Interconnect::concurrent(const std::vector<std::pair<int, int>>& flows) const {
  struct Routed {
    std::vector<int> endpoints;
    std::vector<const Edge*> edges;
  };
  std::vector<Routed> routed(flows.size());
  std::vector<int> on_edge(static_cast<size_t>(edges_), 0);
  std::vector<int> through_switch(static_cast<size_t>(endpoints_), 0);
  for (size_t f = 0; f < flows.size(); ++f) {
    const auto [from, to] = flows[f];
    if (from < 0 || from >= devices_ || to < 0 || to >= devices_) {
      internal_bug("interconnect", "flow " + std::to_string(from) + " -> " + std::to_string(to) + " names no device of " +
                                       std::to_string(devices_));
    }
    if (from == to) {
      routed[f].endpoints = {from};
      continue;
    }
    routed[f].endpoints = route(from, to);
    if (routed[f].endpoints.empty()) {
      throw InputError(file_, "links",
                       "no path between devices '" + names_[static_cast<size_t>(from)] + "' and '" +
                           names_[static_cast<size_t>(to)] + "' through the system's links and switches");
    }
    const std::vector<int>& p = routed[f].endpoints;
    for (size_t h = 0; h + 1 < p.size(); ++h) {
      const Edge* best = nullptr;  // parallel links given as separate entries: the widest
      for (const Edge& e : adjacency_[static_cast<size_t>(p[h])]) {
        if (e.to == p[h + 1] && (!best || e.bytes_per_second > best->bytes_per_second)) best = &e;
      }
      routed[f].edges.push_back(best);
      ++on_edge[static_cast<size_t>(best->id)];
      if (h > 0 && p[h] >= devices_) ++through_switch[static_cast<size_t>(p[h])];
    }
  }

  std::vector<FlowPath> out(flows.size());
  for (size_t f = 0; f < flows.size(); ++f) {
    FlowPath& fp = out[f];
    const Routed& r = routed[f];
    for (int e : r.endpoints) fp.hops.push_back(names_[static_cast<size_t>(e)]);
    if (r.edges.empty()) {  // a device to itself
      fp.bytes_per_second = std::numeric_limits<double>::infinity();
      continue;
    }
    double bw = std::numeric_limits<double>::infinity();
    double latency = 0;
    for (const Edge* e : r.edges) {
      bw = std::min(bw, e->bytes_per_second / on_edge[static_cast<size_t>(e->id)]);
      latency += e->latency_seconds;
    }
    for (size_t h = 1; h + 1 < r.endpoints.size(); ++h) {
      const auto s = static_cast<size_t>(r.endpoints[h]);
      if (r.endpoints[h] < devices_) continue;  // a device relaying: no switch capacity
      latency += switch_latency_[s];
      if (switch_capacity_[s] > 0) bw = std::min(bw, switch_capacity_[s] / through_switch[s]);
    }
    fp.bytes_per_second = bw;
    fp.latency_seconds = latency;
  }
  return out;
}

FlowPath Interconnect::path(int from, int to) const { return concurrent({{from, to}}).front(); }

}  // namespace loom
