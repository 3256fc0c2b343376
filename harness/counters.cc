#include "harness/counters.h"

#include <papi.h>
#include <pthread.h>
#include <strings.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>

#include "harness/error.h"
#include "harness/sde_events.h"
#include "harness/thread_pool.h"

namespace kvb {
namespace {

std::string papi_error(int code) {
  const char* s = PAPI_strerror(code);
  return std::string(s ? s : "unknown PAPI error") + " (" + std::to_string(code) + ")";
}

CounterStatus status_for(int code) {
  return code == PAPI_EPERM ? CounterStatus::kDenied : CounterStatus::kUnsupported;
}

unsigned long thread_id() { return static_cast<unsigned long>(pthread_self()); }

// PAPI must be initialised once per process, with thread support before any thread uses it.
void papi_init_once() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    sde_register();  // our SDEs must exist before PAPI's sde component looks for them
    const int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
      failure = "PAPI_library_init failed: " + papi_error(v);
      return;
    }
    int rc = PAPI_thread_init(&thread_id);
    if (rc != PAPI_OK) failure = "PAPI_thread_init failed: " + papi_error(rc);
    PAPI_multiplex_init();
  });
  if (!failure.empty()) throw HarnessError(failure);
}

// PAPI's event lookups must come from a thread PAPI knows: libpapi 7.0's
// PAPI_event_name_to_code, called for a name that is not a preset from the main thread after a
// fixture's workers had registered and unregistered, crashed (SIGSEGV). Registering twice is a no-op.
void papi_register_caller() { PAPI_register_thread(); }

std::string paranoid_level() {
  std::ifstream f("/proc/sys/kernel/perf_event_paranoid");
  std::string s;
  if (f) f >> s;
  return s.empty() ? "unreadable" : s;
}

}  // namespace

const char* counter_status_name(CounterStatus s) {
  switch (s) {
    case CounterStatus::kOk: return "ok";
    case CounterStatus::kMultiplexed: return "multiplexed";
    case CounterStatus::kUnsupported: return "unsupported";
    case CounterStatus::kDenied: return "denied";
  }
  return "unsupported";
}

std::string counter_capabilities() {
  papi_init_once();
  std::string out = "PAPI " + std::to_string(PAPI_VERSION_MAJOR(PAPI_VERSION)) + "." +
                    std::to_string(PAPI_VERSION_MINOR(PAPI_VERSION)) + ", perf_event_paranoid " + paranoid_level() + "\n";
  const int n = PAPI_num_components();
  for (int c = 0; c < n; ++c) {
    const PAPI_component_info_t* info = PAPI_get_component_info(c);
    if (!info) continue;
    out += "  component " + std::string(info->name) + ": ";
    if (info->disabled)
      out += std::string("disabled (") + info->disabled_reason + ")\n";
    else
      out += std::to_string(info->num_cntrs) + " counters, " + std::to_string(info->num_preset_events) + " presets, " +
             std::to_string(info->num_native_events) + " native events\n";
  }
  // Listing counters is not counting: try one, the way a run would.
  CounterSet probe({"PAPI_TOT_CYC"}, 1);
  probe.start(0);
  probe.stop(0);
  const CounterReading r = probe.readings(1)[0];
  out += "  PAPI_TOT_CYC: " + std::string(counter_status_name(r.status)) + (r.reason.empty() ? "" : " (" + r.reason + ")") + "\n";
  const std::string note = probe.notice();
  probe.detach(0);
  if (!note.empty()) out += "  " + note + "\n";
  return out;
}

std::vector<std::string> sde_counter_names() {
  std::vector<std::string> v;
  for (int i = 0; i < static_cast<int>(SdeEvent::kCount); ++i)
    v.push_back(sde_event_papi_name(static_cast<SdeEvent>(i)));
  return v;
}

std::vector<std::string> papi_preset_names() {
  papi_init_once();
  papi_register_caller();
  std::vector<std::string> names;
  int code = PAPI_PRESET_MASK;
  if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK) return names;
  do {
    PAPI_event_info_t info;
    if (PAPI_get_event_info(code, &info) == PAPI_OK && info.symbol[0] != '\0') names.push_back(info.symbol);
  } while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
  return names;
}

