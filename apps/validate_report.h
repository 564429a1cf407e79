// What `loom validate` prints and writes: a terminal summary, validation.json (schema in
// docs/validation.md, "Report") and report.html (the measured-vs-simulated scatter on
// log axes and the same tables).
#pragma once

#include <string>

#include "sim/json_reader.h"
#include "validate/comparison.h"

namespace loom {

Json validation_to_json(const validate::ValidationReport& report);
std::string validation_text(const validate::ValidationReport& report);
std::string validation_html(const validate::ValidationReport& report);

}  // namespace loom
