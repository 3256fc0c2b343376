#include "benchmarks/kv_sizing.h"

#include <algorithm>

namespace kvb {
namespace {

std::int64_t bytes_per_token(const ModelShape& s, std::int64_t kv_heads, DType dtype) {
  // kv_cache_bytes is the kernels' definition of payload bytes; int8 adds one fp32 scale per row.
  std::int64_t bytes = kv_cache_bytes(s.layers, kv_heads, 1, s.head_dim, dtype);
  if (dtype_has_row_scale(dtype)) bytes += 2 * s.layers * kv_heads * std::int64_t{sizeof(float)};
  return bytes;
}

}  // namespace

SizingResult size_kv_cache(const SizingRequest& request, const MachineFacts& machine) {
  const ModelShape& s = request.shape;
  SizingResult r;
  r.positions = s.window > 0 ? std::min(s.context, s.window) : s.context;
  if (request.block_size > 0) {
    r.positions = (r.positions + request.block_size - 1) / request.block_size * request.block_size;
  }
  r.bytes_per_token = bytes_per_token(s, s.kv_heads, request.dtype);
  // Hybrid models: the sliding layers hold `positions`, the global ones the whole context.
  DecodeConfig c;
  c.shape = s;
  const std::int64_t sliding = c.hybrid() ? c.sliding_layer_count() : s.layers;
  std::int64_t global_positions = s.context;
  if (request.block_size > 0) {
    global_positions = (global_positions + request.block_size - 1) / request.block_size *
                       request.block_size;
  }
  const auto total_for = [&](std::int64_t per_token) {
    return per_token / s.layers * (sliding * r.positions + (s.layers - sliding) * global_positions);
  };
  r.total_bytes = total_for(r.bytes_per_token);
  r.bytes_per_layer = r.total_bytes / s.layers;
  r.mha_total_bytes = total_for(bytes_per_token(s, s.q_heads, request.dtype));
  r.gqa_saving_pct = 100.0 * (1.0 - static_cast<double>(r.total_bytes) /
                                        static_cast<double>(r.mha_total_bytes));
  r.users_total_bytes = r.total_bytes * request.users;
  r.fits_llc = machine.llc_bytes > 0 && r.total_bytes <= machine.llc_bytes;
  r.fits_ram = r.users_total_bytes <= machine.mem_available;
  return r;
}

}  // namespace kvb
