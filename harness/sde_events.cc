#include "harness/sde_events.h"

#include <sde_lib.h>

#include <mutex>

namespace kvb {
namespace {

constexpr int kN = static_cast<int>(SdeEvent::kCount);
const char* const kNames[kN] = {"KV_BYTES_READ", "KV_BYTES_WRITTEN", "TOKENS_APPENDED", "FLOPS"};
const char* const kPapiNames[kN] = {"sde:::kvbench::KV_BYTES_READ", "sde:::kvbench::KV_BYTES_WRITTEN",
                                    "sde:::kvbench::TOKENS_APPENDED", "sde:::kvbench::FLOPS"};
const char* const kDescriptions[kN] = {
    "KV-cache kernel bytes read (kernels/cost_model.h), calling thread",
    "KV-cache kernel bytes written (kernels/cost_model.h), calling thread",
    "tokens appended to the KV cache (all layers of one token count once), calling thread",
    "floating-point operations of KV-cache kernels (kernels/cost_model.h), calling thread"};

// Per-thread counts: each worker adds to its own, and PAPI (reading on that worker's thread
// through the callback) sees only that thread's work, so per-thread event sets sum correctly.
thread_local long long tls_counts[kN] = {};

long long read_calling_thread(void* param) {
  return tls_counts[reinterpret_cast<std::intptr_t>(param)];
}

}  // namespace

const char* sde_event_name(SdeEvent e) { return kNames[static_cast<int>(e)]; }
const char* sde_event_papi_name(SdeEvent e) { return kPapiNames[static_cast<int>(e)]; }

void sde_register() {
  static std::once_flag once;
  std::call_once(once, [] {
    papi_handle_t h = papi_sde_init("kvbench");
    for (int i = 0; i < kN; ++i) {
      // INSTANT, not DELTA: libsde keeps one start value per counter, not per event set, so
      // per-thread deltas would be mixed up; CounterSet subtracts a per-thread baseline.
      papi_sde_register_counter_cb(h, kNames[i], PAPI_SDE_RO | PAPI_SDE_INSTANT, PAPI_SDE_long_long,
                                   &read_calling_thread, reinterpret_cast<void*>(static_cast<std::intptr_t>(i)));
      papi_sde_describe_counter(h, kNames[i], kDescriptions[i]);
    }
  });
}

void sde_count(const Cost& cost) noexcept {
  tls_counts[0] += cost.bytes_read;
  tls_counts[1] += cost.bytes_written;
  tls_counts[3] += cost.flops;
}

void sde_count_tokens(std::int64_t tokens) noexcept { tls_counts[2] += tokens; }

std::int64_t sde_thread_value(SdeEvent e) noexcept { return tls_counts[static_cast<int>(e)]; }

}  // namespace kvb

// libsde calls this to list our events for papi_native_avail without running the program.
extern "C" papi_handle_t papi_sde_hook_list_events(papi_sde_fptr_struct_t* fptr) {
  papi_handle_t h = fptr->init("kvbench");
  for (int i = 0; i < 4; ++i) {
    static const char* const names[] = {"KV_BYTES_READ", "KV_BYTES_WRITTEN", "TOKENS_APPENDED", "FLOPS"};
    fptr->register_counter_cb(h, names[i], PAPI_SDE_RO | PAPI_SDE_INSTANT, PAPI_SDE_long_long, nullptr, nullptr);
  }
  return h;
}
