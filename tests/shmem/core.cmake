# tests/shmem/core.cmake -- shmem-core's tests: setup and query, memory,
# RMA, signals, contexts, the header in every language mode, the wrappers.
# Each runs at 1, 2, 3, 4 and 8 PEs on shm and tcp (kumi_shmem_test in
# shmem.cmake); the 2-PE runs are the quick set of `make test`.

# every RMA family over every type, heap, static and global targets
kumi_shmem_test(rma_types   rma_types.c)
# sized and mem forms, strides (negative too), large and odd sizes
kumi_shmem_test(rma_sized   rma_sized.c)
# put_signal for every type, sized and mem; SET and ADD; wait_until; static words
kumi_shmem_test(rma_signal  rma_signal.c)
# contexts: options, get_team, per-context fence/quiet, many contexts
kumi_shmem_test(ctx_basic   ctx_basic.c)
# contexts on a team: PE numbers are team ranks; outside the team: refused
kumi_shmem_test(ctx_team    ctx_team.c PES 1 2 3 4 8 QUICK 4 TRANSPORTS shm tcp
  EXPECT_RC 0 EXPECT_REGEX "(kumi\\[[0-9]+\\]: shmem_ctx_long_p: pe [0-9]+ out of range \\(the context's team: size|ctx_team: 1 PE, skipped)")
# malloc, calloc, align, realloc (contents kept), free, hints, deprecated names
kumi_shmem_test(memory_heap memory_heap.c)
# init/finalize, queries, shmem_ptr (heap and static: a pointer on shm, NULL
# on tcp), info calls, init_thread levels
kumi_shmem_test(setup_query setup_query.c)
kumi_shmem_test(setup_thread setup_thread.c QUICK "" PES 2 4)

# bad arguments: a PE out of range, a non-symmetric address, NULL, a bad
# context: one line each naming the shmem call, no crash, status 0
kumi_shmem_test(core_bad_args core_bad_args.c PES 1 2 3
  EXPECT_RC 0 EXPECT_REGEX "kumi\\[[0-9]+\\]: shmem_long_put: pe [0-9]+ out of range")
# calls before shmem_init and after shmem_finalize: a message, no crash
kumi_shmem_test(core_state core_state.c PES 1 2 QUICK 1
  EXPECT_RC 0 EXPECT_REGEX "kumi: shmem_putmem: called before shmem_init")
# start_pes without shmem_finalize: the job ends with status 0
kumi_shmem_test(setup_start_pes setup_start_pes.c PES 1 2 4 QUICK 2)
# SHMEM_VERSION and SHMEM_INFO print on PE 0; a bad SHMEM_SYMMETRIC_SIZE fails
kumi_shmem_test(setup_env_info setup_env.c PES 2 ENV SHMEM_INFO=1 SHMEM_VERSION=1
  SHMEM_SYMMETRIC_SIZE=64M EXPECT_RC 0
  EXPECT_REGEX "SHMEM_SYMMETRIC_SIZE +SIZE +value '64M', default 1g")
kumi_shmem_test(setup_env_version setup_env.c PES 2 QUICK "" TRANSPORTS shm
  ENV SHMEM_VERSION=1 EXPECT_RC 0 EXPECT_REGEX "^SHMEM_VERSION: kumi [0-9.]+ \\(OpenSHMEM 1.5\\)$")
kumi_shmem_test(setup_env_size setup_env.c PES 1 QUICK "" TRANSPORTS shm ARGS 1610612736
  ENV SHMEM_SYMMETRIC_SIZE=1.5G)
kumi_shmem_test(setup_env_bad setup_env.c PES 1 QUICK "" TRANSPORTS shm
  ENV SHMEM_SYMMETRIC_SIZE=lots EXPECT_RC 1
  EXPECT_REGEX "kumi: shmem_init: SHMEM_SYMMETRIC_SIZE='lots': not a size")

# the C11 generic interfaces, compiled with -std=c11 -pedantic-errors
kumi_shmem_test(core_generic core_generic.c PROPS C_STANDARD 11 C_EXTENSIONS OFF
  COPTS -pedantic-errors -Werror)
# shmem.h as C99 and C++ (run under oshrun: wrapper.cmake)
kumi_shmem_test(core_c99 core_c99.c PES 1 2 QUICK "" PROPS C_STANDARD 99 C_EXTENSIONS OFF
  COPTS -pedantic-errors -Werror)
