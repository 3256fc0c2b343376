// Small statistics used by report and compare: medians and the two-sided Mann-Whitney U test.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

namespace kvb {

// Median of the values (mean of the two middle ones for an even count); nullopt when empty.
std::optional<double> median(std::vector<double> values);

// Like Google Benchmark's compare.py: below this many repetitions per side the U test has too
// little power to be trusted, so results are reported with a warning.
inline constexpr std::size_t kUTestOptimalRepetitions = 9;
// Fewer than this per side: no test at all.
inline constexpr std::size_t kUTestMinRepetitions = 2;

struct UTestResult {
  double u = 0;        // U statistic of the first sample
  double z = 0;        // normal approximation, continuity- and tie-corrected
  double p_value = 1;  // two-sided
};

// Two-sided Mann-Whitney U test (normal approximation with tie correction and continuity
// correction, as scipy.stats.mannwhitneyu's asymptotic method). nullopt if either side has
// fewer than kUTestMinRepetitions values.
std::optional<UTestResult> mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

// Paired rounds (a base run and a new run back to back, repeated): the two-sided one-sample t-test
// of the logarithms of the rounds' new / base ratios against 0, i.e. whether the typical ratio is
// 1 (boost::math::statistics::one_sample_t_test). nullopt below 2 ratios or for a ratio that is
// not positive and finite. Identical ratios have no spread: p = 1 if they are all 1, else 0.
std::optional<double> paired_ratio_p_value(const std::vector<double>& ratios);

// Holm's step-down adjustment of m p-values tested together (R's p.adjust(p, "holm")), in the
// input's order: the i-th smallest becomes max over j <= i of min(1, (m - j + 1) p_(j)). Calling
// each configuration whose adjusted p is below alpha significant keeps the chance that any of
// them is flagged by noise alone below alpha (Bonferroni's guarantee, with more power).
std::vector<double> holm_adjusted(const std::vector<double>& p_values);

}  // namespace kvb
