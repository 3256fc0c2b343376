// Bad input (missing or malformed CSV, unknown option, existing output) is reported by throwing
// InputError; the command entry points turn it into a message on stderr and exit status 2.
#pragma once
#include <stdexcept>
#include <string>

namespace kvb {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Exit statuses shared by `kvbench report` and `kvbench compare`.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRegression = 1;  // compare: a significant slowdown; report: tool failure
inline constexpr int kExitBadInput = 2;

}  // namespace kvb
