#include "benchmarks/progress.h"

#include <cstdio>

namespace kvb {
namespace {

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char text[32];
  std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

}  // namespace

void Progress::start_item(int index, const std::string& label) const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string eta = "ETA ?";
  if (index > 0) eta = "ETA " + clock_text(elapsed / index * (total_ - index));
  std::fprintf(stderr, "[%d/%d] %s  (elapsed %s, %s)\n", index + 1, total_, label.c_str(),
               clock_text(elapsed).c_str(), eta.c_str());
  std::fflush(stderr);
}

}  // namespace kvb
