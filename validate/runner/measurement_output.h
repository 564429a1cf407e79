// Where the runner's measurement file goes and how it is written. The file is
// <out>/<gpu>-<date>.json: gpu is the device name lowercased with every run of other
// characters turned into one '-' ("NVIDIA H200" -> "nvidia-h200"), date the UTC date the
// run started. While the run goes on, what is finished so far is saved after every kernel
// family as <gpu>-<date>.partial.json (its note starts "partial:"), so an interrupted run
// keeps its results; the complete file is written at the end and the partial one removed.
// A file under the final name is therefore always complete.
#pragma once

#include <string>

#include "validate/measurements.h"

namespace loom::gpu_runner {

std::string device_file_stem(const std::string& device_name);
std::string utc_date_today();  // YYYY-MM-DD

struct OutputPaths {
  std::string final_path, partial_path;
};
OutputPaths output_paths(const std::string& out_dir, const std::string& device_name, const std::string& date);

// Renders the file and writes it atomically (temporary file + rename). Returns "" or, when
// loom could not read the file back (a runner bug: the data is written anyway), why not.
std::string write_measurement_file(const std::string& path, const validate::MeasurementFile& file);

}  // namespace loom::gpu_runner
