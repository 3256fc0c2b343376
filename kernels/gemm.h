// Small fp32 GEMM for the recompute baseline: c[m][n] = a[m][k] * b[k][n], all row-major.
// Highway (runtime dispatch), register-blocked 4 rows x 4 vectors, k blocked so the b panel
// stays in L2. Not a BLAS: no packing, no multithreading; the machine has no BLAS installed
// (/usr/include/cblas.h absent) and kvbench adds no dependency for a baseline.
#pragma once
#include <cstdint>

#include "kernels/status.h"

namespace kvb {

Status gemm_f32(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k,
                std::int64_t n) noexcept;

}  // namespace kvb
