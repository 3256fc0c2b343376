#!/bin/bash
# Session 2026-11-25 (eighth), second call: the PyTorch peer and kvbench on the same shapes
# (results/reference-run.sh's peer step) with main f206959 (attention kernels as 35c9b9a).
export LD_LIBRARY_PATH=$PWD/.carry/lib
mkdir -p $OUT/emr
lscpu > $OUT/emr/lscpu.txt 2>&1
python3 -c "import torch; print('torch', torch.__version__, 'threads', torch.get_num_threads())" | tee $OUT/emr/torch.txt
KVBENCH=.carry/bin/kvbench PYTHON=python3 ONLY="peer" STEP_TIMEOUT=280 results/reference-run.sh $OUT/emr
tail -5 $OUT/emr/commands.txt
