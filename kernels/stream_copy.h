// Bulk byte moves for cache management, optionally with non-temporal (streaming) stores.
// glibc's memcpy only streams above its own threshold (a fraction of the LLC it detects: with a
// hypervisor reporting the host's 504 MiB L3 that is hundreds of MiB), so moving a cache as many
// head-sized runs would otherwise pay a read-for-ownership of every destination line.
#pragma once
#include <cstdint>

namespace kvb {

// memmove semantics (overlap allowed). With `stream`, the vector-aligned part of the
// destination is written with non-temporal stores; call stream_fence() before other threads or
// devices read the destination.
void move_bytes(void* dst, const void* src, std::int64_t bytes, bool stream) noexcept;
void stream_fence() noexcept;

}  // namespace kvb