std::string unknown_counter_reason(const std::string& name) {
  papi_init_once();
  papi_register_caller();
  const auto same = [](const std::string& a, const std::string& b) { return strcasecmp(a.c_str(), b.c_str()) == 0; };
  // "component:::event" names its component; a bare name is a preset (PAPI_*) or a native event,
  // which on Linux is perf_event's (libpfm4's names) unless an enabled component knows it.
  const std::size_t qualifier = name.find(":::");
  const std::string wanted = qualifier == std::string::npos ? "" : name.substr(0, qualifier);
  // PAPI's sde component takes any name, as a placeholder for an event some library may
  // register later, and reads it as 0. In this process only kvbench registers SDE events, so its
  // own list says which exist.
  if (wanted == "sde") {
    const std::vector<std::string> registered = sde_counter_names();
    if (std::find(registered.begin(), registered.end(), name) != registered.end()) return "";
    return "no SDE event '" + name.substr(qualifier + 3) + "' is registered (PAPI would read it as 0)";
  }
  int code = 0;
  if (PAPI_event_name_to_code(name.c_str(), &code) == PAPI_OK) return "";
  if (name.size() > 5 && same(name.substr(0, 5), "PAPI_")) {
    const std::vector<std::string> presets = papi_preset_names();
    if (std::none_of(presets.begin(), presets.end(), [&](const std::string& p) { return same(p, name); }))
      return "'" + name + "' is not a PAPI preset (papi_avail lists them)";
    return "";  // a preset with nothing here to count it: recorded as unsupported
  }
  bool found = false, disabled = false;
  for (int c = 0; c < PAPI_num_components(); ++c) {
    const PAPI_component_info_t* info = PAPI_get_component_info(c);
    if (!info) continue;
    const std::string component = info->name;
    const bool candidate = wanted.empty() ? component.rfind("perf_event", 0) == 0 : component == wanted;
    if (!candidate) continue;
    found = true;
    disabled = disabled || info->disabled;
  }
  if (disabled) return "";  // its component cannot list events here, so the name may be real
  if (!wanted.empty() && !found) return "PAPI has no component '" + wanted + "' (kvbench topo lists them)";
  if (!wanted.empty()) return "component " + wanted + " has no event '" + name.substr(qualifier + 3) + "'";
  return "no enabled PAPI component has an event '" + name + "' (papi_native_avail lists them)";
}

struct CounterSet::Impl {
  std::vector<std::string> events;
  std::vector<std::string> unknown;  // per event, why PAPI has no such event ("" if it may have)
  struct EventState {
    CounterStatus status = CounterStatus::kOk;
    std::string reason;
  };
  // One PAPI event set per component per worker (PAPI sets are single-component).
  struct ComponentSet {
    int set = PAPI_NULL;
    std::vector<int> event_index;  // which of `events` the set's counters are, in order
    bool multiplexed = false;
  };
  struct Worker {
    bool attached = false;
    std::vector<ComponentSet> sets;
    std::vector<EventState> state;
    std::vector<long long> totals;
    std::vector<long long> scratch;
    std::vector<std::vector<long long>> baseline;  // per component set, read right after start
  };
  std::vector<Worker> workers;
};

CounterSet::CounterSet(std::vector<std::string> events, int workers) : impl_(new Impl) {
  papi_init_once();
  impl_->events = std::move(events);
  // Checked once, on this thread: the workers' attach() would otherwise walk PAPI's event lists
  // concurrently.
  for (const std::string& e : impl_->events) impl_->unknown.push_back(unknown_counter_reason(e));
  impl_->workers.resize(static_cast<std::size_t>(workers));
  for (Impl::Worker& w : impl_->workers) {
    w.state.resize(impl_->events.size());
    w.totals.assign(impl_->events.size(), 0);
  }
}

CounterSet::~CounterSet() = default;

const std::vector<std::string>& CounterSet::events() const noexcept { return impl_->events; }

void CounterSet::attach(int worker) {
  Impl::Worker& w = impl_->workers.at(static_cast<std::size_t>(worker));
  if (w.attached) return;
  w.attached = true;
  PAPI_register_thread();
  std::map<int, std::size_t> by_component;
  for (std::size_t i = 0; i < impl_->events.size(); ++i) {
    Impl::EventState& st = w.state[i];
    if (!impl_->unknown[i].empty()) {
      st = {CounterStatus::kUnsupported, impl_->unknown[i]};
      continue;
    }
    int code = 0;
    int rc = PAPI_event_name_to_code(impl_->events[i].c_str(), &code);
    if (rc != PAPI_OK) {
      st = {status_for(rc), "PAPI does not know this event here: " + papi_error(rc)};
      continue;
    }
    const int cidx = PAPI_get_event_component(code);
    auto it = by_component.find(cidx);
    if (it == by_component.end()) {
      Impl::ComponentSet cs;
      if ((rc = PAPI_create_eventset(&cs.set)) != PAPI_OK ||
          (rc = PAPI_assign_eventset_component(cs.set, cidx)) != PAPI_OK) {
        st = {status_for(rc), "cannot create event set: " + papi_error(rc)};
        continue;
      }
      it = by_component.emplace(cidx, w.sets.size()).first;
      w.sets.push_back(cs);
    }
    Impl::ComponentSet& cs = w.sets[it->second];
    rc = PAPI_add_event(cs.set, code);
    if (rc == PAPI_ECNFLCT && !cs.multiplexed && PAPI_set_multiplex(cs.set) == PAPI_OK) {
      cs.multiplexed = true;  // more events than counters: let PAPI time-share and scale them
      rc = PAPI_add_event(cs.set, code);
    }
    if (rc != PAPI_OK) {
      st = {status_for(rc), "cannot add event: " + papi_error(rc)};
      continue;
    }
    cs.event_index.push_back(static_cast<int>(i));
  }
  for (Impl::ComponentSet& cs : w.sets)
    for (int i : cs.event_index)
      w.state[static_cast<std::size_t>(i)] = {cs.multiplexed ? CounterStatus::kMultiplexed : CounterStatus::kOk, ""};
  w.scratch.assign(impl_->events.size(), 0);
  w.baseline.assign(w.sets.size(), std::vector<long long>(impl_->events.size(), 0));
}

