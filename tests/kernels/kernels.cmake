# tests/kernels/kernels.cmake -- the DSM kernels of bench/dsm
# through kumi-bench's kernels op, included by bench/dsm/kernels.cmake
# (at the end of the top-level directory, once the kernels are known).
# Labels: kernels and dsm; tcp on the tcp runs.
#   kernels.NAME.nP       every present kernel at 1, 2 and 4 PEs on shm
#   kernels.NAME.tcp.nP   the same over tcp at 2 and 4 PEs (one PE over
#                         tcp opens no socket: no kernels.NAME.tcp.n1)
#   kernels.overhead.n1   every kernel, plain and translated at 1 PE
# Small sizes (4 PEs on 2 cores are oversubscribed); one trial. A kernel
# that fails its check against the sequential run prints VERIFICATION
# FAILED and kumi-bench exits 1. No timing is asserted.
# Called from a function: _objs's kernels are in _kernels_built.
set(_kk_bench ${CMAKE_BINARY_DIR}/bin/kumi-bench)
set(_kk_run ${CMAKE_BINARY_DIR}/bin/kumirun)
# small sizes per kernel (n; iters where the kernel has them)
set(_kk_size_matmul 64)
set(_kk_size_lu 128)          # 32 x 32 blocks: 4 x 4 of them
set(_kk_size_sor 128)
set(_kk_size_radix 16384)
set(_kk_size_histogram 65536)
set(_kk_size_fft 4096)        # 64 x 64: a square power of two
set(_kk_all "")
foreach(k ${_kernels_built})
  list(APPEND _kk_all "${k}=${_kk_size_${k}}")
  foreach(np 1 2 4)
    foreach(tp shm tcp)
      # no kernels.K.tcp.n1: one PE over tcp opens no socket, and the
      # translated kernel on one PE runs as kernels.K.n1 does
      if(tp STREQUAL "tcp" AND np EQUAL 1)
        continue()
      endif()
      if(tp STREQUAL "tcp")
        set(_name kernels.${k}.tcp.n${np})
        set(_tpargs --transport tcp)
      else()
        set(_name kernels.${k}.n${np})
        set(_tpargs "")
      endif()
      add_test(NAME ${_name}
        COMMAND ${_kk_run} -n ${np} ${_tpargs} --timeout 60 ${_kk_bench} kernels --kernel ${k}
                --size ${_kk_size_${k}} --trials 1)
      set(_labels "kernels;dsm")
      if(tp STREQUAL "tcp")
        list(APPEND _labels tcp)
      endif()
      set_tests_properties(${_name} PROPERTIES LABELS "${_labels}" TIMEOUT 90
        FAIL_REGULAR_EXPRESSION "VERIFICATION FAILED|set-up failed|FAIL")
    endforeach()
  endforeach()
endforeach()
string(REPLACE ";" "," _kk_all "${_kk_all}")
add_test(NAME kernels.overhead.n1
  COMMAND ${_kk_run} -n 1 --timeout 90 ${_kk_bench} kernels --size ${_kk_all} --trials 1)
set_tests_properties(kernels.overhead.n1 PROPERTIES LABELS "kernels;dsm" TIMEOUT 120
  FAIL_REGULAR_EXPRESSION "VERIFICATION FAILED|set-up failed|FAIL")
