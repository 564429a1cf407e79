#include "apps/layer_record_json.h"

#include <set>
#include <stdexcept>
#include <string>

#include "mapper/cost_model.h"

namespace loom {

// A field added to one of these structs must be added to its record too, or a resumed run
// would silently lose it: these asserts make the compiler say so.
static_assert(sizeof(LayerTiming) == 32, "LayerTiming changed: update layer_timing_to_json / _from_json");
static_assert(sizeof(simt::GpuStats) == 440, "GpuStats changed: update kGpuCounters and gpu_stats_to_json");
static_assert(sizeof(LevelMapping) == 176, "LevelMapping changed: update mapping_to_record");

Json layer_timing_to_json(const LayerTiming& t) {
  return {{"cycles", t.cycles},
          {"dram_read_bytes", t.dram_read_bytes},
          {"dram_write_bytes", t.dram_write_bytes},
          {"dram_peak_bytes_per_cycle", t.dram_peak_bytes_per_cycle}};
}

LayerTiming layer_timing_from_json(const Json& j) {
  LayerTiming t;
  t.cycles = j.at("cycles").get<int64_t>();
  t.dram_read_bytes = j.at("dram_read_bytes").get<int64_t>();
  t.dram_write_bytes = j.at("dram_write_bytes").get<int64_t>();
  t.dram_peak_bytes_per_cycle = j.at("dram_peak_bytes_per_cycle").get<double>();
  return t;
}

namespace {

struct GpuCounter {
  const char* name;
  int64_t simt::GpuStats::*member;
};
using S = simt::GpuStats;
constexpr GpuCounter kGpuCounters[] = {
    {"cycles", &S::cycles},
    {"ctas", &S::ctas},
    {"shared_carveout_bytes", &S::shared_carveout_bytes},
    {"l1_bytes", &S::l1_bytes},
    {"warp_instructions", &S::warp_instructions},
    {"thread_instructions", &S::thread_instructions},
    {"flops", &S::flops},
    {"global_load_requests", &S::global_load_requests},
    {"global_store_requests", &S::global_store_requests},
    {"l1_sector_accesses", &S::l1_sector_accesses},
    {"l1_sector_hits", &S::l1_sector_hits},
    {"l2_sector_accesses", &S::l2_sector_accesses},
    {"l2_sector_hits", &S::l2_sector_hits},
    {"dram_read_bytes", &S::dram_read_bytes},
    {"dram_write_bytes", &S::dram_write_bytes},
    {"shared_requests", &S::shared_requests},
    {"shared_wavefronts", &S::shared_wavefronts},
    {"register_bank_conflicts", &S::register_bank_conflicts},
    {"tensor_mma_instructions", &S::tensor_mma_instructions},
    {"tensor_core_ops", &S::tensor_core_ops},
    {"tensor_busy_cycles", &S::tensor_busy_cycles},
};

template <size_t N>
void array_from_json(const Json& j, std::array<int64_t, N>& out) {
  if (!j.is_array() || j.size() != N) throw std::invalid_argument("an array of " + std::to_string(N) + " counts");
  for (size_t i = 0; i < N; ++i) out[i] = j[i].get<int64_t>();
}

// GpuStats keeps the limiter as a pointer to a static name; a name read back needs storage
// that lives as long: one copy per distinct name (there are five).
const char* interned(const std::string& name) {
  static std::set<std::string> names;
  return names.insert(name).first->c_str();
}

}  // namespace

Json gpu_stats_to_json(const simt::GpuStats& s) {
  Json j = Json::object();
  for (const GpuCounter& c : kGpuCounters) j[c.name] = s.*c.member;
  j["resident_ctas_per_sm"] = s.resident_ctas_per_sm;
  j["occupancy_limiter"] = s.occupancy_limiter;
  j["warp_instructions_by_class"] = s.warp_instructions_by_class;
  j["thread_instructions_by_class"] = s.thread_instructions_by_class;
  j["subcore_cycles"] = s.subcore_cycles;
  return j;
}

simt::GpuStats gpu_stats_from_json(const Json& j) {
  simt::GpuStats s;
  for (const GpuCounter& c : kGpuCounters) s.*c.member = j.at(c.name).get<int64_t>();
  s.resident_ctas_per_sm = j.at("resident_ctas_per_sm").get<int>();
  s.occupancy_limiter = interned(j.at("occupancy_limiter").get<std::string>());
  array_from_json(j.at("warp_instructions_by_class"), s.warp_instructions_by_class);
  array_from_json(j.at("thread_instructions_by_class"), s.thread_instructions_by_class);
  array_from_json(j.at("subcore_cycles"), s.subcore_cycles);
  return s;
}

namespace {

// The mapping as raw arrays, every loop of every level: a pinned-mapping file
// (mapping_to_json) leaves out factors of 1 and reorders them, which is the same nest
// but not necessarily the same bits.
Json mapping_to_record(const Mapping& m) {
  Json levels = Json::array();
  for (int i = 0; i < m.num_levels; ++i) {
    const LevelMapping& l = m.levels[static_cast<size_t>(i)];
    levels.push_back(
        {{"temporal", l.temporal}, {"order", l.order}, {"spatial_x", l.spatial_x}, {"spatial_y", l.spatial_y}});
  }
  return levels;
}

Mapping mapping_from_record(const Json& levels) {
  if (!levels.is_array() || levels.empty() || levels.size() > static_cast<size_t>(kMaxLevels)) {
    throw std::invalid_argument("a list of 1 to " + std::to_string(kMaxLevels) + " levels");
  }
  Mapping m;
  m.num_levels = static_cast<int>(levels.size());
  for (size_t i = 0; i < levels.size(); ++i) {
    LevelMapping& l = m.levels[i];
    array_from_json(levels[i].at("temporal"), l.temporal);
    array_from_json(levels[i].at("spatial_x"), l.spatial_x);
    array_from_json(levels[i].at("spatial_y"), l.spatial_y);
    const Json& order = levels[i].at("order");
    if (!order.is_array() || order.size() != static_cast<size_t>(kNumDims)) throw std::invalid_argument("a loop order");
    for (size_t d = 0; d < l.order.size(); ++d) l.order[d] = order[d].get<int8_t>();
  }
  return m;
}

SearchMethod search_method_named(const std::string& name) {
  for (SearchMethod m :
       {SearchMethod::automatic, SearchMethod::exhaustive, SearchMethod::random, SearchMethod::anneal}) {
    if (name == name_of(m)) return m;
  }
  throw std::invalid_argument("a search method name");
}

}  // namespace

Json search_result_to_json(const SearchResult& r) {
  return {{"mapping", mapping_to_record(r.best)},
          {"method", name_of(r.method_used)},
          {"evaluated", r.evaluated},
          {"valid", r.valid},
          {"seconds", r.seconds}};
}

SearchResult search_result_from_json(const Json& j, const Problem& problem, const HierarchyConfig& arch) {
  SearchResult r;
  r.best = mapping_from_record(j.at("mapping"));
  if (r.best.num_levels != arch.num_levels()) throw std::invalid_argument("a mapping for this architecture's levels");
  r.method_used = search_method_named(j.at("method").get<std::string>());
  r.evaluated = j.at("evaluated").get<int64_t>();
  r.valid = j.at("valid").get<int64_t>();
  r.seconds = j.at("seconds").get<double>();
  if (!check_mapping(problem, arch, r.best, nullptr)) throw std::invalid_argument("a mapping that fits this layer");
  r.cost = evaluate(problem, arch, r.best);  // the search priced it with the same call
  r.found = r.cost.valid;
  if (!r.found) throw std::invalid_argument("a mapping that fits this layer");
  return r;
}

}  // namespace loom
