# tests/ucx.cmake -- the ucx transport (label ucx). Every pe test that runs
# over tcp also runs over ucx (kumi_pe_test: pe.NAME.ucx.nN,
# UCX_TLS=tcp,self; 2 PEs, 3 for the basic ones), the failure tests (msg_fail, dsm_fail: a PE killed)
# included. These add runs over UCX's shared-memory transports
# (pe.NAME.ucxsm.nN, UCX_TLS=sm,self: posix, sysv and cma in this VM),
# which reach a peer only without UCX's peer-failure handling (README).
# Without UCX in the build, one test says so and is skipped.
if(NOT UCX_FOUND)
  add_test(NAME ucx.not_built COMMAND sh -c
    "echo 'ucx: libucx-dev not found at configure time: the ucx transport is not built; skipped'; exit 77")
  set_tests_properties(ucx.not_built PROPERTIES LABELS ucx SKIP_RETURN_CODE 77)
  return()
endif()

# kumi_ucx_sm_test(NAME PROGRAM NPES n... [ARGS a...])
function(kumi_ucx_sm_test NAME PROG)
  cmake_parse_arguments(U "" "" "NPES;ARGS" ${ARGN})
  math(EXPR ctest_timeout "${KUMI_PE_TIMEOUT} + 30")
  foreach(n IN LISTS U_NPES)
    set(test pe.${NAME}.ucxsm.n${n})
    add_test(NAME ${test} COMMAND ${KUMIRUN} -n ${n} --transport ucx --timeout ${KUMI_PE_TIMEOUT}
             $<TARGET_FILE:${PROG}> ${U_ARGS})
    set_tests_properties(${test} PROPERTIES LABELS "pe;ucx;ucx-sm" TIMEOUT ${ctest_timeout}
      PROCESSORS ${n} ENVIRONMENT "UCX_TLS=sm,self;${KUMI_UCX_SAN_ENV}")
  endforeach()
endfunction()
kumi_ucx_sm_test(put_get    pe_put_get    NPES 2 3)
kumi_ucx_sm_test(atomics    pe_atomics    NPES 2 3)
kumi_ucx_sm_test(kick_order pe_kick_order NPES 2 ARGS 2000)
kumi_ucx_sm_test(am         pe_am         NPES 2 3)
kumi_ucx_sm_test(barrier    pe_barrier    NPES 2 3)
kumi_ucx_sm_test(ring       pe_ring       NPES 3 ARGS neighbours)

# the plugin: a program over shm loads no UCX, one over ucx loads
# lib/kumi/libkumi-ucx.so, an empty KUMI_PLUGIN_DIR is a clear error, a
# copied libkumi finds the plugin beside it (ucx/plugin.sh)
add_test(NAME ucx.plugin COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ucx/plugin.sh
         ${CMAKE_BINARY_DIR}/bin ${CMAKE_BINARY_DIR}/lib)
set_tests_properties(ucx.plugin PROPERTIES LABELS "ucx" TIMEOUT 700 PROCESSORS 2
  ENVIRONMENT "${KUMI_UCX_SAN_ENV}")

# kumirun checks that the plugin loads before it starts a PE
# (ucx/precheck.sh)
add_test(NAME ucx.precheck COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ucx/precheck.sh
         ${CMAKE_BINARY_DIR}/bin ${CMAKE_BINARY_DIR}/lib)
set_tests_properties(ucx.precheck PROPERTIES LABELS "ucx" TIMEOUT 120
  ENVIRONMENT "${KUMI_UCX_SAN_ENV}")

# over UCX's tcp a put+quiet is one message and its answer: the put
# carries quiet's probe (ucx/put_probe.sh counts the sends under strace)
add_test(NAME ucx.put_probe COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ucx/put_probe.sh
         ${CMAKE_BINARY_DIR}/bin)
set_tests_properties(ucx.put_probe PROPERTIES LABELS "ucx" TIMEOUT 240 PROCESSORS 2
  SKIP_RETURN_CODE 77 ENVIRONMENT "${KUMI_UCX_SAN_ENV}")
