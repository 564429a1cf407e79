#include "validate/statistics.h"

#include <cmath>
#include <cstddef>

namespace loom::validate {

double relative_error(double measured, double simulated) { return (simulated - measured) / measured; }

std::optional<double> mean_absolute_percentage_error(const std::vector<double>& measured,
                                                     const std::vector<double>& simulated) {
  if (measured.empty() || measured.size() != simulated.size()) return std::nullopt;
  double sum = 0;
  for (size_t i = 0; i < measured.size(); ++i) sum += std::fabs(relative_error(measured[i], simulated[i]));
  return 100.0 * sum / static_cast<double>(measured.size());
}

std::optional<double> pearson_correlation(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  if (n < 2 || y.size() != n) return std::nullopt;
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (!(sxx > 0) || !(syy > 0)) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace loom::validate
