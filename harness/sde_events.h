// kvbench's own software-defined events (libsde), readable through PAPI as
// sde:::kvbench::KV_BYTES_READ, ::KV_BYTES_WRITTEN, ::TOKENS_APPENDED, ::FLOPS.
// Values are fed from the kernels' cost model. Each thread counts into its own thread-local
// slots and the PAPI read callback returns the calling thread's count, so per-thread PAPI
// event sets summed over workers give the process total.
#pragma once
#include <cstdint>

#include "kernels/cost_model.h"

namespace kvb {

enum class SdeEvent : int { kKvBytesRead = 0, kKvBytesWritten, kTokensAppended, kFlops, kCount };
const char* sde_event_name(SdeEvent e);  // "KV_BYTES_READ", ...
// Full PAPI name: "sde:::kvbench::KV_BYTES_READ".
const char* sde_event_papi_name(SdeEvent e);

// Registers the counters with libsde (idempotent, thread-safe). Must run before PAPI adds any
// sde:::kvbench event; CounterSet does it for you.
void sde_register();

// Hot path: adds to the calling thread's counters (plain thread-local adds).
void sde_count(const Cost& cost) noexcept;
void sde_count_tokens(std::int64_t tokens) noexcept;
// The calling thread's current value (what PAPI reads on this thread).
std::int64_t sde_thread_value(SdeEvent e) noexcept;

}  // namespace kvb
