#!/bin/bash
# mkvar2.sh NAME "DEFS" targets...  -> /tmp/kb_NAME, /tmp/kv_NAME
set -e
n=$1; defs=$2; shift 2
dir=/tmp/exp_$n
mkdir -p $dir && cd $dir
cmake ${SRC:-/work/main} -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-DHWY_DISABLED_TARGETS='(HWY_SSSE3|HWY_SSE4|HWY_AVX3_DL)' $defs" > /dev/null
make -j2 "$@" > build.log 2>&1 || { tail -30 build.log; exit 1; }
[ -f benchmarks/kernel_bench ] && cp benchmarks/kernel_bench /tmp/kb_$n
[ -f kvbench ] && cp kvbench /tmp/kv_$n
echo built $n
