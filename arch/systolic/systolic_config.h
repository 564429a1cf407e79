// Parameters of a systolic-array accelerator: the PE array, its three SRAM buffers, the
// DRAM interface and the clock. Loaded from loom JSON (docs/arch-schema.md) or from a
// SCALE-Sim .cfg file; both land in this one struct, which is what every model reads.
#pragma once

#include <cstdint>
#include <string>

#include "sim/json_reader.h"
#include "workloads/data_type.h"

namespace loom {

enum class Dataflow { ws, is, os };

// Input bounds that keep derived counts and simulated time far from overflow.
inline constexpr int64_t kMaxArrayDimension = 65536;
inline constexpr int64_t kMaxSramKib = int64_t{1} << 30;  // 1 TiB
const char* name_of(Dataflow d);

struct SramSpec {
  int64_t ifmap_bytes = 0, filter_bytes = 0, ofmap_bytes = 0;
  bool double_buffered = true;
  // Words per cycle each buffer can deliver (reads) or accept (writes); 0 = as wide as
  // the array edge needs, i.e. never a bottleneck.
  int64_t ifmap_words_per_cycle = 0, filter_words_per_cycle = 0, ofmap_words_per_cycle = 0;

  // Capacity usable for one fold's tile: half the buffer when double-buffered.
  int64_t working_bytes(int64_t total) const { return double_buffered ? total / 2 : total; }
};

struct DramSpec {
  bool unlimited = false;               // ideal memory: infinite bandwidth, zero latency
  double bytes_per_cycle = 0;           // sustained bandwidth (when not unlimited)
  int64_t latency_cycles = 0;           // request to first data
  std::string technology = "DDR3";      // selects the per-bit energy in the energy table
};

struct SystolicConfig {
  std::string name;
  std::string description;
  std::string source;                   // citation of the parameters
  std::string source_file;              // where it was loaded from ("<embedded>" for defaults)
  int64_t rows = 0, cols = 0;
  Dataflow dataflow = Dataflow::ws;
  DataType data_type = DataType::int8;  // operand type: selects the MAC energy
  int ifmap_bits = 8, filter_bits = 8, ofmap_bits = 32;
  SramSpec sram;
  DramSpec dram;
  double clock_hz = 1e9;
  std::string energy_table;             // resolved path, or "<embedded>:NAME"

  Json to_json() const;                 // the fully resolved config (resolved_config.json)
};

// Loads a .json (loom schema) or .cfg (SCALE-Sim) file; the extension decides.
// Throws InputError naming the file and field on any bad input.
SystolicConfig load_systolic_config(const std::string& path);
SystolicConfig parse_systolic_json(const Json& json, const std::string& file,
                                   const std::string& base_dir);
SystolicConfig parse_scalesim_cfg(const std::string& text, const std::string& file);

}  // namespace loom
