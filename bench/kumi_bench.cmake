# kumi-bench: OSU-style sweeps of kumi's ops against the hardware limits
# (see README.md). Included by bench/CMakeLists.txt; output in build/bin.
add_executable(kumi-bench
  kumi_bench.c
  kumi_bench_ops.c
  kumi_bench_util.c
  kumi_bench_send.c
  kumi_bench_limit.c
  kumi_bench_tcp.c
  kumi_bench_out.c
  kumi_bench_dsm.c
  kumi_bench_kernels.c)
target_link_libraries(kumi-bench PRIVATE kumi m)
# installed next to kumirun: kumi-compare and kumi-kernels run it from there
set_target_properties(kumi-bench PROPERTIES INSTALL_RPATH "$ORIGIN/${_kumi_rel_lib}")
install(TARGETS kumi-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# the DSM kernels of bench/dsm (the kernels op), their tests, kumi-kernels
include(${CMAKE_CURRENT_SOURCE_DIR}/dsm/kernels.cmake)
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/dsm/kumi-kernels ${CMAKE_BINARY_DIR}/bin/kumi-kernels
  COPYONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                            WORLD_READ WORLD_EXECUTE)
install(PROGRAMS ${CMAKE_BINARY_DIR}/bin/kumi-kernels DESTINATION ${CMAKE_INSTALL_BINDIR})

# Smoke tests of the dsm-* ops (`ctest -L dsm`, `ctest -L bench`): each op
# once on shm with 2 repetitions (block ops) or 2 ops per PE (false, lock),
# at 3 PEs (4 for write: k = 0, 1, 2, 3; false and lock: 4 contenders), and
# write at 2 PEs, which fit the cores, for the kumi_dsm_poll servers. They
# check results (a wrong value, a hang or a protocol violation fails), not
# speed. bench/ is read before the top level's include(CTest), so
# BUILD_TESTING may not be defined yet on a first configure, and testing
# must be enabled here for this directory's tests to reach ctest.
if(NOT DEFINED BUILD_TESTING OR BUILD_TESTING)
  enable_testing()
  foreach(spec read2:3 read3:3 write:4 write:2 upgrade:3 false:4 lock:4)
    string(REPLACE ":" ";" spec "${spec}")
    list(GET spec 0 op)
    list(GET spec 1 np)
    add_test(NAME bench.dsm-${op}.n${np}
             COMMAND $<TARGET_FILE:kumirun> -n ${np} --timeout 120
                     $<TARGET_FILE:kumi-bench> dsm-${op} --iters 2 --warmup 1)
    set_tests_properties(bench.dsm-${op}.n${np} PROPERTIES LABELS "bench;dsm" TIMEOUT 150
                         FAIL_REGULAR_EXPRESSION "protocol violation|wrong result")
  endforeach()

  # kumi-bench's own rows (limits, paired latency rows, JSON keys) on both
  # transports: tests/bench/rows.py
  foreach(tp shm tcp)
    add_test(NAME bench.rows.${tp}
             COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/../tests/bench/rows.py
                     $<TARGET_FILE:kumirun> $<TARGET_FILE:kumi-bench> ${tp})
    set_tests_properties(bench.rows.${tp} PROPERTIES LABELS "bench" TIMEOUT 200)
    # the tour (`make demo`'s job) at 2 and 4 PEs: every op checks its
    # result once; 600 iterations make two paired blocks per latency row
    foreach(np 2 4)
      add_test(NAME bench.all.${tp}.n${np}
               COMMAND $<TARGET_FILE:kumirun> -n ${np} --transport ${tp} --timeout 120
                       $<TARGET_FILE:kumi-bench> all --iters 600)
      set_tests_properties(bench.all.${tp}.n${np} PROPERTIES LABELS "bench" TIMEOUT 150
                           FAIL_REGULAR_EXPRESSION "wrong|failed|not available")
    endforeach()
  endforeach()
  # the two-sided ops (kumi_bench_send.c) on both transports: every op
  # checks its messages once (send-any: each source exactly once, from
  # KUMI_ANY_SOURCE, at 3 PEs), then a short timed loop; eager and
  # rendezvous sizes
  foreach(tp shm tcp)
    foreach(spec send-lat:2:8 send-bw:2:8 send-bw:2:1m send-bibw:2:4k send-bibw:2:64k
                 send-rate:2:8 send-any:2:8 send-any:3:16k)
      string(REPLACE ":" ";" spec "${spec}")
      list(GET spec 0 op)
      list(GET spec 1 np)
      list(GET spec 2 sz)
      add_test(NAME bench.${op}.${tp}.n${np}.${sz}
               COMMAND $<TARGET_FILE:kumirun> -n ${np} --transport ${tp} --timeout 120
                       $<TARGET_FILE:kumi-bench> ${op} --bytes ${sz} --iters 200)
      set_tests_properties(bench.${op}.${tp}.n${np}.${sz} PROPERTIES LABELS "bench;msg"
                           TIMEOUT 150 FAIL_REGULAR_EXPRESSION "wrong|failed|not available")
    endforeach()
  endforeach()
  # kumi-compare --rounds with kumi alone (tests never need the peers)
  add_test(NAME bench.compare.rounds
           COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/../tests/bench/compare.py
                   ${CMAKE_BINARY_DIR}/bin/kumi-compare)
  set_tests_properties(bench.compare.rounds PROPERTIES LABELS "bench" TIMEOUT 300)
endif()
