#include "apps/run_checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "sim/append_log.h"
#include "sim/error.h"
#include "sim/interrupt_guard.h"
#include "sim/text_file.h"
#include "sweep/sweep_spec.h"  // fnv1a_hex

namespace loom {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "loom-run/1";

// Every field of every layer that a model reads, in a fixed order.
std::string network_text(const Network& n) {
  std::string t = n.name + "\nbatch " + std::to_string(n.batch) + "\n";
  for (const Layer& l : n.layers) {
    const Conv2d& c = l.conv;
    const Gemm& g = l.gemm;
    t += l.name + " " + l.kind_name() + " " + std::to_string(l.batch);
    for (int64_t v : {c.in_h, c.in_w, c.in_channels, c.out_channels, c.kernel_h, c.kernel_w, c.stride_h, c.stride_w,
                      c.pad_h, c.pad_w, c.dilation_h, c.dilation_w, c.groups, g.m, g.n, g.k, g.groups}) {
      t += ' ';
      t += std::to_string(v);
    }
    t += "\n";
  }
  return t;
}

// The checkpoint's directory is created when the first layer finishes; a --out that can
// never be created must be an input error now, not a warning then (or an error hours
// later, when the reports are written). Nothing is created here.
void check_creatable(const fs::path& dir) {
  std::error_code ec;
  fs::path existing = dir;
  while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
  if (existing.empty()) existing = ".";
  std::string why;
  if (!fs::is_directory(existing, ec)) {
    why = " is not a directory";
  } else if (::access(existing.c_str(), W_OK | X_OK) != 0) {
    why = " is not writable";
  }
  if (!why.empty()) {
    throw InputError(dir.string(), "--out", "cannot create the output directory: " + existing.string() + why);
  }
}

}  // namespace

Json run_checkpoint_header(const std::string& arch_name, const std::string& resolved_config, const Network& network,
                           const std::string& options) {
  const std::string fingerprint = fnv1a_hex(std::string("loom ") + LOOM_VERSION + "\n" + resolved_config + "\n" +
                                            network_text(network) + "\n" + options);
  return {{"checkpoint", kFormat},      {"fingerprint", fingerprint}, {"layers", network.layers.size()},
          {"arch", arch_name},          {"workload", network.name},   {"loom", LOOM_VERSION}};
}

RunCheckpoint::RunCheckpoint(std::string path, Json header, bool resume)
    : path_(std::move(path)), header_(std::move(header)), layer_count_(header_.at("layers").get<size_t>()) {
  check_creatable(fs::path(path_).parent_path());
  if (resume && fs::exists(path_)) load(header_.at("fingerprint").get<std::string>());
}

RunCheckpoint::~RunCheckpoint() {
  if (fd_ >= 0) ::close(fd_);
}

void RunCheckpoint::load(const std::string& fingerprint) {
  bool has_header = false;
  const AppendLogRead r =
      read_append_log(path_, "run checkpoint", [&](int64_t line_no, uint64_t, const std::string& line) {
        std::optional<Json> j = parse_json_line(line);
        if (line_no == 1) {
          check_header(j, fingerprint);
          return has_header = true;
        }
        const bool is_layer = j && j->contains("layer") && (*j)["layer"].is_number_unsigned() &&
                              (*j)["layer"].get<size_t>() < layer_count_ && j->contains("result");
        if (!is_layer) return false;
        const size_t layer = (*j)["layer"].get<size_t>();
        line_of_[layer] = static_cast<size_t>(line_no);
        records_[layer] = std::move((*j)["result"]);
        return true;
      });
  // An empty file, or a header cut off: appending to it would give a checkpoint without one.
  if (!has_header) check_header(std::nullopt, fingerprint);
  warning_ = r.check(path_,
                     "a finished layer {\"layer\": N, \"result\": {...}}; this checkpoint is corrupt, not "
                     "just cut off at the end: delete it, or drop --resume to start over",
                     "its layer will be simulated again");
  good_bytes_ = r.good_bytes;
  loaded_ = true;
}

void RunCheckpoint::check_header(const std::optional<Json>& j, const std::string& fingerprint) const {
  bool ours = false;
  std::string whose;
  try {
    if (!j || j->value("checkpoint", "") != kFormat) {
      throw InputError(path_, "line 1", "a loom run checkpoint (header \"checkpoint\": \"" + std::string(kFormat) +
                                            "\"); this file is not one: delete it, or drop --resume to start over");
    }
    ours = j->value("fingerprint", "") == fingerprint && j->value("layers", size_t{0}) == layer_count_;
    whose = j->value("arch", "?") + " / " + j->value("workload", "?");
  } catch (const Json::exception&) {
    whose = "a header of the wrong form";
  }
  if (!ours) {
    throw InputError(path_, "fingerprint",
                     "a checkpoint of this run; it belongs to a different run (" + whose +
                         ", or other options, layers or loom version): delete it, or drop --resume to start over");
  }
}

const Json* RunCheckpoint::find(size_t layer) const {
  const auto it = records_.find(layer);
  return it == records_.end() ? nullptr : &it->second;
}

void RunCheckpoint::bad_record(size_t layer, const std::string& why) const {
  const auto it = line_of_.find(layer);
  const std::string where =
      it == line_of_.end() ? "layer " + std::to_string(layer) : "line " + std::to_string(it->second);
  throw InputError(path_, where,
                   "a finished layer's record (" + why + "); this checkpoint is corrupt: delete it, or drop --resume "
                   "to start over");
}

bool RunCheckpoint::start_file(const std::string& first_line) {
  if (loaded_) {
    // Resumed: append after the kept lines, dropping a cut-off last one.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd_ >= 0 && ::ftruncate(fd_, static_cast<off_t>(good_bytes_)) != 0) return false;
    return fd_ >= 0 && write_all(fd_, first_line);
  }
  // A fresh checkpoint replaces any old one whole: header and first layer, atomically.
  write_file_atomically(path_, header_.dump() + "\n" + first_line);
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  return fd_ >= 0;
}

void RunCheckpoint::keep(size_t layer, const Json& record) {
  if (failed_) return;
  const std::string line = Json{{"layer", layer}, {"result", record}}.dump() + "\n";
  const DeferInterrupts hold;  // the line and the count of kept layers change together
  bool ok = false;
  std::string why;
  try {
    if (fd_ < 0) {
      if (const fs::path dir = fs::path(path_).parent_path(); !dir.empty()) make_output_dir(dir.string());
      ok = start_file(line);
    } else {
      ok = write_all(fd_, line);
    }
    if (!ok) why = std::strerror(errno);
  } catch (const InputError& e) {
    why = e.what();
  }
  if (!ok) {
    // The results are still computed and written at the end; only resuming is lost.
    std::fprintf(stderr, "\nloom: warning: cannot write the checkpoint %s (%s); continuing without one\n",
                 path_.c_str(), why.c_str());
    failed_ = true;
    return;
  }
  records_[layer] = record;
  if (on_kept) on_kept();
}

void RunCheckpoint::remove() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  std::error_code ec;
  fs::remove(path_, ec);
}

}  // namespace loom
