#include "apps/gpu_command.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/gpu_report.h"
#include "apps/report_writer.h"
#include "arch/architecture.h"
#include "arch/simt/gpu_energy.h"
#include "arch/simt/kernels/custom_launch.h"
#include "arch/simt/kernels/recipe_runner.h"
#include "arch/simt/ptx/ptx_decode.h"
#include "sim/error.h"

namespace loom {

void add_gpu_command(CLI::App& app, GpuArgs& args) {
  CLI::App* gpu = app.add_subcommand("gpu", "Run one CUDA kernel (PTX) on a SIMT GPU model, cycle by cycle");
  gpu->add_option("--arch", args.arch, "GPU architecture: a \"kind\": \"gpu\" config, e.g. configs/v100.json");
  gpu->add_option("--kernel", args.kernel,
                  "A shipped kernel (see --list) or a .ptx file (then give --grid, --block and --args)");
  gpu->add_option("--entry", args.entry, "The .entry to run when the .ptx file has several");
  gpu->add_option("--size", args.sizes, "Shipped kernels: problem sizes, e.g. M=1024,N=1024,K=1024");
  gpu->add_option("--grid", args.grid, ".ptx kernels: grid dimensions x[,y[,z]]");
  gpu->add_option("--block", args.block, ".ptx kernels: block dimensions x[,y[,z]]");
  gpu->add_option("--args", args.args,
                  ".ptx kernels: comma-separated arguments: f32[N] / f16[N] / u32[N] buffers (random; "
                  "add :zeros for zero-filled), integers (1024, 0x400) and floats (2.5, 1e-3)");
  gpu->add_option("--launch", args.launch, "A JSON launch file holding the options above (docs/simt-model.md)");
  gpu->add_option("--out", args.out, "Directory for report.json and resolved_config.json")->capture_default_str();
  gpu->add_option("--seed", args.seed, "Seed of the buffers' random contents")->capture_default_str();
  gpu->add_option("--registers", args.registers,
                  "Registers per thread for occupancy (default: loom's liveness estimate)");
  gpu->add_option("--issue-order", args.issue_order,
                  "scheduled: each block in the order ptxas's scheduler would roughly give it, loads first; "
                  "written: exactly as the PTX is written (docs/simt-model.md)")
      ->check(CLI::IsMember({"scheduled", "written"}))
      ->capture_default_str();
  gpu->add_flag("--execute-at-issue", args.execute_at_issue,
                "Execute every instruction when it issues, never a CTA ahead of its issues (the same results for "
                "kernels that synchronize properly; docs/simt-model.md)");
  gpu->add_flag("--no-check", args.no_check, "Skip reading outputs back and checking them against the CPU reference");
  gpu->add_flag("--list", args.list, "List the shipped kernels and their size parameters");
  gpu->add_flag("-q,--quiet", args.quiet, "Print only the one-line result");
}

namespace {

std::string list_kernels() {
  std::string out = "shipped kernels (validate/kernels/*.cu, PTX compiled into loom):\n";
  for (const simt::KernelInfo& k : simt::kernel_catalog()) {
    std::string sizes;
    for (const auto& [key, value] : k.size_defaults) sizes += (sizes.empty() ? "" : ",") + key + "=" + std::to_string(value);
    out += "  " + k.name + std::string(k.name.size() < 20 ? 20 - k.name.size() : 1, ' ') + k.summary +
           "\n" + std::string(22, ' ') + "--size " + sizes + "\n";
  }
  return out;
}

// Reads a JSON launch file into the same fields the options fill (options given on the
// command line win); a relative .ptx path is taken relative to the launch file.
void read_launch_file(GpuArgs& args) {
  const Json doc = load_json_file(args.launch);
  JsonReader r(doc, args.launch, "");
  const std::string base = std::filesystem::path(args.launch).parent_path().string();
  auto text = [&](const char* key, std::string& field) {
    if (r.has(key) && field.empty()) field = r.string(key);
    else if (r.has(key)) r.value(key);
  };
  auto list = [&](const char* key, std::string& field) {
    if (!r.has(key)) return;
    const Json& v = r.value(key);
    if (!field.empty()) return;
    if (!v.is_array()) r.fail(key, "an array, e.g. [16, 64, 1] or [\"f32[1024]\", 1024, 2.5]");
    for (const Json& item : v) {
      if (!(item.is_number() || item.is_string())) r.fail(key, "numbers and buffer strings such as \"f32[1024]\"");
      field += (field.empty() ? "" : ",") + (item.is_string() ? item.get<std::string>() : item.dump());
    }
  };
  text("arch", args.arch);
  text("kernel", args.kernel);
  text("entry", args.entry);
  if (r.has("sizes") && args.sizes.empty()) {
    const Json& s = r.value("sizes");
    if (!s.is_object()) r.fail("sizes", "an object of sizes, e.g. {\"M\": 1024, \"N\": 1024}");
    for (const auto& [key, value] : s.items()) {
      if (!value.is_number_integer()) r.fail("sizes", "integer sizes; '" + key + "' is " + value.dump());
      args.sizes += (args.sizes.empty() ? "" : ",") + key + "=" + value.dump();
    }
  } else if (r.has("sizes")) {
    r.value("sizes");
  }
  list("grid", args.grid);
  list("block", args.block);
  list("args", args.args);
  if (r.has("seed")) args.seed = static_cast<uint64_t>(r.non_negative_integer("seed", 1));
  if (r.has("registers_per_thread")) args.registers = static_cast<int>(r.positive_integer("registers_per_thread"));
  if (r.has("issue_order")) args.issue_order = r.choice("issue_order", {"scheduled", "written"});
  if (r.has("execute_at_issue")) args.execute_at_issue = r.boolean("execute_at_issue", false);
  r.finish();
  if (args.kernel.size() > 4 && args.kernel.substr(args.kernel.size() - 4) == ".ptx" &&
      std::filesystem::path(args.kernel).is_relative() && !base.empty()) {
    args.kernel = (std::filesystem::path(base) / args.kernel).string();
  }
}

}  // namespace

GpuLaunchOutcome run_gpu_launch(const GpuArgs& args, const Architecture& arch) {
  if (!arch.is_gpu()) {
    throw InputError(arch.source_file(), "kind", "a \"kind\": \"gpu\" architecture for `loom gpu`; this one is " +
                                                     std::string(arch.is_hierarchy() ? "a hierarchy" : "a systolic array"));
  }
  const simt::GpuConfig& config = arch.gpu();

  if (args.issue_order != "scheduled" && args.issue_order != "written")
    throw InputError("", "issue_order", "\"scheduled\" or \"written\", got \"" + args.issue_order + "\"");
  const bool shipped = simt::is_catalog_kernel(args.kernel);
  const simt::DecodeOptions decode{.schedule = args.issue_order != "written"};
  simt::LaunchRecipe recipe;
  simt::PtxKernel custom_kernel;
  const simt::PtxKernel* kernel = nullptr;
  if (shipped) {
    const std::pair<const char*, const std::string*> launch_options[] = {
        {"--grid", &args.grid}, {"--block", &args.block}, {"--args", &args.args}};
    for (const auto& [option, given] : launch_options) {
      if (!given->empty()) {
        throw InputError("", option, std::string("shipped kernels take --size; their grid, block and arguments "
                                                 "follow the kernel's launch rule (run `loom gpu --list`)"));
      }
    }
    recipe = simt::make_launch_recipe(args.kernel, simt::parse_size_list(args.sizes, "--size"));
    kernel = &simt::shipped_kernel(args.kernel, decode);
  } else {
    if (!args.sizes.empty()) {
      throw InputError("", "--size", "--size applies to shipped kernels; a .ptx kernel takes --grid, --block, --args");
    }
    custom_kernel = simt::load_ptx_kernel(args.kernel, args.entry, decode);
    kernel = &custom_kernel;
    recipe = simt::make_custom_recipe(custom_kernel, args.kernel, args.grid, args.block, args.args);
  }

  simt::RecipeRunOptions options;
  options.seed = args.seed;
  options.verify = shipped && !args.no_check;
  options.registers_per_thread = args.registers;
  options.run_ahead = !args.execute_at_issue;
  if (!args.quiet && isatty(STDERR_FILENO)) {
    options.progress = [](const simt::LaunchProgress& p) {
      std::fprintf(stderr, "\rsimulating: %lld cycles, %lld/%lld CTAs done", static_cast<long long>(p.cycles),
                   static_cast<long long>(p.ctas_retired), static_cast<long long>(p.ctas_total));
      if (p.ctas_retired == p.ctas_total) std::fprintf(stderr, "\r%*s\r", 60, "");
    };
  }
  const simt::RecipeRunResult result = simt::run_recipe(recipe, *kernel, config, options);

  const simt::SimtEnergyTable table = simt::load_simt_energy_table(config.energy_table);
  const simt::GpuEnergy energy = simt::price_gpu_energy(result.stats, config, table);
  GpuLaunchOutcome outcome;
  outcome.kernel = args.kernel;
  outcome.entry = kernel->name;
  outcome.issue_order = args.issue_order;
  outcome.execution = result.ran_ahead ? "run_ahead" : "at_issue";
  outcome.grid = recipe.grid;
  outcome.block = recipe.block;
  if (shipped) outcome.sizes = recipe.sizes;
  outcome.stats = result.stats;
  outcome.energy = energy.to_json();
  outcome.energy_pj = energy.total_pj;
  outcome.verification = shipped ? (args.no_check ? "not checked (--no-check)" : simt::describe_check(result))
                                 : "not checked (no CPU reference for a custom .ptx kernel)";
  outcome.verified_ok = !result.verified || result.check.ok;

  return outcome;
}

int gpu_command(GpuArgs args) {
  if (args.list) {
    std::cout << list_kernels();
    return 0;
  }
  if (!args.launch.empty()) read_launch_file(args);
  if (args.arch.empty()) throw InputError("", "--arch", "a GPU config, e.g. --arch configs/v100.json");
  if (args.kernel.empty()) throw InputError("", "--kernel", "a shipped kernel name (see loom gpu --list) or a .ptx file");
  const Architecture arch = load_architecture(args.arch);
  const GpuLaunchOutcome outcome = run_gpu_launch(args, arch);
  const simt::GpuConfig& config = arch.gpu();
  const simt::GpuStats& stats = outcome.stats;

  make_output_dir(args.out);
  write_file_atomically(args.out + "/resolved_config.json", simt::gpu_config_to_json(config).dump(2) + "\n");
  write_file_atomically(args.out + "/report.json", gpu_launch_to_json(outcome, config).dump(2) + "\n");
  if (args.quiet) {
    const GpuLaunchFigures f = gpu_launch_figures(outcome, config);
    std::printf("%s on %s: %lld cycles, %.3f us, %.3f TFLOP/s, %.3f uJ, check %s\n", args.kernel.c_str(),
                config.name.c_str(), static_cast<long long>(stats.cycles), f.seconds * 1e6,
                f.flops_per_second / 1e12, outcome.energy_pj * 1e-6, outcome.verified_ok ? "ok" : "FAILED");
  } else {
    std::cout << format_gpu_summary(outcome, config) << "reports: " << args.out << "/report.json, " << args.out
              << "/resolved_config.json\n";
  }
  // A wrong result is the simulator's bug, not the user's input: exit 1 so scripts notice.
  return outcome.verified_ok ? 0 : 1;
}

}  // namespace loom
