// Whether a row's buffer sat on transparent huge pages (thp_share, results/README.md). Where the
// OS offers them (thp_mode always or madvise) a kernel short of free 2 MiB pages backs the rest of
// a large buffer with 4 KiB pages, and streaming reads over those pay TLB misses that the run's
// ceilings may not have paid: such a row's bandwidth understates the kernel.
#pragma once
#include <string>

#include "analysis/result_table.h"

namespace kvb {

// Rows below this share are named: a buffer of whole 2 MiB pages but its ends is at 1.000.
inline constexpr double kHugePageShareFlag = 0.99;

// "43% on huge pages" for a row whose buffer huge pages backed only in part though the OS offered
// them; "" otherwise, and for files from before the column.
std::string huge_page_note(const ResultRow& row);

}  // namespace kvb
