#include "benchmarks/decode_fixture.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include "harness/deterministic_values.h"
#include "harness/error.h"
#include "harness/pin_policy.h"
#include "harness/topology.h"
#include "kernels/attention.h"
#include "harness/sde_events.h"
#include "kernels/cache_write.h"
#include "kernels/codecs.h"

namespace kvb {
namespace {

// Relative error the fp32 fast kernel may show against the double reference; real indexing
// or decoding bugs give errors of order 1.
constexpr double kAttentionTolerance = 1e-3;

// The streams of the prefill sources' values (deterministic_uniform).
constexpr std::uint64_t kPrefillKeySeed = 0x70726566696c6b00ULL, kPrefillValueSeed = 0x70726566696c7600ULL;

// Decodes element `dim` of a cache row the way the reference does.
double decode_element(const CacheView& cache, std::int32_t layer, KV kv, std::int32_t head,
                      std::int64_t pos, std::int32_t dim) {
  const CacheGeometry& g = *cache.geometry;
  const auto* base = static_cast<const unsigned char*>(cache.data) +
                     (g.shape().dtype == DType::kI4 ? 0 : g.byte_offset(layer, kv, head, pos, dim));
  const auto scale = [&] {
    return static_cast<double>(cache.scales[g.scale_index(layer, kv, head, pos)]);
  };
  switch (g.shape().dtype) {
    case DType::kF32: { float f; std::memcpy(&f, base, 4); return f; }
    case DType::kF16: { std::uint16_t h; std::memcpy(&h, base, 2); return f16_to_f32(h); }
    case DType::kBF16: { std::uint16_t b; std::memcpy(&b, base, 2); return bf16_to_f32(b); }
    case DType::kI8: return static_cast<double>(static_cast<std::int8_t>(*base)) * scale();
    case DType::kF8E4M3: return fp8_e4m3_to_f32(*base) * scale();
    case DType::kF8E5M2: return fp8_e5m2_to_f32(*base) * scale();
    case DType::kI4: {
      // Packed two per byte: address the row start and pick the nibble.
      const auto* row = static_cast<const std::uint8_t*>(cache.data) +
                        g.byte_offset(layer, kv, head, pos, 0);
      return int4_unpack(row, dim) * scale();
    }
  }
  return std::nan("");
}

// Largest encoding error the dtype allows for a value of magnitude |x| in a row of max |m|.
double encode_tolerance(DType t, double x, double row_max) {
  switch (t) {
    case DType::kF32: return 0;
    case DType::kF16: return std::fabs(x) * 0x1p-11 + 0x1p-25;
    case DType::kBF16: return std::fabs(x) * 0x1p-8;
    // int8: the encoder's x * (1/scale) may round up to 127 * 2^-23 quanta the other way
    // (kernels/codecs.h): 3e-5 of half a quantum, plus the fp32 rounding of the scale.
    case DType::kI8: return row_max / 127.0 * 0.5 * (1 + 5e-5) + 1e-30;
    case DType::kI4: return row_max / 7.0 * 0.5 * (1 + 1e-5) + 1e-30;
    // FP8 rows are scaled so max |x| maps to the format max: half an ulp (3 or 2 mantissa
    // bits) relative, or half the smallest subnormal step of the scaled format.
    case DType::kF8E4M3: return std::fabs(x) * 0x1p-4 + row_max / 448.0 * 0x1p-10 + 1e-30;
    case DType::kF8E5M2: return std::fabs(x) * 0x1p-3 + row_max / 57344.0 * 0x1p-17 + 1e-30;
  }
  return 0;
}

}  // namespace

DecodeFixture::DecodeFixture(const Topology& topo, const DecodeConfig& config,
                             const Placement& placement, std::int64_t llc_bytes,
                             const std::vector<std::string>& counter_events, int validate_layers,
                             bool inject_fault)
    : DecodeFixture(topo, config.parts().front(), config, placement, llc_bytes, counter_events,
                    validate_layers, inject_fault, nullptr) {
  const std::vector<DecodeConfig> parts = config.parts();
  if (parts.size() > 1) {
    // The child is warm: the untimed flush / weight streaming of a step is done once, here.
    // Fresh appends advance in both caches.
    DecodeConfig global = parts[1];
    if (global.cache_state != CacheState::kFresh) global.cache_state = CacheState::kWarm;
    child_ = std::unique_ptr<DecodeFixture>(new DecodeFixture(
        topo, global, global, placement, llc_bytes, {}, validate_layers, inject_fault, pool_));
    fill_seconds_ += child_->fill_seconds_;
    validation_seconds_ += child_->validation_seconds_;
  }
}

DecodeFixture::DecodeFixture(const Topology& topo, const DecodeConfig& config,
                             const DecodeConfig& full, const Placement& placement,
                             std::int64_t llc_bytes, const std::vector<std::string>& counter_events,
                             int validate_layers, bool inject_fault,
                             std::shared_ptr<ThreadPool> pool)
    : config_(config), inject_fault_(inject_fault), topo_(&topo), placement_(placement) {
  pool_ = pool ? std::move(pool)
               : std::make_shared<ThreadPool>(topo, config.threads, parse_pin_policy(config.pin));
  pu_list_ = pool_->pu_list();
  if (const Status st = CacheGeometry::create(config.cache_shape(), &geometry_); !ok(st)) {
    throw HarnessError(std::string("cannot build cache geometry: ") + status_message(st));
  }
  const std::int64_t data_bytes = (geometry_.data_bytes() + 63) / 64 * 64;
  cache_buffer_ = Buffer(topo, static_cast<std::size_t>(data_bytes + geometry_.scale_bytes()),
                         placement);
  CacheView view;
  view.geometry = &geometry_;
  view.data = cache_buffer_.data();
  view.scales = geometry_.scale_bytes() > 0
                    ? reinterpret_cast<float*>(static_cast<char*>(cache_buffer_.data()) + data_bytes)
                    : nullptr;
  decode_ = std::make_unique<ParallelDecode>(*pool_, view, config.attended());
  const auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  const auto fill_start = std::chrono::steady_clock::now();
  decode_->place_and_fill(0x6b7662656e6368ULL);
  fill_seconds_ = since(fill_start);
  if (config.cache_state == CacheState::kCold) {
    flush_buffer_ = Buffer(topo, static_cast<std::size_t>(2 * std::max<std::int64_t>(llc_bytes, 1 << 20)),
                           placement);
    std::memset(flush_buffer_.data(), 1, flush_buffer_.size());
  }
  if (config.cache_state == CacheState::kWeights) {
    weight_buffer_ = Buffer(topo, static_cast<std::size_t>(full.shape.layers *
                                                           full.weight_bytes_per_layer()),
                            placement);
    std::memset(weight_buffer_.data(), 1, weight_buffer_.size());
  }
  counters_ = std::make_unique<CounterSet>(counter_events, config.threads);
  pool_->run([&](int w) { counters_->attach(w); });
  const auto validation_start = std::chrono::steady_clock::now();
  validate(validate_layers, inject_fault);
  validation_seconds_ = since(validation_start);
  // Position 0 was last written by the fill: the first fresh slot is as cold as the rest.
  if (config.cache_state == CacheState::kFresh) decode_->advance_append_slots(0);
}

DecodeFixture::~DecodeFixture() {
  if (pool_ && counters_) pool_->run([&](int w) { counters_->detach(w); });
}

ThpBacking DecodeFixture::thp() const { return cache_buffer_.thp_backing(); }

const std::vector<unsigned>& DecodeFixture::pus() const { return pool_->bound_pus(); }

std::int64_t DecodeFixture::context() const noexcept { return decode_->context(); }

const float* DecodeFixture::query(std::int32_t layer) const { return decode_->query(layer); }

CacheView DecodeFixture::view() const {
  CacheView v;
  v.geometry = &geometry_;
  v.data = cache_buffer_.data();
  v.scales = geometry_.scale_bytes() > 0
                 ? reinterpret_cast<float*>(static_cast<char*>(cache_buffer_.data()) +
                                            (geometry_.data_bytes() + 63) / 64 * 64)
                 : nullptr;
  return v;
}

namespace {

ParallelDecode::Mode mode_of(Family f) {
  switch (f) {
    case Family::kAttention: return ParallelDecode::Mode::kAttention;
    case Family::kAppend: return ParallelDecode::Mode::kAppend;
    case Family::kAppendMemcpy: return ParallelDecode::Mode::kAppendMemcpy;
    case Family::kAppendStreaming: return ParallelDecode::Mode::kAppendStreaming;
    default: return ParallelDecode::Mode::kStep;
  }
}

}  // namespace

Cost DecodeFixture::cost(Family family) const {
  Cost cost = family == Family::kPrefillCopy
                  ? prefill_copy_cost(geometry_.shape(), decode_->context()) * geometry_.shape().layers
                  : decode_->cost(mode_of(family));
  if (child_) cost += child_->cost(family);
  return cost;
}

void DecodeFixture::run(Family family, CounterSet* counters) { run_units(family, 1, counters); }

ParallelDecode::BarrierWait DecodeFixture::barrier_wait() const {
  ParallelDecode::BarrierWait w = decode_->barrier_wait();
  if (child_) {
    const ParallelDecode::BarrierWait c = child_->barrier_wait();
    w.waiting += c.waiting;
    w.running += c.running;
    if (w.by_worker.size() < c.by_worker.size()) w.by_worker.resize(c.by_worker.size());
    for (std::size_t i = 0; i < c.by_worker.size(); ++i) {
      w.by_worker[i].waiting += c.by_worker[i].waiting;
      w.by_worker[i].running += c.by_worker[i].running;
      w.by_worker[i].held += c.by_worker[i].held;
    }
  }
  return w;
}

void DecodeFixture::run_units(Family family, std::int64_t steps, CounterSet* counters) {
  if (family == Family::kPrefillCopy) {
    for (std::int64_t i = 0; i < steps; ++i) run_prefill(counters);
  } else {
    decode_->run(mode_of(family), steps, counters);
  }
  // The child's workers are this pool's, so the same counters accumulate its share.
  if (child_) child_->run_units(family, steps, counters);
}

void DecodeFixture::run_prefill(CounterSet* counters) {
  const CacheShape& shape = geometry_.shape();
  const std::int64_t tokens = decode_->context();
  const std::size_t per_layer = static_cast<std::size_t>(shape.kv_heads) * tokens * shape.head_dim;
  const int workers = pool_->size();
  if (prefill_k_.data() == nullptr) {
    // Sources filled once, untimed: deterministic values in [-1, 1), element i of K and V the
    // same whichever worker writes it. One source per layer, as large as the cache it fills (in
    // fp32), so the copy reads from where its bytes_read say: a single layer's source reused for
    // every layer stayed in the L3 of the Emerald Rapids host (38 MB for Qwen3-0.6B fp32 at 4682
    // positions), where prefill_copy then read 2-2.8x the DRAM copy ceiling
    // (results/xeon-emr-16c-kvm/session-2026-11-26e/). Buffers like the cache's, each layer's
    // written by the worker that copies it: from a std::vector (4 KiB pages, placed by the main
    // thread) the copy paid page walks the cache and the copy ceiling do not. Time with these
    // buffers over the vectors', Qwen3-0.6B at 8192 positions, 1 thread, best of three
    // alternating rounds (Zen 5 guest): fp32 0.89, fp16 0.73, bf16 0.91, int8 0.89 (medians of
    // the rounds: int8 0.56).
    const std::size_t n = per_layer * static_cast<std::size_t>(shape.layers);
    prefill_k_ = Buffer(*topo_, n * sizeof(float), placement_);
    prefill_v_ = Buffer(*topo_, n * sizeof(float), placement_);
    auto* k = static_cast<float*>(prefill_k_.data());
    auto* v = static_cast<float*>(prefill_v_.data());
    pool_->run([&](int w) {
      for (std::int32_t layer = w; layer < shape.layers; layer += workers) {
        const std::size_t at = per_layer * static_cast<std::size_t>(layer);
        for (std::size_t i = at; i < at + per_layer; ++i) {
          k[i] = deterministic_uniform(kPrefillKeySeed, i);
          v[i] = deterministic_uniform(kPrefillValueSeed, i);
        }
      }
    });
  }
  const auto* k = static_cast<const float*>(prefill_k_.data());
  const auto* v = static_cast<const float*>(prefill_v_.data());
  const CacheView cache = view();
  std::vector<int> failures(static_cast<std::size_t>(workers), 0);
  pool_->run([&](int w) {
    if (counters) counters->start(w);
    Cost done;
    for (std::int32_t layer = w; layer < shape.layers; layer += workers) {
      const std::size_t at = per_layer * static_cast<std::size_t>(layer);
      if (!ok(prefill_copy(cache, layer, 0, tokens, k + at, v + at))) {
        failures[static_cast<std::size_t>(w)] = 1;
      }
      done += prefill_copy_cost(shape, tokens);
    }
    sde_count(done);
    if (counters) counters->stop(w);
  });
  for (int f : failures) {
    if (f) throw HarnessError("prefill_copy failed (shape or range rejected by the kernel)");
  }
}

void DecodeFixture::validate_prefill() {
  run_prefill(nullptr);
  const CacheShape& shape = geometry_.shape();
  const std::int64_t tokens = decode_->context();
  const CacheView cache = view();
  Validation v{true, 0, ""};
  for (std::int32_t layer : checked_layers_) {
    for (KV kv : {KV::kKey, KV::kValue}) {
      const auto* src = static_cast<const float*>((kv == KV::kKey ? prefill_k_ : prefill_v_).data());
      for (std::int32_t h = 0; h < shape.kv_heads && v.valid; ++h) {
        for (std::int64_t t = 0; t < tokens && v.valid; ++t) {
          const float* row =
              src + ((static_cast<std::size_t>(layer) * shape.kv_heads + h) * tokens + t) * shape.head_dim;
          double row_max = 0;
          for (std::int32_t d = 0; d < shape.head_dim; ++d) {
            row_max = std::max(row_max, std::fabs(double{row[d]}));
          }
          for (std::int32_t d = 0; d < shape.head_dim; ++d) {
            const double got = decode_element(cache, layer, kv, h, t, d);
            const double err = std::fabs(got - row[d]);
            v.max_rel_err = std::max(v.max_rel_err, row_max > 0 ? err / row_max : err);
            if (!(err <= encode_tolerance(shape.dtype, row[d], row_max))) {
              v.valid = false;
              v.detail = "prefilled row (layer " + std::to_string(layer) + ", head " +
                         std::to_string(h) + ", position " + std::to_string(t) +
                         ") does not decode to its source";
              break;
            }
          }
        }
      }
    }
  }
  prefill_validation_ = v;
}

const Validation& DecodeFixture::validation(Family family) {
  if (child_) {
    auto it = combined_.find(family);
    if (it == combined_.end()) {
      const Validation& own = family == Family::kPrefillCopy
                                  ? (prefill_validation_ ? *prefill_validation_
                                                         : (validate_prefill(), *prefill_validation_))
                              : family == Family::kAppendMemcpy
                                  ? (memcpy_validation_ ? *memcpy_validation_
                                                        : (validate_append_memcpy(), *memcpy_validation_))
                              : family == Family::kAppend
                                  ? (append_validation_ ? *append_validation_
                                                        : (validate_append(), *append_validation_))
                              : family == Family::kAppendStreaming
                                  ? (streaming_validation_ ? *streaming_validation_
                                                           : (validate_append_streaming(), *streaming_validation_))
                                  : validation_;
      const Validation& other = child_->validation(family);
      Validation v;
      v.valid = own.valid && other.valid;
      v.max_rel_err = std::max(own.max_rel_err, other.max_rel_err);
      v.detail = !own.valid ? "sliding layers: " + own.detail
                            : (!other.valid ? "global layers: " + other.detail : "");
      it = combined_.emplace(family, v).first;
    }
    return it->second;
  }
  if (family == Family::kAppendMemcpy) {
    if (!memcpy_validation_) validate_append_memcpy();
    return *memcpy_validation_;
  }
  if (family == Family::kAppend) {
    if (!append_validation_) validate_append();
    return *append_validation_;
  }
  if (family == Family::kAppendStreaming) {
    if (!streaming_validation_) validate_append_streaming();
    return *streaming_validation_;
  }
  if (family != Family::kPrefillCopy) return validation_;
  if (!prefill_validation_) validate_prefill();
  return *prefill_validation_;
}

void DecodeFixture::stream(const Buffer& buffer) {
  // Every worker reads its share one cache line at a time: the lines land in the caches and
  // push the KV cache out, as the weight GEMVs / other work of real decode do.
  const auto* data = static_cast<const std::uint64_t*>(buffer.data());
  const std::size_t words = buffer.size() / sizeof(std::uint64_t);
  const int workers = pool_->size();
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(workers) * 8, 0);
  pool_->run([&](int w) {
    const std::size_t begin = words * static_cast<std::size_t>(w) / static_cast<std::size_t>(workers);
    const std::size_t end = words * static_cast<std::size_t>(w + 1) / static_cast<std::size_t>(workers);
    std::uint64_t sum = 0;
    for (std::size_t i = begin; i < end; i += 8) sum += data[i];
    sums[static_cast<std::size_t>(w) * 8] = sum;
  });
  std::uint64_t total = 0;
  for (std::uint64_t s : sums) total += s;
  sink_ = sink_ + total;
}

