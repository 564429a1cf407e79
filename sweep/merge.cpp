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

// The shard directory whose points file holds `index` (the error path of a duplicate).
std::string holder_of(int64_t index, const std::vector<std::string>& dirs, const std::string& file) {
  for (const std::string& d : dirs) {
    bool found = false;
    for_each_point_line((fs::path(d) / file).string(), [&](Json& r, int64_t) {
      found = found || r["index"].get<int64_t>() == index;
    });
    if (found) return d;
  }
  return "another shard";
}

// Streams each shard's `file` into `log` (nothing is held but where each line is); a point
// in two shards is an error.
void add_records(const std::vector<std::string>& dirs, const std::string& file, PointLog& log) {
  std::vector<std::string> done;
  for (const std::string& d : dirs) {
    const std::string path = (fs::path(d) / file).string();
    if (!fs::exists(path)) continue;
    for_each_point_line(path, [&](Json& r, int64_t) {
      const int64_t index = r["index"].get<int64_t>();
      if (log.has(index)) {
        throw InputError(path, "point " + std::to_string(index),
                         "each point in one shard only; it is also in " + holder_of(index, done, file) +
                             " (the same directory given twice, or shards of different --shard counts?)");
      }
      log.append(r);
    });
    done.push_back(d);
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

  const fs::path dir(o.out_dir);
  if (fs::exists(dir / "sweep.json") || fs::exists(dir / "points.jsonl")) {
    throw InputError(o.out_dir, "--out", "a directory without sweep results; choose another --out");
  }
  const bool made_dir = !fs::exists(dir);
  make_output_dir(o.out_dir);
  // Streamed through logs in the output directory and rewritten in point order: a merge of
  // 10^7 points holds where each line is, not the records. A point found in two shards
  // leaves nothing behind.
  PointLog records((dir / "points.jsonl").string(), (dir / "points.csv").string(), spec, false);
  std::map<int64_t, Json> resimulated;
  try {
    PointLog all_resim((dir / "resim.jsonl").string(), "", spec, false);
    add_records(o.shard_dirs, "points.jsonl", records);
    add_records(o.shard_dirs, "resim.jsonl", all_resim);
    all_resim.for_each([&](const Json& r) { resimulated.emplace(r.at("index").get<int64_t>(), r); });
  } catch (const InputError&) {
    std::error_code ec;
    for (const char* f : {"points.jsonl", "points.csv", "resim.jsonl"}) fs::remove(dir / f, ec);
    if (made_dir) fs::remove(dir, ec);
    throw;
  }
  records.rewrite_sorted();
  PointTally counts;
  const std::vector<int64_t> front = front_of(counted(records.source(), counts), spec.objectives);
  std::map<int64_t, Json> front_records, front_resim;
  for (int64_t i : front) {
    front_records.emplace(i, *records.record(i));
    if (const auto it = resimulated.find(i); it != resimulated.end()) front_resim.insert(*it);
  }
  write_point_files((dir / "resim.jsonl").string(), "", spec, [&](const PointVisitor& visit) {
    for (const auto& [index, r] : front_resim) visit(r);
  });
  Json manifest = sweep_manifest(spec, ShardInfo{}, planned, static_cast<int64_t>(records.size()), true);
  manifest["merged_from"] = o.shard_dirs;
  write_front_files(o.out_dir, spec, manifest, front_records, front, front_resim);
  write_file_atomically((dir / "sweep.json").string(), manifest.dump(2) + "\n");

  SweepOutcome out;
  out.planned = planned;
  out.done = static_cast<int64_t>(records.size());
  out.feasible = counts.feasible;
  out.errors = counts.errors;
  out.front = static_cast<int64_t>(front.size());
  out.resimulated = static_cast<int64_t>(front_resim.size());
  if (out.feasible == 0) out.no_feasible = "no point of the merged sweep meets the constraints";
  return out;
}

}  // namespace loom
