#include "sweep/point_log.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

#include "sim/append_log.h"
#include "sim/error.h"
#include "sim/text_file.h"
#include "sim/text_format.h"
#include "sweep/point_evaluation.h"

namespace loom {

namespace fs = std::filesystem;

std::string point_csv_header(const SweepSpec& spec) {
  std::string h = "index";
  for (const ParameterAxis& a : spec.parameters) h += "," + csv_quoted(a.path);
  h += ",arch_name,fidelity,feasible";
  for (const std::string& m : sweep_metric_names()) h += "," + m;
  for (const Network& n : spec.workloads) h += "," + csv_quoted(n.name + ".latency_s") + "," + csv_quoted(n.name + ".energy_j");
  return h + ",violations,error\n";
}

static std::string csv_cell(const Json& v) {
  if (v.is_string()) return csv_quoted(v.get<std::string>());
  if (v.is_number_float()) return format_number(v.get<double>());
  if (v.is_null()) return "";
  return v.dump();
}

std::string point_csv_row(const SweepSpec& spec, const Json& r) {
  std::string row = std::to_string(r.at("index").get<int64_t>());
  const Json& params = r.at("params");
  for (const ParameterAxis& a : spec.parameters) row += "," + (params.contains(a.path) ? csv_cell(params[a.path]) : "");
  row += "," + csv_quoted(r.value("arch_name", "")) + "," + r.at("fidelity").get<std::string>() + "," +
         (r.at("feasible").get<bool>() ? "true" : "false");
  const Json empty = Json::object();
  const Json& metrics = r.contains("metrics") ? r["metrics"] : empty;
  for (const std::string& m : sweep_metric_names()) row += "," + (metrics.contains(m) ? csv_cell(metrics[m]) : "");
  const Json& workloads = r.contains("workloads") ? r["workloads"] : empty;
  for (const Network& n : spec.workloads) {
    const bool has = workloads.contains(n.name);
    row += "," + (has ? csv_cell(workloads[n.name]["latency_s"]) : "") + "," +
           (has ? csv_cell(workloads[n.name]["energy_j"]) : "");
  }
  std::string violations;
  for (const Json& v : r.value("violations", Json::array())) violations += (violations.empty() ? "" : "; ") + v.get<std::string>();
  row += "," + csv_quoted(violations) + "," + (r.at("error").is_string() ? csv_quoted(r["error"].get<std::string>()) : "");
  return row + "\n";
}

namespace {

// One line of a points file as a point record; nullopt when it is not one.
std::optional<Json> parse_point_line(const std::string& line) {
  std::optional<Json> record = parse_json_line(line);
  if (record && is_point_record(*record)) return record;
  return std::nullopt;
}

}  // namespace

void write_point_files(const std::string& jsonl_path, const std::string& csv_path, const SweepSpec& spec,
                       const PointSource& points) {
  write_file_atomically(jsonl_path, [&](std::ostream& out) {
    points([&](const Json& r) { out << r.dump() << '\n'; });
  });
  if (csv_path.empty()) return;
  write_file_atomically(csv_path, [&](std::ostream& out) {
    out << point_csv_header(spec);
    points([&](const Json& r) { out << point_csv_row(spec, r); });
  });
}

PointLog::PointLog(std::string jsonl_path, std::string csv_path, const SweepSpec& spec, bool resume)
    : jsonl_path_(std::move(jsonl_path)), csv_path_(std::move(csv_path)), spec_(&spec) {
  if (resume && fs::exists(jsonl_path_)) read_existing();
  open_for_append();
}

PointLog::~PointLog() {
  for (std::FILE* f : {jsonl_, csv_, reader_})
    if (f != nullptr) std::fclose(f);
}

void PointLog::read_existing() {
  const AppendLogRead r =
      read_append_log(jsonl_path_, "results file", [&](int64_t, uint64_t offset, const std::string& line) {
        const std::optional<Json> record = parse_point_line(line);
        if (record) lines_.put((*record)["index"].get<int64_t>(), {offset, static_cast<uint32_t>(line.size())});
        return record.has_value();
      });
  warning_ = r.check(jsonl_path_,
                     "a point record (one JSON object per line); this results file is corrupt in the middle, "
                     "not just cut off at the end: remove it to start over, or use another --out",
                     "its point will be computed again");
  end_ = r.good_bytes;
  if (end_ < r.file_bytes) fs::resize_file(jsonl_path_, end_);
}

void PointLog::open_for_append() {
  jsonl_ = std::fopen(jsonl_path_.c_str(), lines_.size() == 0 && warning_.empty() ? "w" : "a");
  if (jsonl_ == nullptr) throw InputError(jsonl_path_, "--out", "a writable results file");
  if (lines_.size() == 0) end_ = 0;
  reader_ = std::fopen(jsonl_path_.c_str(), "rb");
  if (reader_ == nullptr) throw InputError(jsonl_path_, "--out", "a readable results file");
  if (csv_path_.empty()) return;
  // The CSV is derived: rebuilt from the kept records (atomically: a kill now must not
  // leave a shorter file than the one it replaces), then appended to.
  write_file_atomically(csv_path_, [&](std::ostream& out) {
    out << point_csv_header(*spec_);
    for_each([&](const Json& r) { out << point_csv_row(*spec_, r); });
  });
  csv_ = std::fopen(csv_path_.c_str(), "a");
  if (csv_ == nullptr) throw InputError(csv_path_, "--out", "a writable results file");
}

std::string PointLog::read_line(const LineIndex::Line& line) const {
  std::string text(line.length, '\0');
  const ssize_t got = ::pread(::fileno(reader_), text.data(), line.length, static_cast<off_t>(line.offset));
  if (got != static_cast<ssize_t>(line.length)) {
    throw InputError(jsonl_path_, "(file)", "a results file that stays in place while loom runs (it changed under it)");
  }
  return text;
}

std::optional<Json> PointLog::record(int64_t index) const {
  const std::optional<LineIndex::Line> line = lines_.find(index);
  if (!line) return std::nullopt;
  std::optional<Json> r = parse_point_line(read_line(*line));
  if (!r) throw InputError(jsonl_path_, "point " + std::to_string(index), "a point record (the file changed under loom)");
  return r;
}

void PointLog::for_each(const PointVisitor& visit) const {
  lines_.for_each([&](int64_t index, const LineIndex::Line& line) {
    const std::optional<Json> r = parse_point_line(read_line(line));
    if (!r) throw InputError(jsonl_path_, "point " + std::to_string(index), "a point record (the file changed under loom)");
    visit(*r);
  });
}

void PointLog::append(const Json& record) {
  const std::string line = record.dump();
  std::fputs(line.c_str(), jsonl_);
  std::fputc('\n', jsonl_);
  std::fflush(jsonl_);
  lines_.put(record.at("index").get<int64_t>(), {end_, static_cast<uint32_t>(line.size())});
  end_ += line.size() + 1;
  if (csv_ != nullptr) {
    std::fputs(point_csv_row(*spec_, record).c_str(), csv_);
    std::fflush(csv_);
  }
}

void PointLog::rewrite_sorted() {
  for (std::FILE** f : {&jsonl_, &csv_}) {
    if (*f != nullptr) std::fclose(*f);
    *f = nullptr;
  }
  // The new JSONL is the old lines in point order, copied as bytes; then the index moves
  // every point to its new place (the same order, so the same running offset).
  write_file_atomically(jsonl_path_, [&](std::ostream& out) {
    lines_.for_each([&](int64_t, const LineIndex::Line& line) { out << read_line(line) << '\n'; });
  });
  uint64_t pos = 0;
  lines_.relocate([&](int64_t, const LineIndex::Line& line) {
    const LineIndex::Line moved{pos, line.length};
    pos += line.length + 1;
    return moved;
  });
  end_ = pos;
  std::fclose(reader_);  // the rename replaced the file it reads
  reader_ = std::fopen(jsonl_path_.c_str(), "rb");
  if (reader_ == nullptr) throw InputError(jsonl_path_, "--out", "a readable results file");
  if (!csv_path_.empty()) {
    write_file_atomically(csv_path_, [&](std::ostream& out) {
      out << point_csv_header(*spec_);
      for_each([&](const Json& r) { out << point_csv_row(*spec_, r); });
    });
  }
  jsonl_ = std::fopen(jsonl_path_.c_str(), "a");
  if (jsonl_ == nullptr) throw InputError(jsonl_path_, "--out", "a writable results file");
  if (!csv_path_.empty()) csv_ = std::fopen(csv_path_.c_str(), "a");
  if (!csv_path_.empty() && csv_ == nullptr) throw InputError(csv_path_, "--out", "a writable results file");
}

void for_each_point_line(const std::string& path, const std::function<void(Json& record, int64_t line)>& visit) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "(file)", "a readable points file (points.jsonl)");
  std::string line;
  int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::optional<Json> record = parse_point_line(line);
    if (!record) throw InputError(path, "line " + std::to_string(line_no), "a point record (one JSON object per line)");
    visit(*record, line_no);
  }
}

}  // namespace loom
