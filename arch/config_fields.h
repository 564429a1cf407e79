// Fields every architecture file has, read by one rule whatever its kind.
#pragma once

#include <string>

#include "sim/json_reader.h"
#include "workloads/data_type.h"

namespace loom {

// "clock_hz": a positive number between 1e3 and 1e12.
double read_clock_hz(JsonReader& r);
// "data_type": one of the data type names; `fallback` when absent.
DataType read_data_type(JsonReader& r, const std::string& fallback);

}  // namespace loom
