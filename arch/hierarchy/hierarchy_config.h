// A general accelerator: an ordered list of storage levels, outermost (DRAM) first, each
// with its capacity (shared or partitioned per operand), bandwidth, per-access energy and
// an optional 2-D spatial fan-out to the level below it (the last level fans out to the
// MAC units). Schema: docs/arch-schema.md ("kind": "hierarchy"). The systolic configs of
// arch/systolic/ are instances of it (hierarchy_from_systolic).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapper/problem.h"
#include "sim/json_reader.h"
#include "workloads/data_type.h"

namespace loom {

struct SystolicConfig;
class EnergyTable;

enum class LevelKind { dram, sram, regfile };
const char* name_of(LevelKind k);

inline constexpr int kMaxLevels = 8;

// Fan-out from one storage level to the instances of the next level (or to the MACs).
struct Fanout {
  int64_t x = 1, y = 1;          // mesh columns and rows
  bool multicast = true;         // one parent read can feed every child that needs the word
  bool reduction = true;         // partial sums of the same output are added in the network
  bool systolic = false;         // neighbour-to-neighbour pipeline: each new stationary tile
                                 // pays preload + skew (see docs/cost-model.md)
  // Energy per word of each operand delivered to one child: a table component's energy
  // scaled by that operand's word bits, or the explicit per-word value.
  std::array<double, kNumOperands> operand_hop_pj{0, 0, 0};
  int64_t size() const { return x * y; }
};

struct StorageLevel {
  std::string name;
  LevelKind kind = LevelKind::sram;
  std::array<bool, kNumOperands> keeps{true, true, true};  // false: operand bypasses
  // Capacity per instance. Shared: one pool for all kept operands. Partitioned: one
  // pool per operand (0 for operands not kept). Unbounded (DRAM): both unused.
  bool unbounded = false;
  bool shared = true;
  int64_t capacity_bytes = 0;
  std::array<int64_t, kNumOperands> operand_capacity_bytes{0, 0, 0};
  bool double_buffered = false;  // tiles may use only half of each pool
  // Per instance, bytes per cycle; 0 = unlimited.
  double read_bytes_per_cycle = 0, write_bytes_per_cycle = 0;
  // Per word of each operand (resolved at load from the explicit value or the table).
  std::array<double, kNumOperands> read_pj{0, 0, 0}, write_pj{0, 0, 0};
  double leakage_pj_per_cycle = 0;  // per instance
  std::string technology;           // DRAM: selects pJ/bit in the energy table
  Fanout fanout;                    // to the next level, or to the MACs for the last level

  // Bytes one instance may hold of `operand` in one tile (halved when double-buffered).
  // For a shared level this is the whole pool; the check sums the operands.
  int64_t usable_bytes(int operand) const;
};

struct HierarchyConfig {
  std::string name, description, source;
  std::string source_file;              // where it was loaded from
  double clock_hz = 1e9;
  DataType data_type = DataType::int16; // MAC operand type: selects the MAC energy
  std::array<int, kNumOperands> word_bits{16, 16, 32};  // weights, inputs, outputs
  bool im2col = false;                  // the array sees convolutions as their GEMM view
  std::string dataflow;                 // built-in mapping constraint ("" = none): ws is os rs
  std::vector<StorageLevel> levels;     // outermost first; levels[0] is DRAM
  double mac_pj = 0;                    // resolved from the energy table
  std::string energy_table;             // resolved path or "<embedded>:NAME"
  double energy_technology_nm = 0;      // > 0: the table was scaled to this node
  std::string energy_unit = "pJ";       // the table's unit; every *_pj above is in it
  // Set for instances derived from a systolic config: the array's rows and columns.
  std::optional<std::pair<int64_t, int64_t>> systolic_array;

  int num_levels() const { return static_cast<int>(levels.size()); }
  int64_t total_pes() const;            // product of every fan-out
  // Index of the level whose fan-out feeds the PE array (largest fan-out), -1 if none.
  int array_level() const;
  Json to_json() const;
};

// Loads a "kind": "hierarchy" JSON; InputError names file, field and rule on bad input,
// including an energy table that lacks a component a level needs.
HierarchyConfig parse_hierarchy_json(const Json& json, const std::string& file,
                                     const std::string& base_dir);
HierarchyConfig load_hierarchy_config(const std::string& path);

// The systolic array as a hierarchy: DRAM -> per-operand SRAM buffers -(rows x cols,
// systolic, multicast by forwarding, reduction down the columns)-> one-word PE registers.
HierarchyConfig hierarchy_from_systolic(const SystolicConfig& config, const EnergyTable& energy);

}  // namespace loom
