// Two runs of one configuration that ran against ceilings far apart (each row's ceiling_gbps: the
// read ceiling of its level, for copies the copy ceiling): the machine moved
// between them (another lent host, a neighbour on the memory bus), so their time ratio carries
// the machine's change as well as the code's. Each side's pct_of_ceiling (its time against the
// ceiling of its own run) is the comparison that holds the machine still. Informational: it
// changes no verdict. On the lent EMR host two reference sets of the same kernels took up to
// 1.5x each other's time, 33 of their 60 decode rows with ceilings 1.10-1.89x apart
// (results/xeon-emr-16c-kvm/session-2026-11-30e).
#pragma once
#include <optional>
#include <string>

namespace kvb {

// Ceilings further apart than this (larger / smaller) are noted, as `kvbench report` notes a
// bracket that moved while a row ran.
inline constexpr double kCeilingMovedRatio = 1.10;

// A compared configuration's ceilings and efficiencies, base against new (medians of its rows'
// ceiling_gbps and pct_of_ceiling): "ceiling 171 -> 150 GB/s, 84% -> 78% of it" where both
// ceilings are known and further apart than kCeilingMovedRatio, else "".
std::string ceiling_change_note(std::optional<double> base_ceiling_gbps, std::optional<double> new_ceiling_gbps,
                                std::optional<double> base_pct, std::optional<double> new_pct);

}  // namespace kvb
