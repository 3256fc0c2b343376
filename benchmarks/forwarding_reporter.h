// A Google Benchmark reporter that shows runs on the console reporter and hands every run
// (repetitions and aggregates) to a sink, which writes the kvbench CSV rows.
#pragma once
#include <functional>
#include <vector>

#include <benchmark/benchmark.h>

namespace kvb {

class ForwardingReporter : public benchmark::BenchmarkReporter {
 public:
  using Sink = std::function<void(const Run&)>;
  ForwardingReporter(benchmark::BenchmarkReporter* display, Sink sink)
      : display_(display), sink_(std::move(sink)) {}

  bool ReportContext(const Context& context) override { return display_->ReportContext(context); }
  void ReportRuns(const std::vector<Run>& runs) override {
    display_->ReportRuns(runs);
    for (const Run& run : runs) sink_(run);
  }
  void Finalize() override { display_->Finalize(); }

 private:
  benchmark::BenchmarkReporter* display_;
  Sink sink_;
};

}  // namespace kvb
