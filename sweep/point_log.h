// A sweep's results as they stream in: points.jsonl (one JSON object per finished point,
// appended and flushed as each finishes, so an interrupted sweep keeps every finished
// point) with points.csv beside it. Reopened with --resume, the log is read back: a bad
// last line — a run killed mid-write — is dropped with a warning and its point computed
// again; a bad line anywhere else means the file is corrupt, an InputError.
//
// The records live in the file, not in memory: the log keeps where each point's line is
// (line_index.h, 24 bytes per point), reads a record back when asked, and rewrites the files
// by streaming. A sweep of loom's limit of 10^7 points (kMaxSweepPoints) thus needs a few
// hundred MB, where holding the records would need about 50 GB.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sweep/line_index.h"
#include "sweep/sweep_spec.h"

namespace loom {

// Calls visit(record) for each point record of a set, in point order.
using PointVisitor = std::function<void(const Json& record)>;
using PointSource = std::function<void(const PointVisitor& visit)>;

class PointLog {
 public:
  // `csv_path` empty: no CSV. Without `resume`, existing files are replaced.
  PointLog(std::string jsonl_path, std::string csv_path, const SweepSpec& spec, bool resume);
  ~PointLog();
  PointLog(const PointLog&) = delete;
  PointLog& operator=(const PointLog&) = delete;

  size_t size() const { return lines_.size(); }
  bool has(int64_t index) const { return lines_.has(index); }
  // The point's record, read back from the file; nullopt when the log does not have it.
  std::optional<Json> record(int64_t index) const;
  // Every record in point order, read back one at a time.
  void for_each(const PointVisitor& visit) const;
  PointSource source() const {
    return [this](const PointVisitor& visit) { for_each(visit); };
  }
  const std::string& warning() const { return warning_; }  // non-empty when a trailing line was dropped

  // Appends the record (a record of a point already in the log replaces it).
  void append(const Json& record);
  // Rewrites both files in point order (atomically, streaming), so a finished sweep's files
  // are the same bytes whatever order its workers finished in.
  void rewrite_sorted();

 private:
  void read_existing();
  void open_for_append();
  std::string read_line(const LineIndex::Line& line) const;

  std::string jsonl_path_, csv_path_;
  const SweepSpec* spec_;
  LineIndex lines_;  // where each point's line is in the JSONL file
  uint64_t end_ = 0;  // size of the JSONL file
  std::string warning_;
  std::FILE* jsonl_ = nullptr;
  std::FILE* csv_ = nullptr;
  std::FILE* reader_ = nullptr;  // the JSONL file, for reading records back
};

// points.csv's header and one row (docs/sweeps.md, "points.csv").
std::string point_csv_header(const SweepSpec& spec);
std::string point_csv_row(const SweepSpec& spec, const Json& record);

// Writes the records `points` visits (in point order) as points.jsonl (and, when `csv_path`
// is not empty, points.csv), each atomically, streaming.
void write_point_files(const std::string& jsonl_path, const std::string& csv_path, const SweepSpec& spec,
                       const PointSource& points);

// Reads a whole points file strictly (merge, report), one record at a time: every line must
// be a point record. `visit(record, line_number)`.
void for_each_point_line(const std::string& path, const std::function<void(Json& record, int64_t line)>& visit);

}  // namespace loom
