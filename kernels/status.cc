#include "kernels/status.h"

namespace kvb {

const char* status_message(Status s) noexcept {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kInvalidShape:
      return "invalid cache shape (a dimension is not positive, q_heads is not a multiple of "
             "kv_heads, or the cache is too large to address)";
    case Status::kOutOfRange:
      return "layer, head, position or range outside the cache geometry";
    case Status::kNullArgument: return "a required pointer argument is null";
    case Status::kWorkspaceTooSmall: return "workspace smaller than the kernel requires";
    case Status::kUnsupported: return "combination of shape, dtype and layout not supported";
  }
  return "unknown status";
}

}  // namespace kvb
