// Restores a process-wide kernel setting (the prefetch hint, the slot request, the tile order)
// when a test ends, so a test that changes it leaves the others the default.
#pragma once

namespace kvb::testing {

template <typename T, T (*Get)() noexcept, void (*Set)(T) noexcept>
class SettingGuard {
 public:
  SettingGuard() : before_(Get()) {}
  ~SettingGuard() { Set(before_); }
  SettingGuard(const SettingGuard&) = delete;
  SettingGuard& operator=(const SettingGuard&) = delete;

 private:
  T before_;
};

}  // namespace kvb::testing
