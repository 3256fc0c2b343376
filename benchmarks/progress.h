// "[i/N] label  (elapsed, ETA)" lines on stderr for long sweeps.
#pragma once
#include <chrono>
#include <string>

namespace kvb {

class Progress {
 public:
  explicit Progress(int total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  // Announces item `index` (0-based) starting now.
  void start_item(int index, const std::string& label) const;

 private:
  int total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace kvb
