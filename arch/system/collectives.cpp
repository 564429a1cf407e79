// The closed-form collectives of collectives.h over an Interconnect's routes and shares.
#include "arch/system/collectives.h"

#include <algorithm>
#include <set>

#include "sim/error.h"

namespace loom {

namespace {

// All flows of one step together: the slowest share and the longest latency.
struct StepShare {
  double bytes_per_second = 0;
  double latency_seconds = 0;
};

StepShare step_share(const Interconnect& net, const std::vector<std::pair<int, int>>& flows) {
  StepShare s;
  bool first = true;
  for (const FlowPath& f : net.concurrent(flows)) {
    s.bytes_per_second = first ? f.bytes_per_second : std::min(s.bytes_per_second, f.bytes_per_second);
    s.latency_seconds = std::max(s.latency_seconds, f.latency_seconds);
    first = false;
  }
  return s;
}

void check_group(const std::vector<int>& group) {
  std::set<int> seen(group.begin(), group.end());
  if (seen.size() != group.size()) internal_bug("collectives", "a device appears twice in a collective's group");
}

std::vector<std::pair<int, int>> ring_flows(const std::vector<int>& group) {
  std::vector<std::pair<int, int>> flows;
  for (size_t i = 0; i < group.size(); ++i) flows.emplace_back(group[i], group[(i + 1) % group.size()]);
  return flows;
}

int ceil_log2(size_t n) {
  int d = 0;
  while ((size_t{1} << d) < n) ++d;
  return d;
}

CollectiveCost finish(const char* algorithm, const StepShare& s, double bandwidth_bytes, double latency_steps) {
  CollectiveCost c;
  c.algorithm = algorithm;
  c.bottleneck_bytes_per_second = s.bytes_per_second;
  c.bandwidth_seconds = bandwidth_bytes / s.bytes_per_second;
  c.latency_seconds = latency_steps * s.latency_seconds;
  c.seconds = c.bandwidth_seconds + c.latency_seconds;
  return c;
}

CollectiveCost none() {
  CollectiveCost c;
  c.algorithm = "none";
  return c;
}

}  // namespace

const char* name_of(AllReduceAlgorithm a) {
  switch (a) {
    case AllReduceAlgorithm::ring: return "ring";
    case AllReduceAlgorithm::tree: return "tree";
  }
  return "?";
}

CollectiveCost all_reduce(const Interconnect& net, const std::vector<int>& group, int64_t bytes,
                          AllReduceAlgorithm algorithm) {
  check_group(group);
  if (group.size() <= 1 || bytes <= 0) return none();
  const double n = static_cast<double>(group.size());
  const double b = static_cast<double>(bytes);
  if (algorithm == AllReduceAlgorithm::ring) {
    // Reduce-scatter then all-gather: 2(N-1) steps of B/N bytes on every ring edge at once.
    return finish("ring", step_share(net, ring_flows(group)), 2 * (n - 1) / n * b, 2 * (n - 1));
  }
  // Binary tree over the listed order (node i's parent is (i-1)/2): every child sends to its
  // parent at once; reduce up then broadcast down, pipelined, so B crosses each edge twice.
  std::vector<std::pair<int, int>> flows;
  for (size_t i = 1; i < group.size(); ++i) flows.emplace_back(group[i], group[(i - 1) / 2]);
  return finish("tree", step_share(net, flows), 2 * b, 2.0 * ceil_log2(group.size()));
}

CollectiveCost all_gather(const Interconnect& net, const std::vector<int>& group, int64_t total_bytes) {
  check_group(group);
  if (group.size() <= 1 || total_bytes <= 0) return none();
  const double n = static_cast<double>(group.size());
  return finish("ring_all_gather", step_share(net, ring_flows(group)), (n - 1) / n * static_cast<double>(total_bytes),
                n - 1);
}

CollectiveCost point_to_point(const Interconnect& net, int from, int to, int64_t bytes) {
  if (from == to || bytes <= 0) return none();
  const FlowPath p = net.path(from, to);
  return finish("p2p", {p.bytes_per_second, p.latency_seconds}, static_cast<double>(bytes), 1);
}

}  // namespace loom
