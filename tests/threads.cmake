# tests/threads.cmake -- kumi_init_ex(KUMI_INIT_THREADS): many threads of a
# PE call kumi at once (tests/pe/threads*.c). Label threads on every test
# (the shm ones too), so `make test-tsan` runs them all (TSAN_TESTS in the
# Makefile); the tcp ones also carry tcp, as every pe test over tcp does.
# Each takes a few seconds at most here; under TSan about ten times that.

# 8 threads per PE mixing puts, gets, atomics, waits and quiet; fetch_add
# tickets and add counts checked exactly
kumi_pe_test(threads      threads.c      NPES 2 4 ARGS mix 500 TCP_ARGS mix 300)
# a thread blocked in kumi_wait_until never stops its PE's other thread
# (RMA with a peer whose waiter is blocked too), under each wait policy
kumi_pe_test(threads_block threads.c     NPES 2 ARGS block 300)
kumi_pe_test(threads_block.wait_spin  threads.c NPES 2 ARGS block 300 ENV KUMI_WAIT=spin)
kumi_pe_test(threads_block.wait_block threads.c NPES 2 ARGS block 300 ENV KUMI_WAIT=block)
# tcp only (shm gets are memcpy): three threads' 100 MiB gets at once use
# more than a connection's 256 request tags, beside fetch_adds and quiets
kumi_pe_test(threads_tags threads.c      NPES 2 ARGS tags 100 SHM_ONLY
  ENV KUMI_TRANSPORT=tcp KUMI_HEAP_SIZE=512m)
set_tests_properties(pe.threads_tags.n2 PROPERTIES LABELS "pe;tcp;threads")
# inside the runtime: active messages from 8 threads per PE (the shm
# queues' producer lock, the tcp engine), kumi_rt_wait_pred from 8 threads
kumi_pe_test(threads_am   threads_am.c   NPES 2 4 ARGS am 200 INTERNAL)
# every thread waiting in kumi_rt_wait_pred gets KUMI_ERR_PEER, reported
kumi_pe_test(threads_am_fail threads_am.c NPES 2 ARGS fail INTERNAL EXPECT_RC 3
  EXPECT_REGEX "kumi\\[0\\]: fail_thread: PE 1 failed \\(status 3\\)")
foreach(t pe_threads pe_threads_am)
  target_link_libraries(${t} PRIVATE Threads::Threads)
endforeach()

foreach(name threads threads_block threads_block.wait_spin threads_block.wait_block
        threads_am threads_am_fail)
  foreach(n 2 4)
    if(TEST pe.${name}.n${n})
      set_tests_properties(pe.${name}.n${n} PROPERTIES LABELS "pe;threads")
    endif()
    if(TEST pe.${name}.tcp.n${n})
      set_tests_properties(pe.${name}.tcp.n${n} PROPERTIES LABELS "pe;tcp;threads")
    endif()
  endforeach()
endforeach()