void DecodeFixture::prepare_step() {
  if (config_.cache_state == CacheState::kCold) stream(flush_buffer_);
  if (config_.cache_state == CacheState::kWeights) stream(weight_buffer_);
}

void DecodeFixture::validate(int validate_layers, bool inject_fault) {
  decode_->run(ParallelDecode::Mode::kStep, 1);
  const CacheShape& shape = geometry_.shape();
  const std::int64_t context = decode_->context();
  // First, last and evenly spaced layers in between.
  std::vector<std::int32_t> layers;
  const int n = std::min<int>(validate_layers, shape.layers);
  for (int i = 0; i < n; ++i) {
    layers.push_back(n == 1 ? 0 : static_cast<std::int32_t>(
                                      static_cast<std::int64_t>(i) * (shape.layers - 1) / (n - 1)));
  }
  layers.erase(std::unique(layers.begin(), layers.end()), layers.end());
  checked_layers_ = layers;
  const CacheView view = this->view();
  const std::size_t outputs = static_cast<std::size_t>(shape.q_heads) * shape.head_dim;
  std::vector<double> reference(outputs);
  std::vector<double> workspace(static_cast<std::size_t>(context));
  validation_ = {true, 0, ""};
  for (std::int32_t layer : layers) {
    const Status st = decode_attention_reference(view, layer, context, decode_->query(layer),
                                                 1.0 / std::sqrt(static_cast<double>(shape.head_dim)),
                                                 reference.data(), workspace.data());
    if (!ok(st)) throw HarnessError(std::string("reference attention: ") + status_message(st));
    std::vector<float> fast(decode_->output(layer), decode_->output(layer) + outputs);
    double max_ref = 0, max_err = 0;
    for (std::size_t i = 0; i < outputs; ++i) max_ref = std::max(max_ref, std::fabs(reference[i]));
    if (inject_fault) fast[outputs / 2] += static_cast<float>(0.01 * max_ref);  // a 1% error
    for (std::size_t i = 0; i < outputs; ++i) {
      max_err = std::max(max_err, std::fabs(static_cast<double>(fast[i]) - reference[i]));
    }
    const double rel = max_ref > 0 ? max_err / max_ref : max_err;
    validation_.max_rel_err = std::max(validation_.max_rel_err, rel);
    if (!(rel <= kAttentionTolerance)) {
      validation_.valid = false;
      validation_.detail = "attention of layer " + std::to_string(layer) +
                           " differs from the double reference by " + std::to_string(rel);
    }
    check_appended_rows(layer, &validation_);
  }
}

