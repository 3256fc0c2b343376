// Kernel error codes. Kernels never throw, allocate or print: they return a Status and the
// caller (harness, benchmarks, tests) turns it into a message.
#pragma once

namespace kvb {

enum class Status : int {
  kOk = 0,
  kInvalidShape,       // a dimension is zero/negative, or q_heads is not a multiple of kv_heads
  kOutOfRange,         // layer/head/position/range outside the geometry
  kNullArgument,       // a required pointer is null
  kWorkspaceTooSmall,  // caller-provided workspace is smaller than the kernel declares
  kUnsupported,        // the combination (dtype, layout, ...) is not implemented
};

// Static, human-readable description ("position beyond cache capacity", ...).
const char* status_message(Status s) noexcept;

inline bool ok(Status s) noexcept { return s == Status::kOk; }

}  // namespace kvb
