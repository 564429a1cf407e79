// A finished layer as one JSON object, and back, for `loom run`'s checkpoint
// (apps/run_checkpoint.h): exactly what each backend needs to rebuild the layer's result
// bit for bit, nothing it can recompute. Systolic: the engine's LayerTiming (the plan and
// the energy are recomputed). GPU: the kernel's GpuStats (the energy is recomputed).
// Hierarchy: the search's best mapping and its counters (the cost is recomputed by the
// deterministic cost model). Integers are stored as integers; doubles as nlohmann writes
// them, which reads back to the same bits (shortest round-trip form).
//
// The readers throw nlohmann's json exceptions on a record of the wrong shape; the
// checkpoint turns them into an InputError naming the file and line.
#pragma once

#include "arch/hierarchy/hierarchy_config.h"
#include "arch/simt/gpu_stats.h"
#include "arch/systolic/layer_timing.h"
#include "mapper/problem.h"
#include "mapper/search.h"
#include "sim/json_reader.h"

namespace loom {

Json layer_timing_to_json(const LayerTiming& timing);
LayerTiming layer_timing_from_json(const Json& json);

Json gpu_stats_to_json(const simt::GpuStats& stats);
simt::GpuStats gpu_stats_from_json(const Json& json);

// The search's best mapping, method and counters (not its rejection list: a found mapping
// never shows it). Reading re-prices the mapping on `arch`; a mapping the model rejects
// there is reported as std::invalid_argument.
Json search_result_to_json(const SearchResult& result);
SearchResult search_result_from_json(const Json& json, const Problem& problem, const HierarchyConfig& arch);

}  // namespace loom
