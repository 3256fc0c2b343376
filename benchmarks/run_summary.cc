#include "benchmarks/run_summary.h"

#include <cstdio>

namespace kvb {
namespace {

bool beats_its_ceiling(const RunSummaryLine& l) { return l.streams_like_its_ceiling && l.pct && *l.pct > 100; }

std::string bracket_cells(const RunSummaryLine& l) {
  if (!l.ceiling_before || !l.ceiling_after) return "";
  char cells[160];
  int n = std::snprintf(cells, sizeof cells, "  %.2f -> %.2f (%+.1f%%)", *l.ceiling_before, *l.ceiling_after,
                        100.0 * (*l.ceiling_after / *l.ceiling_before - 1));
  if (l.core_before && l.core_after && n > 0) {
    n += std::snprintf(cells + n, sizeof cells - static_cast<std::size_t>(n), "; %.1f -> %.1f", *l.core_before,
                       *l.core_after);
  }
  if (l.crossing_before && l.crossing_after && n > 0) {
    std::snprintf(cells + n, sizeof cells - static_cast<std::size_t>(n), "; crossing %.0f -> %.0f ns",
                  *l.crossing_before, *l.crossing_after);
  }
  return cells;
}

}  // namespace

std::string format_run_summary(const std::vector<RunSummaryLine>& lines, bool bracketed) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-90s %9s %8s %5s%s\n", "configuration", "GB/s", "%ceil", "valid",
                bracketed ? "  ceiling before -> after; core GFLOP/s before -> after; barrier crossing ns before -> after"
                          : "");
  out += line;
  int beaten = 0, beaten_bracketed = 0;
  for (const RunSummaryLine& l : lines) {
    const bool beats = beats_its_ceiling(l);
    char pct[16] = "-";
    if (l.pct) std::snprintf(pct, sizeof pct, "%.1f%s", *l.pct, beats ? "*" : "");
    if (beats) {
      ++beaten;
      if (l.ceiling_before && l.ceiling_after) ++beaten_bracketed;
    }
    std::string wait;
    if (l.barrier_wait_pct) {
      // Whom they waited for matters once the waits do (below 1%, sub-microsecond skews).
      char w[112];
      std::snprintf(w, sizeof w, "  (workers waited %.0f%% at barriers%s)", *l.barrier_wait_pct,
                    *l.barrier_wait_pct >= 1 ? l.barrier_slowest.c_str() : "");
      wait = w;
    }
    std::snprintf(line, sizeof line, "%-90s %9.2f %8s %5d", l.label.c_str(), l.gbps, pct, l.valid ? 1 : 0);
    out += line + bracket_cells(l) + wait + "\n";
  }
  if (beaten > 0) {
    out += "* streamed faster than the read ceiling the row is held to (" + std::to_string(beaten) + " row" +
           (beaten == 1 ? "" : "s") + "): that ceiling did not bound the row, so its %ceil overstates the kernel.";
    if (beaten_bracketed > 0) {
      out += " A bracketed row's ceilings, taken right before and right after it, both read less than it streamed.";
    }
    if (beaten_bracketed < beaten) {
      out += " A row without brackets is held to the ceiling the run measured once, at its start, and a shared "
             "host's bandwidth moves";
      out += bracketed ? "." : ": --ceiling-bracket=1 holds each row to ceilings taken right before and after it.";
    }
    out += "\n";
  }
  return out;
}

}  // namespace kvb
