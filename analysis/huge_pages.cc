#include "analysis/huge_pages.h"

#include <cmath>

namespace kvb {

std::string huge_page_note(const ResultRow& row) {
  const auto share = row.num(Col::thp_share);
  const std::string& mode = row.str(Col::thp_mode);
  if (!share || !(*share < kHugePageShareFlag) || (mode != "always" && mode != "madvise")) return "";
  // Floor, so a share just under the flag never prints as 99% or 100%.
  return std::to_string(static_cast<long>(std::floor(100 * *share))) + "% on huge pages";
}

}  // namespace kvb
