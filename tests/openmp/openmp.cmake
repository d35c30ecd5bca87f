# tests/openmp -- OpenMP programs on kumi, included from
# bindings/openmp/CMakeLists.txt (so only with the translator; without it
# dsm/translate registers omp.skipped).
#
# Each tests/openmp/<name>.c is built twice by omp_test.sh (test
# omp.<name>.build, a fixture of the runs): clang-14 -fopenmp with libomp
# (the reference) and kumicc -fopenmp; each run compares the two at N
# threads / N PEs: same stdout, same exit status.
#   omp.<name>.shm.n<N>, omp.<name>.tcp.n<N> (omp.<name>.tcp_nosock.n1 at
#   one PE: the tcp engine opens no socket for one PE)
# Label openmp (in `make test`): shm at 1, 2, 4 PEs and tcp at 2.
# Label openmp-full (`ctest -L openmp-full`): shm at 3, tcp at 1, 3, 4,
# and omp.<name>.shm.n4t2: 4 PEs, OMP_NUM_THREADS=2.
# libc_*.c and task_*.c belong to omp-libc+tasks, registered by libc.cmake
# with the same function.

set(KUMI_OMP_TEST_SH ${CMAKE_CURRENT_LIST_DIR}/omp_test.sh)
set(KUMI_OMP_TEST_DIR ${CMAKE_BINARY_DIR}/tests/openmp)
set(KUMI_OMP_KUMICC ${CMAKE_BINARY_DIR}/bin/kumicc)
set(KUMI_OMP_KUMIRUN ${CMAKE_BINARY_DIR}/bin/kumirun)
# In a sanitizer build libkumi and libkumi-omp are instrumented; the test
# programs are not (instrumenting before the translator moves locals into
# the DSM would poison DSM memory as stack): their runs preload the
# sanitizer runtime of the compiler that built the libraries.
set(KUMI_OMP_TEST_ENV "")
if(KUMI_SANITIZE)
  if(KUMI_SANITIZE STREQUAL "thread")
    set(_san_libs libtsan.so)
  else()
    set(_san_libs libasan.so libubsan.so)
  endif()
  set(_preload "")
  foreach(l ${_san_libs})
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${l}
      OUTPUT_VARIABLE _p OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_preload)
      string(APPEND _preload ":")
    endif()
    string(APPEND _preload "${_p}")   # LD_PRELOAD takes ':' too (no spaces)
  endforeach()
  set(KUMI_OMP_TEST_ENV "KUMI_OMP_TEST_PRELOAD=${_preload}" "ASAN_OPTIONS=detect_leaks=0")
endif()

