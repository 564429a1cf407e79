// The SIMT timing model's results, pinned. tests/data/simt_timing_reference.json lists
// launches of the shipped kernels (every kernel on the V100 at its default sizes, the GEMMs
// and the reduction on the other GPUs, the WMMA GEMM at 512^3, the tiled GEMM and the
// reduction under loose round-robin scheduling) with every counter each one
// produced (GpuStats, as the reports write them). This test runs each launch again and
// requires every counter to be equal.
//
// Why: most changes to the simulator are for its speed (docs/performance.md), and each must
// leave every simulated result as it was. A changed counter here names the launch and the
// counter. A change that moves results on purpose (a model change) rewrites the file:
//
//   LOOM_WRITE_TIMING_REFERENCE=1 build/loom_tests -tc='*reference launches*'
//
// and the file's diff shows what moved, for review with the change.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/layer_record_json.h"
#include "arch/simt/gpu_config.h"
#include "arch/simt/kernels/kernel_catalog.h"
#include "arch/simt/kernels/recipe_runner.h"

using namespace loom;
using namespace loom::simt;
using Json = nlohmann::json;

namespace {

const std::string kReferencePath = std::string(LOOM_SOURCE_DIR) + "/tests/data/simt_timing_reference.json";

Json read_reference() {
  std::ifstream in(kReferencePath);
  REQUIRE_MESSAGE(in.good(), "cannot read " << kReferencePath);
  return Json::parse(in);
}

// The statistics of one listed launch, computed now: inputs as `loom gpu` makes them (its
// default seed), without the CPU check of the outputs (other tests check those).
Json simulate(const Json& c) {
  GpuConfig config = load_gpu_config(std::string(LOOM_SOURCE_DIR) + "/" + c.at("arch").get<std::string>());
  // Every shipped config schedules GTO; a case may ask for loose round-robin instead.
  const std::string scheduler = c.value("scheduler", "gto");
  REQUIRE_MESSAGE((scheduler == "gto" || scheduler == "lrr"), "scheduler: expected \"gto\" or \"lrr\", got " << scheduler);
  if (scheduler == "lrr") config.scheduler = WarpSchedulerPolicy::lrr;
  const std::string kernel = c.at("kernel").get<std::string>();
  const LaunchRecipe recipe = make_launch_recipe(kernel, c.at("sizes").get<std::map<std::string, int64_t>>(), "sizes");
  RecipeRunOptions options;
  options.verify = false;
  return gpu_stats_to_json(run_recipe(recipe, shipped_kernel(kernel), config, options).stats);
}

std::string name_of(const Json& c) {
  std::string name = c.at("arch").get<std::string>() + " " + c.at("kernel").get<std::string>();
  for (const auto& [size, value] : c.at("sizes").items()) name += " " + size + "=" + std::to_string(value.get<int64_t>());
  if (c.contains("scheduler")) name += " scheduler=" + c.at("scheduler").get<std::string>();
  return name;
}

}  // namespace

TEST_CASE("simt timing: reference launches give the recorded statistics, counter for counter") {
  Json reference = read_reference();
  Json& cases = reference.at("cases");
  REQUIRE(cases.size() >= 20);  // a file emptied by mistake would pass with nothing checked
  if (std::getenv("LOOM_WRITE_TIMING_REFERENCE")) {
    for (Json& c : cases) c["stats"] = simulate(c);
    std::ofstream out(kReferencePath);
    out << reference.dump(2) << "\n";
    REQUIRE_MESSAGE(out.good(), "cannot write " << kReferencePath);
    MESSAGE("wrote " << kReferencePath << " (" << cases.size() << " launches): review its diff");
    return;
  }
  for (const Json& c : cases) {
    const std::string launch = name_of(c);
    CAPTURE(launch);
    const Json now = simulate(c);
    const Json& recorded = c.at("stats");
    REQUIRE_MESSAGE(recorded.is_object(), "no statistics recorded for this launch: run the test with LOOM_WRITE_TIMING_REFERENCE=1 to record them");
    // Counter by counter, so that a failure names what moved.
    for (auto it = recorded.begin(); it != recorded.end(); ++it) {
      const std::string& counter = it.key();  // not a binding: clang 14 cannot capture one
      CAPTURE(counter);
      REQUIRE(now.contains(counter));
      CHECK(now.at(counter) == it.value());
    }
    CHECK(now.size() == recorded.size());  // a counter added to GpuStats: rewrite the file
  }
}
