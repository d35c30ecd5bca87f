# pmi2.cmake -- the PMI-2 bootstrap (runtime/boot_pmi2.c) without Slurm:
# fake_pmi2.c builds a libpmi2.so.0 of its own, which fake_srun.sh puts on
# LD_LIBRARY_PATH for the PEs it starts as srun --mpi=pmi2 would (label
# pmi2). Included from tests/CMakeLists.txt after the pe_* targets exist.
add_library(kumi_test_fake_pmi2 SHARED ${CMAKE_CURRENT_LIST_DIR}/fake_pmi2.c)
set_target_properties(kumi_test_fake_pmi2 PROPERTIES
  OUTPUT_NAME pmi2 SOVERSION 0 LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fake-pmi2)
target_compile_definitions(kumi_test_fake_pmi2 PRIVATE _GNU_SOURCE)

# kumi_pmi2_test(NAME NPES TRANSPORT TARGET ARGS...)
function(kumi_pmi2_test NAME NPES TP TARGET)
  add_test(NAME pmi2.${NAME}
           COMMAND bash ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/fake_srun.sh
                   ${CMAKE_BINARY_DIR}/fake-pmi2 ${NPES} ${TP} $<TARGET_FILE:${TARGET}> ${ARGN})
  set_tests_properties(pmi2.${NAME} PROPERTIES LABELS pmi2 TIMEOUT 150 PROCESSORS ${NPES})
  set_property(TEST pmi2.${NAME} APPEND PROPERTY DEPENDS kumi_test_fake_pmi2)
endfunction()

foreach(tp shm tcp)
  kumi_pmi2_test(put_get.${tp}.n4 4 ${tp} pe_put_get)
  kumi_pmi2_test(barrier.${tp}.n3 3 ${tp} pe_barrier 200)
  kumi_pmi2_test(coll.${tp}.n4    4 ${tp} pe_coll 0 1 7 1000)
  kumi_pmi2_test(nodes.${tp}.n2   2 ${tp} pe_global_exit nodes one)
endforeach()
