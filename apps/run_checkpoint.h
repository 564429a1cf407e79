// OUT/run.checkpoint.jsonl: the layers of a `loom run` finished so far, so that a run
// stopped by Ctrl-C, SIGTERM (a batch system's time limit) or a crash resumes where it
// stopped (`loom run ... --resume`) instead of starting over. One JSON object per line:
//
//   {"checkpoint":"loom-run/1","fingerprint":"<16 hex digits>","layers":53,"arch":...,"workload":...}
//   {"layer":0,"result":{...}}          one line per finished layer, in the order they finished
//
// The fingerprint hashes everything that decides the results (the loom version, the resolved
// architecture, every layer of the network, the run's options); a checkpoint with another
// fingerprint belongs to another run and is refused. "result" is the backend's record
// (apps/layer_record_json.h). Each line is appended with one write(2) on an O_APPEND
// descriptor with SIGINT and SIGTERM held off, so a kill leaves at most a cut-off last line:
// the reader drops it (and the layer is simulated again). A bad line anywhere else means
// the file is corrupt, an InputError. The run removes the file once its reports are written.
#pragma once

#include <cstddef>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "sim/json_reader.h"
#include "sim/layer_store.h"
#include "workloads/network.h"

namespace loom {

inline constexpr const char* kRunCheckpointFile = "run.checkpoint.jsonl";

// The header line of a run: `resolved_config` is the resolved architecture JSON as written
// to resolved_config.json, `options` a canonical text of the options that change results.
Json run_checkpoint_header(const std::string& arch_name, const std::string& resolved_config, const Network& network,
                           const std::string& options);

class RunCheckpoint {
 public:
  // With `resume` and an existing file, loads its finished layers; InputError when the file
  // belongs to another run or is corrupt. Otherwise reads nothing: an old file is replaced
  // when the first layer is kept (so a run refused for bad options leaves it alone).
  // InputError (--out) when the file's directory cannot be created; nothing is created yet.
  RunCheckpoint(std::string path, Json header, bool resume);
  ~RunCheckpoint();
  RunCheckpoint(const RunCheckpoint&) = delete;
  RunCheckpoint& operator=(const RunCheckpoint&) = delete;

  const std::string& path() const { return path_; }
  size_t layer_count() const { return layer_count_; }
  size_t kept() const { return records_.size(); }
  bool loaded() const { return loaded_; }               // resumed from an existing file
  const std::string& warning() const { return warning_; }  // a cut-off last line was dropped
  // The record kept for `layer`, or nullptr.
  const Json* find(size_t layer) const;
  // InputError naming the file and the layer's line: the record cannot be read back.
  [[noreturn]] void bad_record(size_t layer, const std::string& why) const;

  // Appends one finished layer, then calls on_kept, both with SIGINT and SIGTERM held off
  // so that an interruption's count always matches the file. Never throws: when the file
  // cannot be written, says so once on stderr and stops checkpointing (the run goes on).
  void keep(size_t layer, const Json& record);
  std::function<void()> on_kept;

  // The run's reports are written: the checkpoint has served.
  void remove();

 private:
  void load(const std::string& fingerprint);
  void check_header(const std::optional<Json>& header, const std::string& fingerprint) const;
  bool start_file(const std::string& first_line);
  bool append(const std::string& line);

  std::string path_;
  Json header_;
  size_t layer_count_ = 0;
  std::map<size_t, Json> records_;
  std::map<size_t, size_t> line_of_;  // layer -> line number in the file (for errors)
  size_t good_bytes_ = 0;             // the loaded file's length without a cut-off last line
  bool loaded_ = false, failed_ = false;
  int fd_ = -1;
  std::string warning_;
};

// The checkpoint as a model's LayerStore (sim/layer_store.h): `decode(record, layer)`
// rebuilds a kept layer's result (throwing nlohmann's json exceptions or
// std::invalid_argument on a bad record, reported as a corrupt checkpoint), `encode(result)`
// makes a new layer's record. No checkpoint: an empty store.
template <class T, class Decode, class Encode>
LayerStore<T> checkpoint_store(RunCheckpoint* checkpoint, Decode decode, Encode encode) {
  LayerStore<T> store;
  if (checkpoint == nullptr) return store;
  store.find = [checkpoint, decode](size_t layer) -> std::optional<T> {
    const Json* record = checkpoint->find(layer);
    if (record == nullptr) return std::nullopt;
    try {
      return decode(*record, layer);
    } catch (const Json::exception& e) {
      checkpoint->bad_record(layer, e.what());
    } catch (const std::invalid_argument& e) {
      checkpoint->bad_record(layer, std::string("expected ") + e.what());
    }
  };
  store.keep = [checkpoint, encode](size_t layer, const T& result) { checkpoint->keep(layer, encode(result)); };
  return store;
}

}  // namespace loom
