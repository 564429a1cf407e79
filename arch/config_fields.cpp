#include "arch/config_fields.h"

#include <optional>

namespace loom {

double read_clock_hz(JsonReader& r) {
  const double hz = r.positive_number("clock_hz");
  if (hz < 1e3 || hz > 1e12) r.fail("clock_hz", "expected a clock between 1e3 and 1e12 Hz");
  return hz;
}

DataType read_data_type(JsonReader& r, const std::string& fallback) {
  const std::string name = r.string("data_type", fallback);
  const std::optional<DataType> parsed = parse_data_type(name);
  if (!parsed) r.fail("data_type", std::string("expected one of ") + kDataTypeNames + ", got \"" + name + "\"");
  return *parsed;
}

}  // namespace loom
