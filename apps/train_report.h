// The reports of `loom train` (apps/train_command.h), rendered from a TrainResult: report.json,
// kernels.csv (device 0's kernels), timeline.csv (every bar of the per-step timeline), the
// terminal summary and its one-line --quiet form, and report.html (headline numbers, the
// step-time breakdown, the per-step timeline as a Gantt chart, memory per device against
// capacity, what each switch costs, the slowest kernels, warnings). Pure functions of their
// inputs: the same result renders byte-for-byte the same files.
#pragma once

#include <string>

#include "arch/system/system_config.h"
#include "sim/json_reader.h"
#include "training/train_estimate.h"

namespace loom {

// schema_version, tool, "command"/"kind": "train", train_result_to_json's body, the resolved
// system (SystemConfig::to_json) and the workload's name and file.
Json train_report_json(const TrainResult& result, const SystemConfig& system);

// name,layer,op,phase,kind,seconds,flops,dram_bytes,launches,fusion_saved_bytes
std::string train_kernels_csv(const TrainResult& result);
// device,lane,name,phase,start_s,end_s (device: index in the system's device list)
std::string train_timeline_csv(const TrainResult& result);

// The terminal text: what ran, throughput, the step-time breakdown, scaling, memory per
// device against capacity, warnings and the effects table.
std::string format_train_summary(const TrainResult& result);
// "train: 2345.6 samples/s, step 109.2 ms, 8 devices (data), efficiency 93.1%" (and
// ", DOES NOT FIT" when a device's footprint exceeds its memory)
std::string train_quiet_line(const TrainResult& result);

// The self-contained HTML page (inline SVG, no scripts).
std::string render_train_html(const TrainResult& result);

}  // namespace loom
