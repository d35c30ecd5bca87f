# tests/shmem/amo.cmake -- shmem-amo's tests: atomics, point-to-point
# synchronization, locks (kumi_shmem_test in shmem.cmake). The 2-PE runs on
# shm and tcp are the quick set of `make test`; 1, 3, 4 and 8 PEs are
# labelled shmem-full.

# every atomic of every type of the three AMO tables, from every PE, on one
# target and on every PE's, heap, static and global targets, plain calls
# and ctx calls (default and created context), exact values
kumi_shmem_test(amo_types amo_types.c PES 1 2 3 4 8)
# the C11 generic atomics and waits on every type of every table (result
# types checked at compile time), with and without a context
kumi_shmem_test(amo_generic amo_generic.c PES 1 2 3
  PROPS C_STANDARD 11 C_EXTENSIONS OFF COPTS -pedantic-errors -Werror)
# every function the section declares is defined (the link fails if not)
kumi_shmem_test(amo_symbols amo_symbols.c PES 1 QUICK 1 TRANSPORTS shm
  PROPS C_STANDARD 11 C_EXTENSIONS OFF COPTS -pedantic-errors -Werror)
# a type the generic atomics do not take is a compile error naming
# kumi_shmem_generic_bad_type
add_test(NAME shmem.amo_generic_bad
  COMMAND ${CMAKE_C_COMPILER} -std=c11 -pedantic-errors -fsyntax-only
          -I${PROJECT_SOURCE_DIR}/bindings/shmem
          ${CMAKE_CURRENT_SOURCE_DIR}/shmem/amo_generic_bad.c)
set_tests_properties(shmem.amo_generic_bad PROPERTIES LABELS shmem TIMEOUT 60
  PASS_REGULAR_EXPRESSION
  "error: too many arguments to function.*kumi_shmem_generic_bad_type")
# bad arguments to atomics, waits, tests, locks: one line naming the call,
# no crash, no hang (each message checked in the program)
kumi_shmem_test(amo_bad_args amo_bad_args.c PES 1 2 3 EXPECT_RC 0
  EXPECT_REGEX "kumi\\[[0-9]+\\]: shmem_long_atomic_fetch_add: pe [0-9]+ out of range")

# wait_until, test and all their forms on every sync type and comparison,
# signed negative values, status arrays, empty sets, deprecated forms
kumi_shmem_test(sync_types sync_types.c PES 1 2 3 4 8)
# the same when waits yield and sleep (oversubscribed jobs wait this way)
kumi_shmem_test(sync_types_block sync_types.c PES 2 4 QUICK "" ENV KUMI_WAIT=block)
kumi_shmem_test(sync_types_yield sync_types.c PES 2 3 QUICK "" TRANSPORTS shm
  ENV KUMI_WAIT=yield)

# locks under contention: exact counters, heap/static/global locks,
# set_lock and test_lock mixed, several locks
kumi_shmem_test(lock_contention lock_contention.c PES 1 2 3 4 8 ARGS 200)
# SHMEM_THREAD_MULTIPLE: 4 threads per PE lock, wait and fetch_inc at once
kumi_shmem_test(lock_threads lock_threads.c PES 1 2 4 ARGS 50)
target_link_libraries(shmem_lock_threads PRIVATE pthread)
# SHMEM_THREAD_MULTIPLE: threads spinning on a held lock with test_lock
# nap instead of burning the cores the holder needs
kumi_shmem_test(lock_test_spin lock_test_spin.c PES 1 2 4)
target_link_libraries(shmem_lock_test_spin PRIVATE pthread)
