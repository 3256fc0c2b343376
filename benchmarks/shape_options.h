// The options `run` and `size` share: model preset and shape, each a comma-separated sweep
// list where that makes sense.
#pragma once
#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include "benchmarks/sweep.h"

namespace kvb {

// --config, --model, --layers, --q-heads, --kv-heads, --head-dim, --context, --max-context,
// --window, --hidden-size, --intermediate-size, --weight-bytes, --dtype, --layout.
boost::program_options::options_description shape_options();

// Sweep lists from a parsed variables_map (threads/pin/cache-state only if registered).
// Throws UsageError for malformed values.
SweepSpec sweep_spec_from(const boost::program_options::variables_map& vm);

}  // namespace kvb
