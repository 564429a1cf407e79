// A sweep's results as they stream in: points.jsonl (one JSON object per finished point,
// appended and flushed as each finishes, so an interrupted sweep keeps every finished
// point) with points.csv beside it. Reopened with --resume, the log is read back: a bad
// last line — a run killed mid-write — is dropped with a warning and its point computed
// again; a bad line anywhere else means the file is corrupt, an InputError.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "sweep/sweep_spec.h"

namespace loom {

class PointLog {
 public:
  // `csv_path` empty: no CSV. Without `resume`, existing files are replaced.
  PointLog(std::string jsonl_path, std::string csv_path, const SweepSpec& spec, bool resume);
  ~PointLog();
  PointLog(const PointLog&) = delete;
  PointLog& operator=(const PointLog&) = delete;

  const std::map<int64_t, Json>& records() const { return records_; }
  bool has(int64_t index) const { return records_.count(index) > 0; }
  const std::string& warning() const { return warning_; }  // non-empty when a trailing line was dropped

  void append(const Json& record);
  // Rewrites both files in point order (atomically), so a finished sweep's files are the
  // same bytes whatever order its workers finished in.
  void rewrite_sorted();

 private:
  void read_existing();
  void open_for_append();

  std::string jsonl_path_, csv_path_;
  const SweepSpec* spec_;
  std::map<int64_t, Json> records_;
  std::string warning_;
  std::FILE* jsonl_ = nullptr;
  std::FILE* csv_ = nullptr;
};

// points.csv's header and one row (docs/sweeps.md, "points.csv").
std::string point_csv_header(const SweepSpec& spec);
std::string point_csv_row(const SweepSpec& spec, const Json& record);

// Writes `records` in point order as points.jsonl (and, when `csv_path` is not empty,
// points.csv), each atomically.
void write_point_files(const std::string& jsonl_path, const std::string& csv_path, const SweepSpec& spec,
                       const std::map<int64_t, Json>& records);

// Reads a whole points file strictly (merge, report): every line must be a point record.
std::vector<Json> read_point_lines(const std::string& path);

}  // namespace loom
