# ring.cmake -- tests of kumi_ring_* (collectives/ring.c), included by
# tests/CMakeLists.txt; tests/pe/ring.c says what each part checks.
# Rings care about odd PE counts (neighbours), and 4 PEs on this 2-core
# machine is also the oversubscribed case (KUMI_WAIT auto -> block).
kumi_pe_test(ring.pairs      ring.c NPES 1 2 4   ARGS pairs)
kumi_pe_test(ring.neighbours ring.c NPES 1 2 3 4 ARGS neighbours)
kumi_pe_test(ring.wrap       ring.c NPES 1 2 4   ARGS wrap)
kumi_pe_test(ring.fill       ring.c NPES 1 2 4   ARGS fill)
kumi_pe_test(ring.misuse     ring.c NPES 1 2 3 4 ARGS misuse)
# every part under each explicit wait policy
kumi_pe_test(ring.wait_block ring.c NPES 4 ARGS all ENV KUMI_WAIT=block)
kumi_pe_test(ring.wait_yield ring.c NPES 4 ARGS all ENV KUMI_WAIT=yield)
kumi_pe_test(ring.wait_spin  ring.c NPES 2 ARGS all ENV KUMI_WAIT=spin)
# a dead peer ends the other side's blocking call with KUMI_ERR_PEER
kumi_pe_test(ring.peer_push  ring.c NPES 2 ARGS peer_push EXPECT_RC 3
  EXPECT_REGEX "kumi\\[0\\]: kumi_ring_push: PE 1 failed \\(status 3\\)")
kumi_pe_test(ring.peer_pop   ring.c NPES 2 ARGS peer_pop EXPECT_RC 3
  EXPECT_REGEX "kumi\\[1\\]: kumi_ring_pop: PE 0 failed \\(status 3\\)")

# throughput of rings vs a two-copy pipeline; built, never run as a test:
#   build/bin/kumirun -n 2 build/bin/pe_ring_bench [MSG [COUNT [CAPACITY [REPS]]]]
add_executable(pe_ring_bench ${CMAKE_CURRENT_SOURCE_DIR}/pe/ring_bench.c)
target_compile_definitions(pe_ring_bench PRIVATE _GNU_SOURCE)
target_link_libraries(pe_ring_bench PRIVATE kumi)
