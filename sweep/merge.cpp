#include "sweep/merge.h"

#include <filesystem>
#include <map>
#include <set>

#include "sim/error.h"
#include "sim/text_file.h"
#include "sweep/point_log.h"

namespace loom {

namespace fs = std::filesystem;

namespace {

void add_records(const std::string& path, std::map<int64_t, Json>& into, std::map<int64_t, std::string>& from,
                 const std::string& dir) {
  if (!fs::exists(path)) return;
  for (Json& r : read_point_lines(path)) {
    const int64_t index = r["index"].get<int64_t>();
    if (into.count(index) > 0) {
      throw InputError(path, "point " + std::to_string(index),
                       "each point in one shard only; it is also in " + from[index] +
                           " (the same directory given twice, or shards of different --shard counts?)");
    }
    from[index] = dir;
    into.emplace(index, std::move(r));
  }
}

}  // namespace

SweepOutcome merge_sweeps(const MergeOptions& o) {
  if (o.shard_dirs.empty()) throw InputError("", "SHARD_DIR", "one or more sweep result directories to merge");
  std::vector<Json> manifests;
  for (const std::string& d : o.shard_dirs) manifests.push_back(read_sweep_manifest(d));
  const std::string spec_file = !o.spec_file.empty() ? o.spec_file : manifests[0].at("spec").value("file", "");
  if (!fs::exists(spec_file)) {
    throw InputError((fs::path(o.shard_dirs[0]) / "sweep.json").string(), "spec.file",
                     "the sweep spec at a path this machine can read (" + spec_file + " is not); pass it with --spec");
  }
  const SweepSpec spec = load_sweep_spec(spec_file);

  const int count = manifests[0].at("shard").value("count", 0);
  std::map<int, std::string> seen;
  int64_t planned = 0;
  for (size_t i = 0; i < manifests.size(); ++i) {
    const Json& m = manifests[i];
    const std::string file = (fs::path(o.shard_dirs[i]) / "sweep.json").string();
    if (m.at("spec").value("fingerprint", "") != spec.fingerprint) {
      throw InputError(file, "spec.fingerprint",
                       "shards of the spec " + spec_file + "; this one was written for a different (or edited) spec, "
                       "base architecture or workload");
    }
    const int index = m.at("shard").value("index", -1), n = m.at("shard").value("count", 0);
    if (n != count) {
      throw InputError(file, "shard.count", "the same shard count in every directory (" + std::to_string(count) +
                                                 "); this one has " + std::to_string(n));
    }
    if (!seen.emplace(index, o.shard_dirs[i]).second) {
      throw InputError(file, "shard.index", "each shard once; shard " + std::to_string(index) + " is also " + seen[index]);
    }
    if (!m.value("complete", false)) {
      throw InputError(file, "complete",
                       "a finished shard; shard " + std::to_string(index) + "/" + std::to_string(n) + " has " +
                           std::to_string(m.value("points_done", 0)) + " of " + std::to_string(m.value("points_planned", 0)) +
                           " points: finish it with loom sweep " + spec_file + " --shard " + std::to_string(index) + "/" +
                           std::to_string(n) + " --out " + o.shard_dirs[i] + " --resume");
    }
    planned += m.value("points_planned", int64_t{0});
  }
  std::string missing;
  for (int i = 0; i < count; ++i) {
    if (seen.count(i) == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(count);
  }
  if (!missing.empty()) throw InputError("", "SHARD_DIR", "every shard of the sweep; missing: " + missing);

  std::map<int64_t, Json> records, resimulated;
  std::map<int64_t, std::string> from, resim_from;
  for (const std::string& d : o.shard_dirs) {
    add_records((fs::path(d) / "points.jsonl").string(), records, from, d);
    add_records((fs::path(d) / "resim.jsonl").string(), resimulated, resim_from, d);
  }

  const fs::path dir(o.out_dir);
  if (fs::exists(dir / "sweep.json") || fs::exists(dir / "points.jsonl")) {
    throw InputError(o.out_dir, "--out", "a directory without sweep results; choose another --out");
  }
  make_output_dir(o.out_dir);
  write_point_files((dir / "points.jsonl").string(), (dir / "points.csv").string(), spec, records);
  const std::vector<int64_t> front = front_of(records, spec.objectives);
  std::map<int64_t, Json> front_resim;
  for (int64_t i : front) {
    if (const auto it = resimulated.find(i); it != resimulated.end()) front_resim.insert(*it);
  }
  write_point_files((dir / "resim.jsonl").string(), "", spec, front_resim);
  Json manifest = sweep_manifest(spec, ShardInfo{}, planned, static_cast<int64_t>(records.size()), true);
  manifest["merged_from"] = o.shard_dirs;
  write_front_files(o.out_dir, spec, manifest, records, front, front_resim);
  write_file_atomically((dir / "sweep.json").string(), manifest.dump(2) + "\n");

  SweepOutcome out;
  out.planned = planned;
  out.done = static_cast<int64_t>(records.size());
  const PointTally counts = tally(records);
  out.feasible = counts.feasible;
  out.errors = counts.errors;
  out.front = static_cast<int64_t>(front.size());
  out.resimulated = static_cast<int64_t>(front_resim.size());
  if (out.feasible == 0) out.no_feasible = "no point of the merged sweep meets the constraints";
  return out;
}

}  // namespace loom