# kumi_omp_test(NAME [ENV VAR=value...] [QUICK_ONLY] [FULL])
# FULL: every run is labelled openmp-full (programs whose runs at 2 and 4
# PEs take seconds on a loaded 2-core machine)
function(kumi_omp_test NAME)
  cmake_parse_arguments(A "QUICK_ONLY;FULL" "" "ENV" ${ARGN})
  set(src ${CMAKE_CURRENT_LIST_DIR}/${NAME}.c)
  set(dir ${KUMI_OMP_TEST_DIR}/${NAME})
  add_test(NAME omp.${NAME}.build
    COMMAND sh ${KUMI_OMP_TEST_SH} build ${src} ${dir} ${KUMI_OMP_KUMICC} ${KUMI_CLANG14})
  set_tests_properties(omp.${NAME}.build PROPERTIES
    LABELS openmp FIXTURES_SETUP omp_${NAME} TIMEOUT 180)
  set(runs "shm 1 openmp" "shm 2 openmp" "shm 4 openmp" "tcp 2 openmp")
  if(NOT A_QUICK_ONLY)
    list(APPEND runs "shm 3 openmp-full" "tcp 1 openmp-full" "tcp 3 openmp-full" "tcp 4 openmp-full")
  endif()
  # a team of 2 on 4 PEs (OMP_NUM_THREADS=2: PEs 2 and 3 stay idle)
  add_test(NAME omp.${NAME}.shm.n4t2
    COMMAND sh ${KUMI_OMP_TEST_SH} run ${dir} ${KUMI_OMP_KUMIRUN} 4 shm ${A_ENV} OMP_NUM_THREADS=2)
  set_tests_properties(omp.${NAME}.shm.n4t2 PROPERTIES
    LABELS openmp-full FIXTURES_REQUIRED omp_${NAME} TIMEOUT 90 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")
  foreach(r IN LISTS runs)
    separate_arguments(r)
    list(GET r 0 tp)
    list(GET r 1 n)
    list(GET r 2 label)
    if(A_FULL)
      set(label openmp-full)
    endif()
    set(test omp.${NAME}.${tp}.n${n})
    # one PE over tcp opens no socket: named for what it checks
    if(tp STREQUAL "tcp" AND n EQUAL 1)
      set(test omp.${NAME}.tcp_nosock.n1)
    endif()
    add_test(NAME ${test}
      COMMAND sh ${KUMI_OMP_TEST_SH} run ${dir} ${KUMI_OMP_KUMIRUN} ${n} ${tp} ${A_ENV})
    set_tests_properties(${test} PROPERTIES
      LABELS "${label}" FIXTURES_REQUIRED omp_${NAME} TIMEOUT 90 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")
  endforeach()
endfunction()

kumi_omp_test(parallel)
kumi_omp_test(for_static)
kumi_omp_test(for_dynamic)
kumi_omp_test(for_types)
kumi_omp_test(for_runtime ENV OMP_SCHEDULE=guided,3)
kumi_omp_test(sections)
kumi_omp_test(single)
kumi_omp_test(master)
kumi_omp_test(critical)
kumi_omp_test(barrier)
kumi_omp_test(atomic)
kumi_omp_test(reduction)
kumi_omp_test(red_private)   # private reduction copies, the reduce list's DSM stack slots (omp.c)
kumi_omp_test(locks)
kumi_omp_test(test_lock_spin)   # while (!omp_test_lock(l)) at more PEs than cores
kumi_omp_test(ordered)
kumi_omp_test(doacross)
kumi_omp_test(collapse)
kumi_omp_test(api)
kumi_omp_test(icv_scope QUICK_ONLY ENV OMP_SCHEDULE=monotonic:dynamic)
kumi_omp_test(env_limits QUICK_ONLY ENV OMP_THREAD_LIMIT=2 OMP_MAX_TASK_PRIORITY=7)
kumi_omp_test(exit_status)
kumi_omp_test(cancel ENV OMP_CANCELLATION=true)
kumi_omp_test(alloc)
kumi_omp_test(alloc_user_clause QUICK_ONLY)   # allocate(al: x) with omp_init_allocator: clang 14 cuts the handle to 32 bits
kumi_omp_test(nested)
kumi_omp_test(teams)
kumi_omp_test(loop_rotate)
kumi_omp_test(private_heap QUICK_ONLY)   # per-thread malloc from libc's heap; published ones stay DSM
kumi_omp_test(rows QUICK_ONLY)   # grids of malloc'ed rows (NPB MG), homed at several PEs

# the coherence block of the OpenMP heap's small objects: the MG-shaped
# rows.c at 2 PEs must move a row in one message (<= 1024 protocol messages
# per iteration; 512 measured), and 64-byte blocks (the negative control,
# slower: openmp-full) cost more (2560)
add_test(NAME omp.rows.msgs COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/omp_msgs.sh rows
  ${KUMI_OMP_KUMIRUN} ${KUMI_OMP_TEST_DIR}/rows 1024 "34 %i 0")
add_test(NAME omp.rows.msgs_line COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/omp_msgs.sh rows
  ${KUMI_OMP_KUMIRUN} ${KUMI_OMP_TEST_DIR}/rows ">1024" "34 %i 0" KUMI_OMP_HEAP_BLOCK=line)
set_tests_properties(omp.rows.msgs PROPERTIES LABELS openmp
  FIXTURES_REQUIRED omp_rows TIMEOUT 90 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")
set_tests_properties(omp.rows.msgs_line PROPERTIES LABELS openmp-full
  FIXTURES_REQUIRED omp_rows TIMEOUT 150 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")

# fft's pattern (rows, then column chunks, of one malloc'ed array): a
# block-distributed heap object starts on a block boundary, so at 2 PEs an
# iteration moves each block of the other half twice (1024 protocol
# messages measured); 16 bytes off the boundary (before the fix) 1528
kumi_omp_test(halves QUICK_ONLY)
add_test(NAME omp.halves.msgs COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/omp_msgs.sh halves
  ${KUMI_OMP_KUMIRUN} ${KUMI_OMP_TEST_DIR}/halves 1200 "%i")
set_tests_properties(omp.halves.msgs PROPERTIES LABELS openmp
  FIXTURES_REQUIRED omp_halves TIMEOUT 90 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")

# a big malloc'ed array first written by a static loop: each PE's share is
# the part homed there (the parts counted from the object, not from its
# header's block): no write miss at 3 and 4 PEs (1 to 3 per PE before)
kumi_omp_test(first_touch QUICK_ONLY)
foreach(n 3 4)
  add_test(NAME omp.first_touch.misses.n${n} COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/first_touch.sh
    ${KUMI_OMP_KUMIRUN} ${KUMI_OMP_TEST_DIR}/first_touch ${n})
  set_tests_properties(omp.first_touch.misses.n${n} PROPERTIES LABELS openmp
    FIXTURES_REQUIRED omp_first_touch TIMEOUT 90 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")
endforeach()

# NPB SP's shape: sequential loops around `omp for`s whose threads write
# interleaved parts of one block, 1-D work arrays read across the
# threads' boundary (bindings/openmp/README.md, "SP, 2026-11-27")
# (openmp-full: at 2 and 4 PEs its false sharing costs seconds when the
# machine is loaded)
kumi_omp_test(spsweep QUICK_ONLY FULL)
kumi_omp_test(copyin_big QUICK_ONLY)   # large objects on the DSM stack (NPB EP's copyin)
# objects of 4 KiB and up on the DSM stack (a copyin's copy, a big local
# array) have 4 KiB coherence blocks: copyin_big.c at 2 PEs moves them in
# a few hundred protocol messages (711 measured), and 64-byte blocks (the
# negative control, KUMI_OMP_STACK_BIG=0, slower: openmp-full) cost more
# (34876)
add_test(NAME omp.copyin_big.msgs COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/msgs_max.sh
  ${KUMI_OMP_KUMIRUN} ${KUMI_OMP_TEST_DIR}/copyin_big 2 3000)
add_test(NAME omp.copyin_big.msgs_line COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/msgs_max.sh
  ${KUMI_OMP_KUMIRUN} ${KUMI_OMP_TEST_DIR}/copyin_big 2 ">3000" KUMI_OMP_STACK_BIG=0)
set_tests_properties(omp.copyin_big.msgs PROPERTIES LABELS openmp
  FIXTURES_REQUIRED omp_copyin_big TIMEOUT 90 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")
set_tests_properties(omp.copyin_big.msgs_line PROPERTIES LABELS openmp-full
  FIXTURES_REQUIRED omp_copyin_big TIMEOUT 150 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")

# every PE ends with status 0 (workers run libkumi-omp's exit handler after
# the job's end: kumi_global_exit must take a second call from it)
foreach(_n 2 4)
  add_test(NAME omp.exit_clean.shm.n${_n} COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/exit_clean.sh
    ${KUMI_OMP_KUMIRUN} ${KUMI_OMP_TEST_DIR}/task_red ${_n} shm)
  set_tests_properties(omp.exit_clean.shm.n${_n} PROPERTIES LABELS openmp
    FIXTURES_REQUIRED omp_task_red TIMEOUT 90 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")
endforeach()
add_test(NAME omp.exit_clean.tcp.n2 COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/exit_clean.sh
  ${KUMI_OMP_KUMIRUN} ${KUMI_OMP_TEST_DIR}/task_red 2 tcp)
set_tests_properties(omp.exit_clean.tcp.n2 PROPERTIES LABELS "openmp;tcp"
  FIXTURES_REQUIRED omp_task_red TIMEOUT 90 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")

kumi_omp_test(pipeline QUICK_ONLY)   # NPB LU's flag pipeline (flush spins)
# flag spins give the core away: the pipeline at 4 PEs on 2 cores, against
# KUMI_OMP_FLUSH_SPIN=1 (several seconds: openmp-full)
add_test(NAME omp.pipeline.time COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/pipeline_time.sh
  ${KUMI_OMP_KUMIRUN} ${KUMI_OMP_TEST_DIR}/pipeline)
set_tests_properties(omp.pipeline.time PROPERTIES LABELS openmp-full SKIP_RETURN_CODE 77
  FIXTURES_REQUIRED omp_pipeline TIMEOUT 120 PROCESSORS 2 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")

kumi_omp_test(flush_solo QUICK_ONLY)   # flushes in a team of one never nap
# the same at one PE with KUMI_WAIT=block (kumirun's choice on a loaded
# machine, where the naps were), whatever the load now
add_test(NAME omp.flush_solo.block COMMAND sh ${KUMI_OMP_TEST_SH} run ${KUMI_OMP_TEST_DIR}/flush_solo
  ${KUMI_OMP_KUMIRUN} 1 shm KUMI_WAIT=block)
set_tests_properties(omp.flush_solo.block PROPERTIES LABELS openmp
  FIXTURES_REQUIRED omp_flush_solo TIMEOUT 90 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")

# two hosts (network namespaces, as tests/hosts/; skipped unless root with
# ip netns): labels hosts and openmp-full
foreach(t parallel reduction for_dynamic single critical locks ordered)
  add_test(NAME omp.${t}.hosts COMMAND sh ${KUMI_OMP_TEST_SH} hosts ${KUMI_OMP_TEST_DIR}/${t}
    ${KUMI_OMP_KUMIRUN} ${PROJECT_SOURCE_DIR}/tests/hosts/hosts.sh)
  set_tests_properties(omp.${t}.hosts PROPERTIES LABELS "openmp-full;hosts"
    FIXTURES_REQUIRED omp_${t} SKIP_RETURN_CODE 77 TIMEOUT 150 PROCESSORS 2
    ENVIRONMENT "${KUMI_OMP_TEST_ENV}")
endforeach()

# the negative control: parallel.c without translation fails at 2 PEs
add_test(NAME omp.negative_control COMMAND sh ${KUMI_OMP_TEST_SH} negative
  ${CMAKE_CURRENT_LIST_DIR}/parallel.c ${KUMI_OMP_TEST_DIR}/parallel ${KUMI_OMP_KUMICC}
  ${KUMI_OMP_KUMIRUN} 2)
set_tests_properties(omp.negative_control PROPERTIES LABELS openmp FIXTURES_REQUIRED omp_parallel
  TIMEOUT 120 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")

# PEs whose address layouts differ stop at start-up with a message
add_test(NAME omp.layout_check COMMAND sh ${KUMI_OMP_TEST_SH} layout
  ${KUMI_OMP_TEST_DIR}/exit_status ${KUMI_OMP_KUMIRUN})
set_tests_properties(omp.layout_check PROPERTIES LABELS openmp FIXTURES_REQUIRED omp_exit_status
  SKIP_RETURN_CODE 77 TIMEOUT 60 ENVIRONMENT "${KUMI_OMP_TEST_ENV}")

include(${CMAKE_CURRENT_LIST_DIR}/libc.cmake)   # omp-libc+tasks
