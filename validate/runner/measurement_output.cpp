#include "validate/runner/measurement_output.h"

#include <cctype>
#include <ctime>
#include <filesystem>

#include "apps/report_writer.h"
#include "sim/error.h"

namespace loom::gpu_runner {

std::string device_file_stem(const std::string& device_name) {
  std::string stem;
  for (const char c : device_name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      stem += static_cast<char>(std::tolower(u));
    } else if (!stem.empty() && stem.back() != '-') {
      stem += '-';
    }
  }
  while (!stem.empty() && stem.back() == '-') stem.pop_back();
  return stem.empty() ? "gpu" : stem;
}

std::string utc_date_today() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
}

OutputPaths output_paths(const std::string& out_dir, const std::string& device_name, const std::string& date) {
  const std::filesystem::path dir(out_dir);
  const std::string stem = device_file_stem(device_name) + "-" + date;
  return {(dir / (stem + ".json")).string(), (dir / (stem + ".partial.json")).string()};
}

std::string write_measurement_file(const std::string& path, const validate::MeasurementFile& file) {
  const Json json = validate::to_json(file);
  write_file_atomically(path, json.dump(2) + "\n");
  // Read it back the way `loom validate` will, so a file loom would reject (a recipe that
  // changed under the runner, say) is reported now rather than on the comparison machine.
  try {
    (void)validate::parse_measurements(json, path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace loom::gpu_runner