void DecodeFixture::check_appended_rows(std::int32_t layer, Validation* v) const {
  // The appended token must decode back to what was appended.
  const CacheShape& shape = geometry_.shape();
  const CacheView view = this->view();
  const std::int64_t pos = decode_->append_position();
  for (std::int32_t h = 0; h < shape.kv_heads; ++h) {
    for (KV kv : {KV::kKey, KV::kValue}) {
      const float* src = (kv == KV::kKey ? decode_->new_key() : decode_->new_value()) +
                         static_cast<std::size_t>(h) * shape.head_dim;
      double row_max = 0;
      for (std::int32_t d = 0; d < shape.head_dim; ++d) row_max = std::max(row_max, std::fabs(double{src[d]}));
      for (std::int32_t d = 0; d < shape.head_dim; ++d) {
        const double got = decode_element(view, layer, kv, h, pos, d);
        if (!(std::fabs(got - src[d]) <= encode_tolerance(shape.dtype, src[d], row_max))) {
          v->valid = false;
          v->detail = "appended row (layer " + std::to_string(layer) + ", head " +
                      std::to_string(h) + ", position " + std::to_string(pos) +
                      ") does not decode to the appended values";
          return;
        }
      }
    }
  }
}

void DecodeFixture::validate_append() {
  // The decode validation, plus the append run's own rows (its kernel writes whole layers, the
  // step's writes each worker's heads) at the slot it wrote. The slot is overwritten first: the
  // decode validation's step has already written the same token there in the warm state.
  // Under --inject-fault the slot is overwritten again after the run, as by an append that
  // stored nothing, and the row check must fail it.
  const std::int64_t pos = pin_append_slot();
  overwrite_slot(pos, nullptr, nullptr);
  decode_->run(ParallelDecode::Mode::kAppend, 1);
  if (inject_fault_) overwrite_slot(pos, nullptr, nullptr);
  Validation rows{true, 0, ""};
  for (std::int32_t layer : checked_layers_) {
    if (rows.valid) check_appended_rows(layer, &rows);
  }
  append_validation_ = rows.valid ? validation_ : Validation{false, validation_.max_rel_err, rows.detail};
}

