#include "harness/counters.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "harness/memory.h"
#include "harness/parallel_decode.h"
#include "harness/sde_events.h"
#include "harness/thread_pool.h"
#include "harness/topology.h"

namespace kvb {
namespace {

struct SmallCache {
  CacheShape shape;
  CacheGeometry geo;
  std::unique_ptr<Buffer> buf;
  CacheView view;
  SmallCache(const Topology& topo, std::int32_t layers, std::int32_t kv_heads, std::int64_t capacity) {
    shape.layers = layers;
    shape.q_heads = kv_heads * 2;
    shape.kv_heads = kv_heads;
    shape.head_dim = 64;
    shape.capacity = capacity;
    EXPECT_TRUE(ok(CacheGeometry::create(shape, &geo)));
    buf = std::make_unique<Buffer>(topo, static_cast<std::size_t>(geo.data_bytes()), Placement{});
    view = CacheView{&geo, buf->data(), nullptr};
  }
};

// SDE counters read through PAPI, per worker thread and summed, equal the cost model.
void check_sde_matches_cost_model(int threads) {
  auto topo = Topology::discover();
  if (topo->pu_count() < threads) GTEST_SKIP() << "needs " << threads << " PUs";
  ThreadPool pool(*topo, threads, parse_pin_policy("compact"));
  SmallCache c(*topo, 3, 4, 96);
  ParallelDecode dec(pool, c.view, 80);
  dec.place_and_fill(7);
  dec.run(ParallelDecode::Mode::kStep, 2);  // counted by nobody: the deltas must exclude it
  CounterSet cs(sde_counter_names(), threads);
  constexpr std::int64_t kSteps = 5;
  for (ParallelDecode::Mode mode :
       {ParallelDecode::Mode::kStep, ParallelDecode::Mode::kAttention, ParallelDecode::Mode::kAppend}) {
    cs.reset();
    dec.run(mode, kSteps, &cs);
    const Cost want = dec.cost(mode);
    const std::vector<CounterReading> r = cs.readings(kSteps);
    ASSERT_EQ(r.size(), 4u);
    for (const CounterReading& x : r) {
      ASSERT_EQ(x.status, CounterStatus::kOk) << x.event << ": " << x.reason;
      ASSERT_TRUE(x.value.has_value()) << x.event;
    }
    EXPECT_EQ(*r[0].value, static_cast<double>(want.bytes_read)) << r[0].event;
    EXPECT_EQ(*r[1].value, static_cast<double>(want.bytes_written)) << r[1].event;
    EXPECT_EQ(*r[2].value, mode == ParallelDecode::Mode::kAttention ? 0.0 : 1.0) << r[2].event;
    EXPECT_EQ(*r[3].value, static_cast<double>(want.flops)) << r[3].event;
  }
  // Two counted runs accumulate; the per-unit value stays the same.
  cs.reset();
  dec.run(ParallelDecode::Mode::kStep, 3, &cs);
  dec.run(ParallelDecode::Mode::kStep, 4, &cs);
  EXPECT_EQ(*cs.readings(7)[0].value, static_cast<double>(dec.cost(ParallelDecode::Mode::kStep).bytes_read));
  cs.detach_all(pool);
}

TEST(Counters, SdeEqualsCostModelOneThread) { check_sde_matches_cost_model(1); }
TEST(Counters, SdeEqualsCostModelTwoThreads) { check_sde_matches_cost_model(2); }

TEST(Counters, HardwareEventIsNeverAFakeZero) {
  auto topo = Topology::discover();
  const int threads = std::min(2, topo->pu_count());
  ThreadPool pool(*topo, threads, parse_pin_policy("compact"));
  // An SDE name kvbench does not register: PAPI's sde component would make it a placeholder
  // reading 0.
  CounterSet cs({"PAPI_TOT_CYC", "NO_SUCH_EVENT_XYZ", sde_counter_names()[0], "sde:::kvbench::KV_BYTES_RAED"},
                threads);
  pool.run([&](int w) {
    cs.start(w);
    volatile double x = 1;
    for (int i = 0; i < 1000000; ++i) x = x * 1.0000001;
    cs.stop(w);
  });
  const std::vector<CounterReading> r = cs.readings(1);
  ASSERT_EQ(r.size(), 4u);
  // Machines with counters: a real, positive cycle count. Without (this VM): a status, no value.
  if (r[0].status == CounterStatus::kOk || r[0].status == CounterStatus::kMultiplexed) {
    ASSERT_TRUE(r[0].value.has_value());
    EXPECT_GT(*r[0].value, 0.0);
    EXPECT_EQ(cs.notice().find("PAPI_TOT_CYC"), std::string::npos);
  } else {
    EXPECT_TRUE(r[0].status == CounterStatus::kUnsupported || r[0].status == CounterStatus::kDenied);
    EXPECT_FALSE(r[0].value.has_value());
    EXPECT_FALSE(r[0].reason.empty());
    EXPECT_NE(cs.notice().find("perf_event_paranoid"), std::string::npos);
  }
  EXPECT_EQ(r[1].status, CounterStatus::kUnsupported);
  EXPECT_FALSE(r[1].value.has_value());
  EXPECT_EQ(r[2].status, CounterStatus::kOk);  // one bad event does not sink the others
  EXPECT_EQ(*r[2].value, 0.0);                  // really read: nothing counted KV bytes here
  EXPECT_EQ(r[3].status, CounterStatus::kUnsupported);
  EXPECT_FALSE(r[3].value.has_value());
  EXPECT_NE(r[3].reason.find("no SDE event"), std::string::npos) << r[3].reason;
  cs.detach_all(pool);
}

TEST(Counters, CapabilitiesListComponentsAndTheCycleCounter) {
  const std::string c = counter_capabilities();
  EXPECT_NE(c.find("perf_event_paranoid"), std::string::npos) << c;
  EXPECT_NE(c.find("component sde"), std::string::npos) << c;
  EXPECT_NE(c.find("PAPI_TOT_CYC: "), std::string::npos) << c;
}

// A typo is told apart from a counter the machine lacks: only a name PAPI certainly does not have
// gets a reason (the run refuses it); presets and SDE events it has, counted here or not, get none.
TEST(Counters, UnknownNamesAreToldApartFromUncountableOnes) {
  const std::vector<std::string> presets = papi_preset_names();
  EXPECT_GT(presets.size(), 50u);
  EXPECT_NE(std::find(presets.begin(), presets.end(), "PAPI_TOT_CYC"), presets.end());
  for (const std::string known : {"PAPI_TOT_CYC", "PAPI_L3_TCM", "papi_tot_ins", "sde:::kvbench::KV_BYTES_READ"})
    EXPECT_EQ(unknown_counter_reason(known), "") << known;
  EXPECT_NE(unknown_counter_reason("PAPI_TOT_CYK").find("not a PAPI preset"), std::string::npos);
  EXPECT_NE(unknown_counter_reason("sde:::kvbench::NO_SUCH").find("no SDE event 'kvbench::NO_SUCH' is registered"), std::string::npos);
  EXPECT_NE(unknown_counter_reason("nosuch:::EVENT").find("no component 'nosuch'"), std::string::npos);
}

// The names are checked from the main thread, and each fixture's workers register with PAPI and
// unregister: PAPI_event_name_to_code once crashed there for every name but a preset.
TEST(Counters, NamesAreCheckedAfterWorkersHaveComeAndGone) {
  auto topo = Topology::discover();
  const int threads = std::min(2, topo->pu_count());
  {
    ThreadPool pool(*topo, threads, parse_pin_policy("compact"));
    CounterSet cs(sde_counter_names(), threads);
    cs.attach_all(pool);
    pool.run([&](int w) {
      cs.start(w);
      cs.stop(w);
    });
    cs.detach_all(pool);
  }
  EXPECT_NE(unknown_counter_reason("PAPI_TOT_CYK").find("not a PAPI preset"), std::string::npos);
  EXPECT_NE(unknown_counter_reason("nosuch:::EVENT").find("no component 'nosuch'"), std::string::npos);
  EXPECT_EQ(unknown_counter_reason("sde:::kvbench::FLOPS"), "");
  unknown_counter_reason("NO_SUCH_NATIVE_EVENT");  // refused or not, as the machine's perf_event allows
}

TEST(Counters, StatusNames) {
  EXPECT_STREQ(counter_status_name(CounterStatus::kOk), "ok");
  EXPECT_STREQ(counter_status_name(CounterStatus::kMultiplexed), "multiplexed");
  EXPECT_STREQ(counter_status_name(CounterStatus::kUnsupported), "unsupported");
  EXPECT_STREQ(counter_status_name(CounterStatus::kDenied), "denied");
  EXPECT_EQ(sde_counter_names().size(), 4u);
  EXPECT_EQ(sde_counter_names()[0], "sde:::kvbench::KV_BYTES_READ");
}

}  // namespace
}  // namespace kvb
