#include "sweep/progress.h"

#include <unistd.h>

#include <cstdio>

namespace loom {

std::string format_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "?";
  const long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s < 60) {
    std::snprintf(text, sizeof text, "%ld s", s);
  } else if (s < 3600) {
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  }
  return text;
}

Progress::Progress(std::string label, int64_t total, int64_t already, bool quiet)
    : label_(std::move(label)),
      total_(total),
      already_(already),
      done_(already),
      quiet_(quiet || total <= 0),
      terminal_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void Progress::update(int64_t done) {
  done_ = done;
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  if (terminal_) {
    if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  } else {
    // A line per 10% at most every 2 s, and one at least every 30 s: short runs print only
    // their last line, long ones a readable log.
    const int64_t decile = total_ > 0 ? done * 10 / total_ : 0;
    const bool news = decile != last_logged_decile_ && now - last_draw_ >= std::chrono::seconds(2);
    if (!news && now - last_draw_ < std::chrono::seconds(30)) return;
    last_logged_decile_ = decile;
  }
  last_draw_ = now;
  draw(done, false);
}

void Progress::finish() {
  if (quiet_) return;
  draw(done_, true);
}

void Progress::draw(int64_t done, bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done - already_) / elapsed : 0.0;
  const double left = rate > 0 ? static_cast<double>(total_ - done) / rate : -1.0;
  const double fraction = total_ > 0 ? static_cast<double>(done) / static_cast<double>(total_) : 1.0;
  char tail[160];
  if (final) {
    std::snprintf(tail, sizeof tail, "%lld/%lld, %.1f points/s, %s", static_cast<long long>(done),
                  static_cast<long long>(total_), rate, format_duration(elapsed).c_str());
  } else {
    std::snprintf(tail, sizeof tail, "%lld/%lld %3.0f%%, %.1f points/s, ETA %s", static_cast<long long>(done),
                  static_cast<long long>(total_), 100.0 * fraction, rate, left < 0 ? "?" : format_duration(left).c_str());
  }
  if (terminal_) {
    constexpr int kWidth = 24;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.append(static_cast<size_t>(kWidth - filled), '.');
    std::fprintf(stderr, "\r%s [%s] %s\033[K%s", label_.c_str(), bar.c_str(), tail, final ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s: %s\n", label_.c_str(), tail);
  }
  std::fflush(stderr);
}

}  // namespace loom