void DecodeFixture::validate_append_memcpy() {
  memcpy_validation_ = same_bytes_as_append(ParallelDecode::Mode::kAppendMemcpy, "append_memcpy");
}

void DecodeFixture::validate_append_streaming() {
  streaming_validation_ = same_bytes_as_append(ParallelDecode::Mode::kAppendStreaming, "append_streaming");
}

std::int64_t DecodeFixture::pin_append_slot() {
  decode_->run(ParallelDecode::Mode::kAppend, 1);
  const std::int64_t pos = decode_->append_position();
  if (config_.cache_state == CacheState::kFresh) decode_->advance_append_slots(pos);
  return pos;
}

void DecodeFixture::overwrite_slot(std::int64_t pos, std::vector<unsigned char>* rows, std::vector<float>* scales) {
  const CacheShape& shape = geometry_.shape();
  const CacheView view = this->view();
  const std::int64_t rb = dtype_row_bytes(shape.dtype, shape.head_dim);
  const bool scaled = dtype_has_row_scale(shape.dtype);
  auto* base = static_cast<unsigned char*>(view.data);
  for (std::int32_t layer : checked_layers_)
    for (KV kv : {KV::kKey, KV::kValue})
      for (std::int32_t h = 0; h < shape.kv_heads; ++h) {
        unsigned char* row = base + geometry_.byte_offset(layer, kv, h, pos);
        if (rows != nullptr) rows->insert(rows->end(), row, row + rb);
        std::memset(row, 0x5a, static_cast<std::size_t>(rb));
        if (scaled) {
          float& sc = view.scales[geometry_.scale_index(layer, kv, h, pos)];
          if (scales != nullptr) scales->push_back(sc);
          sc = -1.0f;
        }
      }
}

