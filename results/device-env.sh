# Sourced by the device-call scripts (device-loop.sh, device-ab.sh): from the repository root,
# unpacks the carried pack (.carry/pack.tar.xz) to /tmp/pk and points the shared libraries and
# the model presets there. The committed results are over the device tool's 64 MiB: run
# results/device-slim.sh hide before a call and restore after it.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mkdir -p /tmp/pk && tar xJf .carry/pack.tar.xz -C /tmp/pk
export LD_LIBRARY_PATH=/tmp/pk/lib KVBENCH_MODELS_DIR=$PWD/configs/models
