#include "kernels/simd_target.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "hwy/targets.h"
#include "kernels/attention_amx.h"
#include "kernels/row_encode_avx512bf16.h"

namespace kvb {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

struct Limit {
  bool active = false;
  bool avx512_bf16 = false, amx_int8 = false;  // the switches before it, to restore
};
Limit g_limit;

// The bits of every target compiled here that the CPU has, best first (a lower bit is a better
// target of the same family: hwy/detect_targets.h). Taken once, before any limit narrows
// SupportedTargets(): limit_simd_target reads it first.
const std::vector<std::int64_t>& runnable_targets() {
  static const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  return targets;
}

}  // namespace

std::vector<std::string> runnable_simd_targets() {
  std::vector<std::string> names;
  for (std::int64_t t : runnable_targets()) names.push_back(lower(hwy::TargetName(t)));
  return names;
}

std::string runnable_simd_target_list() {
  std::string list;
  for (const std::string& name : runnable_simd_targets()) list += (list.empty() ? "" : ", ") + name;
  return list;
}

bool is_runnable_simd_target(const std::string& name) {
  const std::vector<std::string> names = runnable_simd_targets();
  return std::find(names.begin(), names.end(), lower(name)) != names.end();
}

bool limit_simd_target(const std::string& name) {
  const std::string wanted = lower(name);
  for (std::int64_t t : runnable_targets()) {
    if (lower(hwy::TargetName(t)) != wanted) continue;
    if (!g_limit.active)
      g_limit = {true, detail::avx512_bf16_enabled(), detail::amx_int8_enabled()};
    hwy::DisableTargets(t - 1);  // every target better than `t`
    const bool avx512 = wanted.rfind("avx3", 0) == 0;  // AVX3, AVX3_DL (and later Highway's AVX3_*)
    detail::set_avx512_bf16_enabled(avx512 && g_limit.avx512_bf16);
    detail::set_amx_int8_enabled(avx512 && g_limit.amx_int8);
    return true;
  }
  return false;
}

void unlimit_simd_target() {
  if (!g_limit.active) return;
  hwy::DisableTargets(0);
  detail::set_avx512_bf16_enabled(g_limit.avx512_bf16);
  detail::set_amx_int8_enabled(g_limit.amx_int8);
  g_limit = {};
}

}  // namespace kvb
