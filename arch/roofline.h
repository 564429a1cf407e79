// The roofline of an architecture (Williams, Waterman, Patterson, CACM 2009): its compute
// roofs (peak operations per second, one per data type or unit it can compute in) and its
// bandwidth roofs (peak bytes per second of each memory level), and where a layer sits
// under them. One FLOP here is one arithmetic operation: a multiply-accumulate is two,
// whatever the data type (so an INT8 array's roof is in "ops/s" like everyone else's).
#pragma once

#include <string>
#include <vector>

#include "arch/architecture.h"

namespace loom {

struct ComputeRoof {
  std::string name;  // e.g. "int8", "fp16 tensor", "fp32"
  double flops_per_second = 0;
};

struct BandwidthRoof {
  std::string level;  // the memory level's name as the evaluation reports it, e.g. "dram", "l2"
  double bytes_per_second = 0;
};

struct Roofs {
  std::vector<ComputeRoof> compute;      // highest first
  std::vector<BandwidthRoof> bandwidth;  // innermost first; "dram" (off-chip) last
  double peak_flops_per_second() const;  // the highest compute roof
  const BandwidthRoof* level(const std::string& name) const;  // nullptr when absent
};

Roofs roofs_of(const Architecture& arch);
// {"compute_roofs": [{name, flops_per_second}], "bandwidth_roofs": [{level, bytes_per_second}]}
Json roofs_to_json(const Roofs& roofs);

// Where one layer (or a whole network) sits: operational intensity against off-chip
// traffic, what it achieved, and what the roofline allows at that intensity.
struct RooflinePlacement {
  double flops = 0;
  double dram_bytes = 0;
  double seconds = 0;
  double intensity_flops_per_byte = 0;     // flops / dram_bytes (infinite when no DRAM traffic)
  double achieved_flops_per_second = 0;    // flops / seconds
  double attainable_flops_per_second = 0;  // min(peak, intensity x DRAM bandwidth)
  std::string bound;                       // "memory" or "compute": which roof is lower there
};

RooflinePlacement roofline_placement(double flops, double dram_bytes, double seconds, const Roofs& roofs);

}  // namespace loom
