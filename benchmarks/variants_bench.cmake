# variants_bench: paged vs head-major, ragged batches and work split, chunked decode, cache
# management vs memcpy, recompute vs cached decode. One thread unless a name says threads:2.
add_executable(variants_bench ${CMAKE_CURRENT_LIST_DIR}/variants_bench.cc)
target_link_libraries(variants_bench PRIVATE kvbench_kernels benchmark::benchmark Threads::Threads)
