#include "sweep/point_log.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

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
  try {
    Json record = Json::parse(line);
    if (is_point_record(record)) return record;
  } catch (const Json::parse_error&) {
  }
  return std::nullopt;
}

std::string points_csv(const SweepSpec& spec, const std::map<int64_t, Json>& records) {
  std::string text = point_csv_header(spec);
  for (const auto& [index, r] : records) text += point_csv_row(spec, r);
  return text;
}

}  // namespace

void write_point_files(const std::string& jsonl_path, const std::string& csv_path, const SweepSpec& spec,
                       const std::map<int64_t, Json>& records) {
  std::string jsonl;
  for (const auto& [index, r] : records) jsonl += r.dump() + "\n";
  write_file_atomically(jsonl_path, jsonl);
  if (!csv_path.empty()) write_file_atomically(csv_path, points_csv(spec, records));
}

PointLog::PointLog(std::string jsonl_path, std::string csv_path, const SweepSpec& spec, bool resume)
    : jsonl_path_(std::move(jsonl_path)), csv_path_(std::move(csv_path)), spec_(&spec) {
  if (resume && fs::exists(jsonl_path_)) read_existing();
  open_for_append();
}

PointLog::~PointLog() {
  if (jsonl_ != nullptr) std::fclose(jsonl_);
  if (csv_ != nullptr) std::fclose(csv_);
}

void PointLog::read_existing() {
  const std::string text = read_text_file(jsonl_path_);
  size_t pos = 0, line_no = 0, good_bytes = 0;
  while (pos < text.size()) {
    ++line_no;
    const size_t end = text.find('\n', pos);
    const bool terminated = end != std::string::npos;
    const std::string line = text.substr(pos, terminated ? end - pos : std::string::npos);
    const size_t next = terminated ? end + 1 : text.size();
    // A line without its newline was cut off mid-write.
    std::optional<Json> record = terminated ? parse_point_line(line) : std::nullopt;
    if (!record) {
      if (next < text.size()) {
        throw InputError(jsonl_path_, "line " + std::to_string(line_no),
                         "a point record (one JSON object per line); this results file is corrupt in the middle, "
                         "not just cut off at the end: remove it to start over, or use another --out");
      }
      warning_ = jsonl_path_ + ": line " + std::to_string(line_no) +
                 " is incomplete (a run killed mid-write?); dropped, its point will be computed again";
      break;
    }
    const int64_t index = (*record)["index"].get<int64_t>();  // before the move below
    records_[index] = std::move(*record);
    good_bytes = next;
    pos = next;
  }
  if (good_bytes < text.size()) fs::resize_file(jsonl_path_, good_bytes);
}

void PointLog::open_for_append() {
  jsonl_ = std::fopen(jsonl_path_.c_str(), records_.empty() && warning_.empty() ? "w" : "a");
  if (jsonl_ == nullptr) throw InputError(jsonl_path_, "--out", "a writable results file");
  if (csv_path_.empty()) return;
  // The CSV is derived: rebuilt from the kept records, then appended to.
  csv_ = std::fopen(csv_path_.c_str(), "w");
  if (csv_ == nullptr) throw InputError(csv_path_, "--out", "a writable results file");
  std::fputs(points_csv(*spec_, records_).c_str(), csv_);
  std::fflush(csv_);
}

void PointLog::append(const Json& record) {
  const std::string line = record.dump() + "\n";
  std::fputs(line.c_str(), jsonl_);
  std::fflush(jsonl_);
  if (csv_ != nullptr) {
    std::fputs(point_csv_row(*spec_, record).c_str(), csv_);
    std::fflush(csv_);
  }
  records_[record.at("index").get<int64_t>()] = record;
}

void PointLog::rewrite_sorted() {
  std::fclose(jsonl_);
  jsonl_ = nullptr;
  if (csv_ != nullptr) {
    std::fclose(csv_);
    csv_ = nullptr;
  }
  write_point_files(jsonl_path_, csv_path_, *spec_, records_);
  jsonl_ = std::fopen(jsonl_path_.c_str(), "a");
  if (!csv_path_.empty()) csv_ = std::fopen(csv_path_.c_str(), "a");
}

std::vector<Json> read_point_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, "(file)", "a readable points file (points.jsonl)");
  std::vector<Json> out;
  std::string line;
  int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::optional<Json> record = parse_point_line(line);
    if (!record) throw InputError(path, "line " + std::to_string(line_no), "a point record (one JSON object per line)");
    out.push_back(std::move(*record));
  }
  return out;
}

}  // namespace loom
