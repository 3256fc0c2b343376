#include "analysis/statistics.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/statistics/t_test.hpp>
#include <cmath>
#include <utility>

namespace kvb {

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::optional<UTestResult> mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < kUTestMinRepetitions || b.size() < kUTestMinRepetitions) return std::nullopt;
  // Rank the pooled sample; ties share the average rank.
  std::vector<std::pair<double, int>> pooled;
  pooled.reserve(a.size() + b.size());
  for (double v : a) pooled.emplace_back(v, 0);
  for (double v : b) pooled.emplace_back(v, 1);
  std::sort(pooled.begin(), pooled.end());
  const double n1 = static_cast<double>(a.size());
  const double n2 = static_cast<double>(b.size());
  const double n = n1 + n2;
  double rank_sum_a = 0;
  double tie_term = 0;  // sum over tie groups of (t^3 - t)
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double average_rank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1 .. j
    for (std::size_t k = i; k < j; ++k) {
      if (pooled[k].second == 0) rank_sum_a += average_rank;
    }
    tie_term += t * t * t - t;
    i = j;
  }
  UTestResult r;
  r.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double mean_u = n1 * n2 / 2;
  const double var_u = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var_u <= 0) {  // every value identical: no evidence of a difference
    r.z = 0;
    r.p_value = 1;
    return r;
  }
  const double deviation = std::max(0.0, std::fabs(r.u - mean_u) - 0.5);
  r.z = deviation / std::sqrt(var_u);
  const boost::math::normal standard_normal;
  r.p_value = std::min(1.0, 2 * boost::math::cdf(boost::math::complement(standard_normal, r.z)));
  return r;
}

std::optional<double> paired_ratio_p_value(const std::vector<double>& ratios) {
  if (ratios.size() < 2) return std::nullopt;
  std::vector<double> logs;
  for (double r : ratios) {
    if (!(r > 0) || !std::isfinite(r)) return std::nullopt;
    logs.push_back(std::log(r));
  }
  if (std::all_of(logs.begin(), logs.end(), [&](double x) { return x == logs.front(); }))
    return logs.front() == 0 ? 1.0 : 0.0;
  return boost::math::statistics::one_sample_t_test(logs, 0.0).second;
}

std::vector<double> holm_adjusted(const std::vector<double>& p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  for (std::size_t i = 0; i < m; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double running = 0;  // the step-down keeps the adjusted values in the p-values' order
  for (std::size_t j = 0; j < m; ++j) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - j) * p_values[order[j]]));
    adjusted[order[j]] = running;
  }
  return adjusted;
}

}  // namespace kvb
