#include "apps/sweep_command.h"

#include <atomic>
#include <csignal>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "apps/report_command.h"
#include "apps/test_interrupt_hook.h"
#include "sweep/merge.h"
#include "sweep/sweep_runner.h"

namespace loom {

namespace {

std::atomic<bool> g_stop{false};
extern "C" void request_stop(int) { g_stop.store(true); }

// What a finished sweep or merge prints and returns.
int conclude(const SweepOutcome& r, const std::string& out_dir, const std::string& what, bool quiet) {
  write_report_html(out_dir);
  if (!quiet) {
    std::printf("%s: %lld points (%lld feasible, %lld could not be evaluated); Pareto front of %lld", what.c_str(),
                static_cast<long long>(r.done), static_cast<long long>(r.feasible), static_cast<long long>(r.errors),
                static_cast<long long>(r.front));
    if (r.resimulated > 0) std::printf(", %lld re-simulated at cycle level", static_cast<long long>(r.resimulated));
    std::printf("\nresults: %s/points.jsonl, points.csv, pareto.json, pareto.csv, sweep.json, report.html\n",
                out_dir.c_str());
  }
  if (!r.no_feasible.empty()) {
    std::fprintf(stderr, "loom: error: %s\n", r.no_feasible.c_str());
    return 2;
  }
  return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, SweepArgs& args) {
  CLI::App* s = app.add_subcommand("sweep", "Explore a design space: evaluate the points of a sweep spec, find the "
                                            "Pareto front, re-simulate it at cycle level (docs/sweeps.md)");
  s->add_option("spec", args.spec, "Sweep spec (JSON, schema loom-sweep/1)")->required();
  s->add_option("--out", args.out, "Directory for points.jsonl, points.csv, pareto.json, sweep.json, report.html")
      ->capture_default_str();
  s->add_option("-j,--jobs", args.jobs, "Worker processes")->capture_default_str()->check(CLI::Range(1, 1024));
  s->add_flag("--resume", args.resume, "Continue an interrupted sweep in --out, keeping every finished point");
  s->add_option("--shard", args.shard, "Run only shard i of N of the point list (i from 0 to N-1), e.g. 0/4");
  s->add_flag("-q,--quiet", args.quiet, "No progress and no summary");
}

void add_merge_command(CLI::App& app, MergeArgs& args) {
  CLI::App* m = app.add_subcommand("merge", "Join the result directories of a sharded sweep into one result set "
                                            "and one Pareto front");
  m->add_option("shard_dirs", args.shard_dirs, "Result directories of shards 0..N-1")->required();
  m->add_option("--out", args.out, "Directory for the merged results")->capture_default_str();
  m->add_option("--spec", args.spec, "The sweep spec (default: the path recorded in the shards' sweep.json)");
  m->add_flag("-q,--quiet", args.quiet, "No summary");
}

int sweep_command(const SweepArgs& args) {
  SweepRunOptions o;
  o.spec_file = args.spec;
  o.out_dir = args.out;
  o.jobs = args.jobs;
  o.resume = args.resume;
  o.quiet = args.quiet;
  if (!args.shard.empty()) o.shard = parse_shard(args.shard);
  // Stop handing out points on Ctrl-C or SIGTERM (Slurm's time limit); finished points stay.
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  TestInterruptHook test_hook("LOOM_TEST_INTERRUPT_AFTER_POINTS");
  o.on_point_kept = [&test_hook] { test_hook.item_kept(); };
  const SweepOutcome r = run_sweep(o, g_stop);
  if (r.interrupted) {
    std::string resume = "loom sweep " + args.spec + " --out " + args.out + " --resume";
    if (!args.shard.empty()) resume += " --shard " + args.shard;
    if (args.jobs > 1) resume += " -j " + std::to_string(args.jobs);
    std::fprintf(stderr, "\nloom: interrupted: %lld of %lld points finished and kept in %s/points.jsonl; resume with:\n  %s\n",
                 static_cast<long long>(r.done), static_cast<long long>(r.planned), args.out.c_str(), resume.c_str());
    return 130;
  }
  return conclude(r, args.out, "sweep", args.quiet);
}

int merge_command(const MergeArgs& args) {
  MergeOptions o;
  o.shard_dirs = args.shard_dirs;
  o.out_dir = args.out;
  o.spec_file = args.spec;
  return conclude(merge_sweeps(o), args.out, "merged " + std::to_string(args.shard_dirs.size()) + " shards", args.quiet);
}

}  // namespace loom
