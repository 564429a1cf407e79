// Published figure: Eyeriss's DRAM accesses per MAC on AlexNet's convolutions (JSSC 2017),
// against loom's mapper and cost model on the Eyeriss-like row-stationary config. The
// figure, the workload, the architecture and the accepted band are in
// validate/published/eyeriss_jssc2017_alexnet.json with the source.
#include <doctest/doctest.h>

#include "arch/architecture.h"
#include "mapper/network_mapper.h"
#include "sim/json_reader.h"
#include "workloads/network.h"

using namespace loom;

TEST_CASE("published: Eyeriss AlexNet DRAM accesses per MAC under row-stationary") {
  const std::string root = LOOM_SOURCE_DIR;
  const Json data = load_json_file(root + "/validate/published/eyeriss_jssc2017_alexnet.json");
  const HierarchyConfig arch = as_hierarchy(load_architecture(root + "/" + data.at("architecture").get<std::string>()));
  Network net = load_workload(root + "/" + data.at("workload").get<std::string>());
  net.batch = data.at("batch").get<int64_t>();
  for (Layer& l : net.layers) l.batch = net.batch;
  SearchOptions options;  // the defaults `loom run` uses: EDP, automatic search, seed 1
  const std::vector<LayerMapping> mapped = map_network(net, arch, arch.dataflow, options, nullptr);
  REQUIRE(mapped.size() == 5);
  double words = 0, macs = 0;
  for (const LayerMapping& l : mapped) {
    const LevelCost& dram = l.result.cost.levels[0];
    words += static_cast<double>(dram.read_bytes + dram.write_bytes) / 2;  // 16-bit words
    macs += static_cast<double>(l.result.cost.macs);
    // Row-stationary keeps data in the PEs: the register files, not DRAM, spend the most.
    double rf = l.result.cost.levels[2].access_pj, dram_pj = dram.access_pj;
    CHECK(rf > dram_pj);
  }
  const double ratio = words / macs / data.at("dram_accesses_per_mac").get<double>();
  MESSAGE("loom " << words / macs << " DRAM accesses/MAC, " << ratio << "x the published figure");
  CHECK(ratio >= data.at("loom_to_published_ratio_bounds").at(0).get<double>());
  CHECK(ratio <= data.at("loom_to_published_ratio_bounds").at(1).get<double>());
}
