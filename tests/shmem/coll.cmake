# tests/shmem/coll.cmake -- shmem-coll's tests: teams, team-based
# collectives, reductions, the deprecated active-set collectives, the C11
# generic collectives. Each runs at 1, 2, 3, 4 and 8 PEs on shm and tcp
# (kumi_shmem_test in shmem.cmake); the quick set of `make test` is the
# 2-PE runs and the active-set test at 3 PEs on shm (at 2 PEs every active
# set but the world has one PE, so only 3 runs the pSync algorithms).

# split shapes (negative and zero strides, splits of splits, 2d), invalid
# triplets, translate, config, team contexts, destroy
kumi_shmem_test(team_basic team_basic.c)
# splits until the limit: every PE fails the same call, >= 64 alive, all
# usable, destroy, as many again
kumi_shmem_test(team_limit team_limit.c)
# broadcast, collect, fcollect, alltoall(s) x every RMA type and the mem
# forms, on the world, the shared team and split teams
kumi_shmem_test(coll_types coll_types.c)
# every reduction type x op on the world and split teams, exact and the
# same bytes on every member; 1000 elements at 4 PEs
kumi_shmem_test(reduce_types reduce_types.c)
kumi_shmem_test(reduce_types_1000 reduce_types.c PES 4 QUICK "" ARGS 1000)
# active sets (world, strided, PE_start 1, one PE): barrier, sync, every
# 32/64 collective, every to_all, pSync alternation and reuse
kumi_shmem_test(active_coll active_coll.c PES 1 2 4 8)
kumi_shmem_test(active_coll active_coll.c PES 3 QUICK 3 TRANSPORTS shm)
kumi_shmem_test(active_coll active_coll.c PES 3 QUICK "" TRANSPORTS tcp)
# the C11 generic collectives and shmem_sync, -std=c11 -pedantic-errors
kumi_shmem_test(coll_c11 coll_c11.c PROPS C_STANDARD 11 C_EXTENSIONS OFF
  COPTS -pedantic-errors -Werror)
# team contexts made and destroyed by 8 threads per PE at once
kumi_shmem_test(team_ctx_threads team_ctx_threads.c PES 1 2 4 QUICK "")
# bad arguments: one line naming the shmem call each, no crash or hang,
# every PE alike; the collectives work afterwards
kumi_shmem_test(coll_bad_args coll_bad_args.c PES 1 2 3 4
  EXPECT_RC 0 EXPECT_REGEX "kumi\\[[0-9]+\\]: shmem_int_broadcast: team is SHMEM_TEAM_INVALID")
# PEs that share cores (pinned to one core: oversubscribed) do not time
# barrier algorithms when a team is made (shmem_init included): no minute
# of start-up on a loaded machine; teams still work (the word barrier on
# shm, where rank 0's line is mapped)
kumi_shmem_test(team_oversub team_oversub.c PES 4 QUICK "" TRANSPORTS shm)
add_test(NAME shmem.team_oversub.pinned.n4
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/pe/expect.sh 0
          "team of 4: barrier (word|tree) \\(oversubscribed: not timed\\)"
          taskset -c 0 ${KUMIRUN} -n 4 --timeout 20 $<TARGET_FILE:shmem_team_oversub>)
set_tests_properties(shmem.team_oversub.pinned.n4 PROPERTIES LABELS shmem
  TIMEOUT 50 PROCESSORS 1 ENVIRONMENT KUMI_LOG=info)
