// Writes a run's results: report.json (schema: docs/report-schema.md, versioned),
// layers.csv (one row per layer plus a total row) and resolved_config.json. Everything is
// rendered before anything is written; each file is written under a temporary name and
// renamed when complete, report.json last, so an interrupted or failed run never leaves a
// partial report that looks finished.
#pragma once

#include <string>

#include "arch/systolic/systolic_config.h"
#include "arch/systolic/systolic_result.h"
#include "sim/json_reader.h"
#include "sim/text_file.h"
#include "workloads/network.h"

namespace loom {

inline constexpr int kReportSchemaVersion = 1;

struct RunContext {
  const SystolicConfig* config = nullptr;
  const Network* network = nullptr;
  bool scalesim_compat = false;
};

Json layer_to_json(const LayerResult& layer, const NetworkResult& run);
Json report_to_json(const NetworkResult& run, const RunContext& context);
std::string layers_to_csv(const NetworkResult& run);

// The three files of a run, already rendered (so a failure cannot leave a partial set),
// each written atomically into `out_dir` (created if needed), report.json last.
void write_report_files(const std::string& out_dir, const std::string& report_json,
                        const std::string& layers_csv, const std::string& resolved_json);

}  // namespace loom
