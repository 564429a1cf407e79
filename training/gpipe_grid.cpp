#include "training/gpipe_grid.h"

#include <algorithm>

namespace loom {

GpipeGrid gpipe_grid(const std::vector<double>& forward, const std::vector<double>& backward,
                     const std::vector<double>& send_forward, const std::vector<double>& send_backward,
                     int64_t m) {
  const int p = static_cast<int>(forward.size());
  GpipeGrid g;
  g.forward_end.assign(p, std::vector<double>(m, 0));
  g.backward_end.assign(p, std::vector<double>(m, 0));
  for (int64_t j = 0; j < m; ++j) {
    for (int s = 0; s < p; ++s) {
      const double arrive = s == 0 ? 0 : g.forward_end[s - 1][j] + send_forward[s - 1];
      const double start = std::max(arrive, j == 0 ? 0 : g.forward_end[s][j - 1]);
      g.forward_end[s][j] = start + forward[s];
    }
  }
  for (int64_t j = m - 1; j >= 0; --j) {
    for (int s = p - 1; s >= 0; --s) {
      const double after_own = j == m - 1 ? g.forward_end[s][m - 1] : g.backward_end[s][j + 1];
      const double arrive = s == p - 1 ? 0 : g.backward_end[s + 1][j] + send_backward[s];
      g.backward_end[s][j] = std::max(after_own, arrive) + backward[s];
    }
  }
  double busy = 0;
  for (int s = 0; s < p; ++s) {
    g.end = std::max(g.end, g.backward_end[s][0]);
    busy += double(m) * (forward[s] + backward[s]);
  }
  g.idle_fraction = g.end > 0 ? 1.0 - busy / (double(p) * g.end) : 0;
  return g;
}

}  // namespace loom
