# tests/openmp/libc.cmake -- omp-libc+tasks' tests (libc wrappers, the
# heap, libatomic calls, tasks), included by openmp.cmake; each runs
# through omp_test.sh against clang-14 -fopenmp + libomp like the others.
kumi_omp_test(libc_string)
kumi_omp_test(libc_stdio)
kumi_omp_test(libc_scan)
kumi_omp_test(libc_fileio)
kumi_omp_test(libc_misc)
kumi_omp_test(libc_heap)
kumi_omp_test(libc_exit)
kumi_omp_test(atomic_ld)
kumi_omp_test(task_fib)
kumi_omp_test(task_if0)
kumi_omp_test(task_loop)
kumi_omp_test(task_many)
kumi_omp_test(task_depend)
kumi_omp_test(task_red)
kumi_omp_test(task_detach)
kumi_omp_test(task_detach_fork)   # a detached task pending across a fork (LLVM tasking/issue-50602)
kumi_omp_test(task_barrier)
kumi_omp_test(task_untied)

# every libc_wrap.def row has its kumi_omp_libc_ wrapper in libkumi-omp
add_test(NAME omp.libc_wrap_table
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/libc_wrap_table.sh
          ${PROJECT_SOURCE_DIR}/bindings/openmp/libc_wrap.def $<TARGET_FILE:kumi_omp>)
set_tests_properties(omp.libc_wrap_table PROPERTIES LABELS "openmp;openmp-full" TIMEOUT 30)
