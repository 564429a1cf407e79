// One design point of a sweep, evaluated: its architecture built from the spec, every
// workload run at the requested fidelity, the metrics (docs/sweeps.md, "Metrics"), the
// area, and the constraints checked. The result is the point's line in points.jsonl.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sweep/design_space.h"
#include "sweep/sweep_spec.h"

namespace loom {

// Never throws for a bad point: a combination the architecture or a workload rejects is
// recorded with "error" set and "feasible": false, so one bad corner does not stop a sweep.
Json evaluate_point(const SweepSpec& spec, const DesignSpace& space, int64_t index, Fidelity fidelity);

// The record of a point that could not be evaluated, saying why.
Json failed_point(const DesignSpace& space, int64_t index, Fidelity fidelity, const std::string& error);

// "<metric> = <value> > max <limit>" for each constraint the metrics break.
std::vector<std::string> constraint_violations(const std::vector<SweepConstraint>& constraints, const Json& metrics);

// A point line is well formed: the fields every reader relies on, with their types.
bool is_point_record(const Json& line);

}  // namespace loom
