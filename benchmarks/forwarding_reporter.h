// A Google Benchmark reporter that shows runs on the console reporter and hands every run
// (repetitions and aggregates) to a sink, which writes the kvbench CSV rows. Counters the sink
// needs but a reader of the console does not (one per worker) can be kept off the console.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

namespace kvb {

class ForwardingReporter : public benchmark::BenchmarkReporter {
 public:
  using Sink = std::function<void(const Run&)>;
  using CounterFilter = std::function<bool(const std::string&)>;  // true: not shown
  ForwardingReporter(benchmark::BenchmarkReporter* display, Sink sink, CounterFilter hidden = {})
      : display_(display), sink_(std::move(sink)), hidden_(std::move(hidden)) {}

  bool ReportContext(const Context& context) override { return display_->ReportContext(context); }
  void ReportRuns(const std::vector<Run>& runs) override {
    if (hidden_) {
      std::vector<Run> shown = runs;
      for (Run& run : shown) {
        for (auto it = run.counters.begin(); it != run.counters.end();) {
          it = hidden_(it->first) ? run.counters.erase(it) : std::next(it);
        }
      }
      display_->ReportRuns(shown);
    } else {
      display_->ReportRuns(runs);
    }
    for (const Run& run : runs) sink_(run);
  }
  void Finalize() override { display_->Finalize(); }

 private:
  benchmark::BenchmarkReporter* display_;
  Sink sink_;
  CounterFilter hidden_;
};

}  // namespace kvb
