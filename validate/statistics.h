// Agreement statistics between measured and simulated values, as architecture papers report
// them (Accel-Sim: MAE, correlation).
#pragma once

#include <optional>
#include <vector>

namespace loom::validate {

// (simulated - measured) / measured.
double relative_error(double measured, double simulated);
// Mean of |relative_error| over the pairs; nullopt when there are none.
std::optional<double> mean_absolute_percentage_error(const std::vector<double>& measured,
                                                     const std::vector<double>& simulated);
// Pearson's r; nullopt with fewer than 2 pairs or when either side has no variance.
std::optional<double> pearson_correlation(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace loom::validate
