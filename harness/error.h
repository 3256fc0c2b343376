// The one exception type the harness throws for bad requests and environment failures
// (impossible pinning, unknown PU, CSV header mismatch, out of memory). The command line
// catches it, prints what() and exits with status 2.
#pragma once
#include <stdexcept>
#include <string>

namespace kvb {

class HarnessError : public std::runtime_error {
 public:
  explicit HarnessError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace kvb
