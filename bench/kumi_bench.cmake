# kumi-bench: OSU-style sweeps of kumi's ops against the hardware limits
# (see README.md). Included by bench/CMakeLists.txt; output in build/bin.
add_executable(kumi-bench
  kumi_bench.c
  kumi_bench_ops.c
  kumi_bench_limit.c
  kumi_bench_tcp.c
  kumi_bench_out.c)
target_link_libraries(kumi-bench PRIVATE kumi m)