Validation DecodeFixture::same_bytes_as_append(ParallelDecode::Mode mode, const char* name) {
  // `mode` must store exactly the append's bytes: snapshot what append wrote at the checked
  // layers, overwrite it, run `mode` once at the same slot, compare; then the rows must decode
  // like an append's.
  const CacheShape& shape = geometry_.shape();
  const CacheView view = this->view();
  const std::int64_t rb = dtype_row_bytes(shape.dtype, shape.head_dim);
  const bool scaled = dtype_has_row_scale(shape.dtype);
  const auto* base = static_cast<const unsigned char*>(view.data);
  std::vector<unsigned char> rows;
  std::vector<float> scales;
  const std::int64_t pos = pin_append_slot();
  overwrite_slot(pos, &rows, &scales);
  decode_->run(mode, 1);
  if (inject_fault_ && !rows.empty()) rows[0] ^= 1;  // self-test: the comparison must fail
  Validation v{true, 0, ""};
  std::size_t r = 0;
  for (std::int32_t layer : checked_layers_)
    for (KV kv : {KV::kKey, KV::kValue})
      for (std::int32_t h = 0; h < shape.kv_heads; ++h, ++r) {
        const unsigned char* row = base + geometry_.byte_offset(layer, kv, h, pos);
        const bool same_scale =
            !scaled || view.scales[geometry_.scale_index(layer, kv, h, pos)] == scales[r];
        if (v.valid && (std::memcmp(row, &rows[r * static_cast<std::size_t>(rb)],
                                    static_cast<std::size_t>(rb)) != 0 || !same_scale)) {
          v.valid = false;
          v.detail = std::string(name) + " row (layer " + std::to_string(layer) + ", head " +
                     std::to_string(h) + ") differs from the row append writes";
        }
      }
  for (std::int32_t layer : checked_layers_) {
    if (v.valid) check_appended_rows(layer, &v);
  }
  return v;
}

const std::vector<CounterReading>& DecodeFixture::counter_readings(Family family) {
  auto it = readings_.find(family);
  if (it == readings_.end()) {
    constexpr std::int64_t kSteps = 3;
    counters_->reset();
    run_units(family, kSteps, counters_.get());
    it = readings_.emplace(family, counters_->readings(kSteps)).first;
  }
  return it->second;
}

}  // namespace kvb
