# pmpi.cmake -- the profiling interface (PMPI_ names, MPI-3.1 14.2).
# pmpi_names.sh: every MPI_ function mpi.h declares has its PMPI_ twin
# (same signature) and libkumi-mpi, shared and static, defines PMPI_X with
# MPI_X as a weak alias. pmpi_wrap.c: a program that defines MPI_Init,
# MPI_Send, MPI_Comm_dup and MPI_Finalize over PMPI_ sees its wrappers
# called (and not by the library's own calls), linked with the shared
# library (kumi_mpi_test) and with the static one (mpi_pmpi_wrap_static).
add_test(NAME mpi.pmpi_names
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mpi/pmpi_names.sh ${CMAKE_C_COMPILER}
          ${PROJECT_SOURCE_DIR}/bindings/mpi $<TARGET_FILE:kumi_mpi>
          $<TARGET_FILE:kumi_mpi_static>)
set_tests_properties(mpi.pmpi_names PROPERTIES LABELS mpi TIMEOUT 120)
kumi_mpi_test(pmpi_wrap pmpi_wrap.c PES 1 2 3 4 QUICK 2 3)
add_executable(mpi_pmpi_wrap_static ${CMAKE_CURRENT_SOURCE_DIR}/mpi/pmpi_wrap.c)
target_link_libraries(mpi_pmpi_wrap_static PRIVATE kumi_mpi_static)
foreach(tp shm tcp)
  add_test(NAME mpi.pmpi_wrap_static.${tp}.n2
    COMMAND ${KUMIRUN} -n 2 --transport ${tp} --timeout 60 $<TARGET_FILE:mpi_pmpi_wrap_static>)
  set_tests_properties(mpi.pmpi_wrap_static.${tp}.n2 PROPERTIES LABELS mpi TIMEOUT 90
    PROCESSORS 2 PASS_REGULAR_EXPRESSION "size 2: MPI_Init 2, MPI_Send 10, MPI_Comm_dup 2")
endforeach()
