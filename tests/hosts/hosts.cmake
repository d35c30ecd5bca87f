# hosts.cmake -- the rendezvous (runtime/rdv.c, launcher/rdv_server.c) and multi-host
# launches: two "hosts" in network namespaces on this machine (label hosts,
# hosts.sh; skipped unless root with ip netns). Included from
# tests/CMakeLists.txt, after kumi_unit_test and the pe_* targets.

kumi_unit_test(rdv)                # join, table, rejects, silence, FAIL, BYE
target_link_libraries(unit_rdv PRIVATE kumi_rdv_server)   # launcher/rdv_server.c

add_executable(pe_loop ${CMAKE_CURRENT_LIST_DIR}/pe_loop.c)
target_link_libraries(pe_loop PRIVATE kumi)

set(_kumi_hosts_sh ${CMAKE_CURRENT_LIST_DIR}/hosts.sh)
# kumi_hosts_test(NAME CASE PROGRAM-TARGET ARGS...)
function(kumi_hosts_test NAME CASE TARGET)
  add_test(NAME hosts.${NAME}
           COMMAND bash ${_kumi_hosts_sh} ${KUMIRUN} ${CASE} $<TARGET_FILE:${TARGET}> ${ARGN})
  set_tests_properties(hosts.${NAME} PROPERTIES LABELS hosts TIMEOUT 150
                       SKIP_RETURN_CODE 77 PROCESSORS 2)
endfunction()

kumi_hosts_test(barrier  run    pe_barrier 500)
kumi_hosts_test(coll     run    pe_coll 0 1 7 1000)
kumi_hosts_test(put_get  run    pe_put_get)
kumi_hosts_test(atomics  run    pe_atomics)
kumi_hosts_test(ring     run    pe_ring neighbours)
kumi_hosts_test(kill     kill   pe_loop)
kumi_hosts_test(vanish   vanish pe_loop)
# kumi_global_exit from the second host; the node map of --hosts
kumi_hosts_test(global_exit exit pe_global_exit)
kumi_hosts_test(nodes    run    pe_global_exit nodes 0,0,1,1)
# (its one barrier need not time every algorithm first)
set_tests_properties(hosts.nodes PROPERTIES ENVIRONMENT "KUMI_BARRIER=tree;KUMI_WAIT=block")

# the rendezvous of a running job turns away a wrong key and garbage
add_test(NAME launcher.rdv_key
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/rdv_key.sh ${KUMIRUN} $<TARGET_FILE:pe_loop>)
set_tests_properties(launcher.rdv_key PROPERTIES LABELS "launcher;hosts" TIMEOUT 60)