# the same counts for a put ping-pong (one message each way) and the a2a,
# dissem and tree barriers (one message a PE a barrier at 2 PEs): ucx-full
add_test(NAME ucx.msg_count COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ucx/put_probe.sh
         ${CMAKE_BINARY_DIR}/bin more)
set_tests_properties(ucx.msg_count PROPERTIES LABELS "ucx" TIMEOUT 240 PROCESSORS 2
  SKIP_RETURN_CODE 77 ENVIRONMENT "${KUMI_UCX_SAN_ENV}")

# a 1 MiB put over UCX's tcp goes in 64 KiB fragments (the plugin's
# TX_SEG_SIZE), 8 KiB ones only when the user asks (ucx/seg.sh counts the
# sends under strace of ucx/big_put.c, which checks the data)
add_executable(ucx_big_put ${CMAKE_CURRENT_SOURCE_DIR}/ucx/big_put.c)
target_link_libraries(ucx_big_put PRIVATE kumi)
add_test(NAME ucx.seg COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ucx/seg.sh ${CMAKE_BINARY_DIR}/bin)
set_tests_properties(ucx.seg PROPERTIES LABELS "ucx" TIMEOUT 240 PROCESSORS 2
  SKIP_RETURN_CODE 77 ENVIRONMENT "${KUMI_UCX_SAN_ENV}")

# a caller spinning in a wait: its progress thread's naps grow to 400 us,
# so it wakes at most 5 times a millisecond (ucx/nap_count.c counts them)
add_executable(ucx_nap_count ${CMAKE_CURRENT_SOURCE_DIR}/ucx/nap_count.c)
target_link_libraries(ucx_nap_count PRIVATE kumi)
add_test(NAME ucx.nap_count COMMAND ${KUMIRUN} -n 2 --transport ucx --timeout ${KUMI_PE_TIMEOUT}
         $<TARGET_FILE:ucx_nap_count>)
set_tests_properties(ucx.nap_count PROPERTIES LABELS "pe;ucx" TIMEOUT 120 PROCESSORS 2
  ENVIRONMENT "UCX_TLS=tcp,self;KUMI_WAIT=spin;${KUMI_UCX_SAN_ENV}")

# a PE that computes is served by its progress thread while it computes,
# not only at its polls (ucx/compute_get.c: counts of gets and polls)
add_executable(ucx_compute_get ${CMAKE_CURRENT_SOURCE_DIR}/ucx/compute_get.c)
target_link_libraries(ucx_compute_get PRIVATE kumi)
add_test(NAME ucx.compute_get COMMAND ${KUMIRUN} -n 2 --transport ucx --timeout ${KUMI_PE_TIMEOUT}
         $<TARGET_FILE:ucx_compute_get>)
set_tests_properties(ucx.compute_get PROPERTIES LABELS "pe;ucx" TIMEOUT 120 PROCESSORS 2
  ENVIRONMENT "UCX_TLS=tcp,self;${KUMI_UCX_SAN_ENV}")

# a PE whose plugin gets no eventfd for the progress thread fails its
# start-up with a line naming eventfd and the errno (ucx/no_eventfd.sh:
# ucx/no_eventfd.c preloaded makes the plugin's eventfd fail)
add_library(ucx_no_eventfd MODULE ${CMAKE_CURRENT_SOURCE_DIR}/ucx/no_eventfd.c)
target_link_libraries(ucx_no_eventfd PRIVATE ${CMAKE_DL_LIBS})
add_test(NAME ucx.no_eventfd COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ucx/no_eventfd.sh
         ${CMAKE_BINARY_DIR}/bin $<TARGET_FILE:ucx_no_eventfd> $<TARGET_FILE:pe_put_get>)
set_tests_properties(ucx.no_eventfd PROPERTIES LABELS "ucx" TIMEOUT 180 PROCESSORS 2
  SKIP_RETURN_CODE 77 ENVIRONMENT "${KUMI_UCX_SAN_ENV}")
