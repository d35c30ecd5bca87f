# pmix.cmake -- kumi programs started by Open MPI's mpirun, a PMIx launcher,
# with no kumirun (label pmix; tests/pmix/mpirun.sh). Each test runs an
# existing multi-PE program of the suite (the pe_* targets) on shm and on
# tcp, the failure cases of tests/fail/pe_fail.c, kumi_global_exit, and a
# killed mpirun. They skip (77) where mpirun is not installed. Included
# from tests/CMakeLists.txt after the pe_* targets exist.

set(_kumi_pmix_sh ${CMAKE_CURRENT_LIST_DIR}/mpirun.sh)

# kumi_pmix_test(NAME MODE NPES TRANSPORT TARGET ARGS...)
function(kumi_pmix_test NAME MODE NPES TP TARGET)
  add_test(NAME pmix.${NAME}
           COMMAND bash ${_kumi_pmix_sh} ${MODE} ${NPES} ${TP} $<TARGET_FILE:${TARGET}> ${ARGN})
  set_tests_properties(pmix.${NAME} PROPERTIES LABELS pmix TIMEOUT 200
                       SKIP_RETURN_CODE 77 PROCESSORS ${NPES})
endfunction()

foreach(tp shm tcp)
  kumi_pmix_test(put_get.${tp}.n4     run 4 ${tp} pe_put_get)
  kumi_pmix_test(atomics.${tp}.n3     run 3 ${tp} pe_atomics)
  kumi_pmix_test(kick_order.${tp}.n4  run 4 ${tp} pe_kick_order)
  kumi_pmix_test(barrier.${tp}.n4     run 4 ${tp} pe_barrier 200)
  kumi_pmix_test(coll.${tp}.n4        run 4 ${tp} pe_coll 0 1 7 1000)
  kumi_pmix_test(am.${tp}.n3          run 3 ${tp} pe_am)
  kumi_pmix_test(msg_match.${tp}.n3   run 3 ${tp} pe_msg_match)
  kumi_pmix_test(dsm_api.${tp}.n2     run 2 ${tp} pe_dsm_api)
  # every PE on this host's one node, as kumi_pe_node and kumi_node_count say
  kumi_pmix_test(nodes.${tp}.n4       run 4 ${tp} pe_global_exit nodes one)
  # a PE dies (killed, exit 3, SIGSEGV, no kumi_finalize): the job ends
  kumi_pmix_test(fail.${tp}.n4        fail 4 ${tp} pe_fail)
  kumi_pmix_test(global_exit.${tp}.n4 exit 4 ${tp} pe_global_exit)
endforeach()
# mpirun SIGKILLed: the PEs learn it from PMIx and exit by themselves
kumi_pmix_test(orphan.tcp.n3 orphan 3 tcp pe_loop)
kumi_pmix_test(orphan.shm.n3 orphan 3 shm pe_loop)
