# kernel_bench: fast vs scalar decode attention, one thread, every dtype, L2/L3/DRAM working sets; floor/*: the fast kernel with its rows in L1/L2 (its own cost per position). overlap/*: a plain read stream with N FMAs per vector, from L1 and from DRAM (how much of the read rate survives that much arithmetic). The attention rows use kvbench run's default prefetch hint (--sw-prefetch auto), or the one --sw-prefetch=HINT names.
add_executable(kernel_bench ${CMAKE_CURRENT_LIST_DIR}/kernel_bench.cc)
target_link_libraries(kernel_bench PRIVATE kvbench_kernels kvbench_harness benchmark::benchmark)
