#include "apps/validate_command.h"

#include <cstdio>
#include <filesystem>

#include <CLI/CLI.hpp>

#include "apps/report_writer.h"
#include "apps/validate_report.h"
#include "arch/architecture.h"
#include "sim/error.h"
#include "sim/text_file.h"
#include "validate/comparison.h"
#include "validate/measurements.h"

namespace loom {

void add_validate_command(CLI::App& app, ValidateArgs& args) {
  CLI::App* v = app.add_subcommand("validate", "Compare the SIMT GPU model with measured (or published) GPU runs");
  v->add_option("--arch", args.arch, "GPU config, e.g. configs/v100.json")->required();
  v->add_option("--measured", args.measured,
                "Measurement file (docs/validation.md), e.g. validate/data/v100-published.json")
      ->required();
  v->add_option("--out", args.out, "Directory for validation.json and report.html")->capture_default_str();
  v->add_option("--kernels", args.kernels, "Only these kernels' runs, comma-separated (skips microbenchmarks)");
  v->add_option("--budget", args.budget_s,
                "Skip a run estimated to take more seconds than this to simulate, counted at a nominal 4 M warp "
                "instructions/s so the same runs are skipped on any machine (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  v->add_option("--seed", args.seed, "Seed of the simulated buffers' contents")->capture_default_str();
  v->add_flag("--allow-device-mismatch", args.allow_device_mismatch,
              "Compare even when the config models another GPU than the one measured");
  v->add_flag("--require-targets", args.require_targets, "Exit 1 when an accuracy target is not met");
  v->add_flag("-q,--quiet", args.quiet, "No progress lines");
}

validate::ValidationReport validate_gpu_model(const Architecture& arch, const std::string& measured_file,
                                             const validate::ValidationOptions& options) {
  if (!arch.is_gpu()) {
    throw InputError(arch.source_file(), "kind",
                     "a \"kind\": \"gpu\" config (loom validate compares the SIMT GPU model)");
  }
  return validate::run_validation(arch.gpu(), validate::load_measurements(measured_file), options);
}

int validate_command(const ValidateArgs& args) {
  const Architecture arch = load_architecture(args.arch);
  validate::ValidationOptions options;
  options.budget_s = args.budget_s;
  options.allow_device_mismatch = args.allow_device_mismatch;
  options.seed = args.seed;
  if (!args.kernels.empty()) options.kernels = split_trimmed(args.kernels, ',');
  if (!args.quiet) options.progress = [](const std::string& line) { std::fprintf(stderr, "  simulated %s\n", line.c_str()); };
  const validate::ValidationReport report = validate_gpu_model(arch, args.measured, options);

  std::filesystem::create_directories(args.out);
  write_file_atomically(args.out + "/validation.json", validation_to_json(report).dump(2) + "\n");
  write_file_atomically(args.out + "/report.html", validation_html(report));
  std::fputs(validation_text(report).c_str(), stdout);
  std::printf("\nwrote %s/validation.json and %s/report.html\n", args.out.c_str(), args.out.c_str());
  if (args.require_targets)
    for (const validate::Target& t : report.targets)
      if (!t.met) return 1;
  return 0;
}

}  // namespace loom