void CounterSet::start(int worker) {
  attach(worker);
  Impl::Worker& w = impl_->workers[static_cast<std::size_t>(worker)];
  for (Impl::ComponentSet& cs : w.sets) {
    if (cs.event_index.empty()) continue;
    const int rc = PAPI_start(cs.set);
    if (rc != PAPI_OK) {
      // The kernel may refuse only when counting starts (perf_event_open at start).
      for (int i : cs.event_index)
        w.state[static_cast<std::size_t>(i)] = {status_for(rc), "cannot start counting: " + papi_error(rc)};
      cs.event_index.clear();
      continue;
    }
    // Hardware counters restart at 0 but instantaneous ones (our SDEs) do not: subtract what
    // the set reads right after starting.
    const std::size_t k = static_cast<std::size_t>(&cs - w.sets.data());
    if (PAPI_read(cs.set, w.baseline[k].data()) != PAPI_OK) std::fill(w.baseline[k].begin(), w.baseline[k].end(), 0);
  }
}

void CounterSet::stop(int worker) {
  Impl::Worker& w = impl_->workers[static_cast<std::size_t>(worker)];
  for (Impl::ComponentSet& cs : w.sets) {
    if (cs.event_index.empty()) continue;
    const int rc = PAPI_stop(cs.set, w.scratch.data());
    if (rc != PAPI_OK) {
      for (int i : cs.event_index)
        w.state[static_cast<std::size_t>(i)] = {status_for(rc), "cannot read counters: " + papi_error(rc)};
      cs.event_index.clear();
      continue;
    }
    const std::vector<long long>& base = w.baseline[static_cast<std::size_t>(&cs - w.sets.data())];
    for (std::size_t k = 0; k < cs.event_index.size(); ++k)
      w.totals[static_cast<std::size_t>(cs.event_index[k])] += w.scratch[k] - base[k];
  }
}

void CounterSet::detach(int worker) {
  Impl::Worker& w = impl_->workers.at(static_cast<std::size_t>(worker));
  if (!w.attached) return;
  for (Impl::ComponentSet& cs : w.sets) {
    PAPI_cleanup_eventset(cs.set);
    PAPI_destroy_eventset(&cs.set);
  }
  w.sets.clear();
  w.attached = false;
  PAPI_unregister_thread();
}

void CounterSet::attach_all(ThreadPool& pool) {
  pool.run([this](int w) { attach(w); });
}

void CounterSet::detach_all(ThreadPool& pool) {
  pool.run([this](int w) { detach(w); });
}

void CounterSet::reset() {
  for (Impl::Worker& w : impl_->workers) w.totals.assign(impl_->events.size(), 0);
}

std::vector<CounterReading> CounterSet::readings(std::int64_t units) const {
  std::vector<CounterReading> out;
  for (std::size_t i = 0; i < impl_->events.size(); ++i) {
    CounterReading r;
    r.event = impl_->events[i];
    r.status = CounterStatus::kOk;
    double sum = 0;
    bool any = false;
    for (const Impl::Worker& w : impl_->workers) {
      if (!w.attached) continue;
      any = true;
      const Impl::EventState& st = w.state[i];
      // The worst status of any worker wins: a sum missing one worker is not a value.
      if (st.status == CounterStatus::kUnsupported || st.status == CounterStatus::kDenied) {
        r.status = st.status;
        r.reason = st.reason;
      } else if (st.status == CounterStatus::kMultiplexed && r.status == CounterStatus::kOk) {
        r.status = CounterStatus::kMultiplexed;
      }
      sum += static_cast<double>(w.totals[i]);
    }
    if (!any) {
      r.status = CounterStatus::kUnsupported;
      r.reason = "no worker attached";
    }
    if ((r.status == CounterStatus::kOk || r.status == CounterStatus::kMultiplexed) && units > 0)
      r.value = sum / static_cast<double>(units);
    out.push_back(std::move(r));
  }
  return out;
}

std::string CounterSet::notice() const {
  for (const CounterReading& r : readings(1)) {
    if (r.status == CounterStatus::kOk || r.status == CounterStatus::kMultiplexed) continue;
    return "note: counter " + r.event + " is " + counter_status_name(r.status) + " (" + r.reason +
           "); hardware counters need bare metal or a VM with a virtual PMU, and "
           "/proc/sys/kernel/perf_event_paranoid <= 2 (here: " + paranoid_level() +
           "); check with papi_avail / papi_native_avail";
  }
  return "";
}

}  // namespace kvb
