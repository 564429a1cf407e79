#include "arch/simt/timing/functional_units.h"

namespace loom::simt {

std::array<UnitTiming, FunctionalUnits::kUnits> FunctionalUnits::timings(const GpuConfig& c) {
  std::array<UnitTiming, kUnits> t{};
  auto set = [&](Unit unit, const FunctionalUnitConfig& fu, Unit pipe) {
    UnitTiming& u = t[static_cast<int>(unit)];
    u.occupancy = (c.warp_size + fu.lanes - 1) / fu.lanes * fu.initiation_interval;
    u.latency = fu.latency;
    u.pipe = static_cast<int>(pipe);
  };
  set(Unit::int_alu, c.int_alu, Unit::int_alu);
  set(Unit::fp32, c.fp32, Unit::fp32);
  set(Unit::fp16, c.fp16, Unit::fp32);
  set(Unit::fp64, c.fp64, Unit::fp64);
  set(Unit::sfu, c.sfu, Unit::sfu);
  set(Unit::ldst, c.ldst, Unit::ldst);  // address generation before the MIO queue
  t[static_cast<int>(Unit::tensor)].pipe = static_cast<int>(Unit::tensor);
  t[static_cast<int>(Unit::control)].pipe = static_cast<int>(Unit::control);
  return t;
}

}  // namespace loom::simt
