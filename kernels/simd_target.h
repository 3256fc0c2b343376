// The SIMD target the kernels' Highway dispatch picks, and capping it (kvbench run --simd-target):
// one binary then runs, say, its AVX2 code on an AVX-512 CPU, so a CPU's targets are compared on
// the same machine in one build. A process-wide setting, made once before anything is timed; the
// CSV's isa column names the target the kernels ran (simd_target_name(), kernels/attention.h).
#pragma once
#include <string>
#include <vector>

namespace kvb {

// The targets this binary was compiled for that this CPU runs, best first, as Highway names them
// in lower case ("avx3", "avx2", "sse4", "ssse3", "scalar" or "emu128"; "neon", "sve" on Arm). Unaffected by
// limit_simd_target.
std::vector<std::string> runnable_simd_targets();
// The same names joined with ", " (for messages listing the choices).
std::string runnable_simd_target_list();

// Whether `name` (any case) is one of runnable_simd_targets().
bool is_runnable_simd_target(const std::string& name);

// Makes `name` (one of runnable_simd_targets(), any case) the best target the kernels dispatch
// to. Below AVX-512 it also switches off the AVX-512 code reached outside Highway's dispatch, the
// AVX512-BF16 row encoder and AMX int8 scores, so the run is what a CPU without them would run.
// Returns false, changing nothing, for a name not in runnable_simd_targets().
bool limit_simd_target(const std::string& name);
// Undoes limit_simd_target: every runnable target, and those two switches as they were (tests).
void unlimit_simd_target();

}  // namespace kvb
