// Progress of long work on stderr: on a terminal, one line redrawn in place with a bar,
// the rate and the time left; otherwise (logs, CI, Slurm) a plain line every 10% or every
// 30 s, so log files stay readable. Quiet: nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace loom {

class Progress {
 public:
  // `already` of `total` were done before this run started (a resumed sweep): they count
  // toward the bar but not toward the rate.
  Progress(std::string label, int64_t total, int64_t already, bool quiet);
  void update(int64_t done);  // cheap: redraws at most ten times a second
  void finish();              // the last line, with the elapsed time

 private:
  void draw(int64_t done, bool final);

  std::string label_;
  int64_t total_, already_, done_ = 0;
  bool quiet_, terminal_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  int64_t last_logged_decile_ = -1;
};

// "1:02:03", "4:05" or "12 s".
std::string format_duration(double seconds);

}  // namespace loom
