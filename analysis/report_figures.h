// The report's figures, one per machine and kind, built as gnuplot scripts + data. Figures of
// the same kind share their axis ranges so machines can be compared by eye.
#pragma once
#include <string>
#include <vector>

#include "analysis/gnuplot_figure.h"
#include "analysis/machine_results.h"

namespace kvb {

struct ReportFigure {
  std::string machine_id;
  std::string kind;     // "roofline", "llc_fit", "context", "threads"
  std::string caption;
  GnuplotFigure figure;
};

// Figures that have something to show (e.g. thread scaling only where a machine ran several
// thread counts). `knee_drop` is the fractional bandwidth drop that marks a knee.
std::vector<ReportFigure> build_report_figures(const std::vector<MachineResults>& machines, double knee_drop);

}  // namespace kvb
