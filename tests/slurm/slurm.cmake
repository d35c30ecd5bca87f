# slurm.cmake -- kumi programs under a real Slurm on this machine (label
# slurm): tests/slurm/slurm.sh starts munged, slurmctld and slurmd of its
# own for each test and runs the program with srun --mpi=pmi2 (Slurm's
# libpmi2, loaded at run time) or --mpi=pmix. Skipped (77) without Slurm
# and munge (Debian: slurm-wlm, munge, libpmi2-0) or root. Serial: each
# test runs its own daemons.
function(kumi_slurm_test NAME MPI NPES TP TARGET)
  add_test(NAME slurm.${NAME}
           COMMAND bash ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/slurm.sh ${MPI} ${NPES} ${TP}
                   $<TARGET_FILE:${TARGET}> ${ARGN})
  set_tests_properties(slurm.${NAME} PROPERTIES LABELS slurm TIMEOUT 200
                       SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endfunction()

foreach(mpi pmi2 pmix)
  foreach(tp shm tcp)
    kumi_slurm_test(${mpi}.put_get.${tp}.n4 ${mpi} 4 ${tp} pe_put_get)
    kumi_slurm_test(${mpi}.coll.${tp}.n3    ${mpi} 3 ${tp} pe_coll 0 1 7 1000)
  endforeach()
endforeach()
kumi_slurm_test(pmi2.nodes.shm.n2 pmi2 2 shm pe_global_exit nodes one)

# two nodes on this machine (slurm.sh --nodes 2: network, UTS and mount
# namespaces): kumi sees two hosts and runs tcp between them. Two in the
# default suite, the rest in slurm-full (make test-slurm runs every slurm
# test).
function(kumi_slurm_test2 NAME MPI NPES TP TARGET)
  cmake_parse_arguments(A "FULL" "" "ARGS" ${ARGN})
  add_test(NAME slurm.${NAME}
           COMMAND bash ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/slurm.sh --nodes 2 ${MPI} ${NPES} ${TP}
                   $<TARGET_FILE:${TARGET}> ${A_ARGS})
  set(labels slurm)
  if(A_FULL)
    set(labels "slurm;slurm-full")
  endif()
  set_tests_properties(slurm.${NAME} PROPERTIES LABELS "${labels}" TIMEOUT 200
                       SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
endfunction()
kumi_slurm_test2(pmi2.nodes2.tcp.n4 pmi2 4 tcp pe_global_exit ARGS nodes 0,0,1,1)
kumi_slurm_test2(pmix.coll.nodes2.tcp.n4 pmix 4 tcp pe_coll ARGS 0 1 7 1000)
kumi_slurm_test2(pmix.nodes2.tcp.n4 pmix 4 tcp pe_global_exit FULL ARGS nodes 0,0,1,1)
kumi_slurm_test2(pmi2.coll.nodes2.tcp.n4 pmi2 4 tcp pe_coll FULL ARGS 0 1 7 1000)
kumi_slurm_test2(pmi2.put_get.nodes2.tcp.n4 pmi2 4 tcp pe_put_get FULL)
