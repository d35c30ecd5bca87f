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
