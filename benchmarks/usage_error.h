// Bad input from the user (unknown option, impossible shape, too little memory, malformed
// file). The command turns it into "kvbench: error: <what>" and exit status 2.
#pragma once
#include <stdexcept>

namespace kvb {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitUsage = 2;

}  // namespace kvb
