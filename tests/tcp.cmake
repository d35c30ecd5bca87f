# tests/tcp.cmake -- the tcp transport's own tests (label tcp). The pe
# tests of CMakeLists.txt already run over tcp too (pe.NAME.tcp.nN); these
# check what only the socket engine has: frame validation (fuzzer),
# intruders, a malformed frame on a real connection, back-pressure and
# progress while the target computes.

# ------------------------------------------------------------ fuzz target
# Built with clang-14's libFuzzer directly (the project may use gcc): the
# decoder of transport/tcp/frame.c fed by tests/fuzz/fuzz_frame.c.
find_program(KUMI_CLANG14 clang-14)
file(GLOB KUMI_FUZZER_LIB /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a)
set(fuzz_corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus)
if(KUMI_CLANG14 AND KUMI_FUZZER_LIB)
  set(fuzz_bin ${CMAKE_CURRENT_BINARY_DIR}/fuzz_frame)
  add_custom_command(OUTPUT ${fuzz_bin}
    COMMAND ${KUMI_CLANG14} -g -O1 -fsanitize=fuzzer,address,undefined
            -fno-sanitize-recover=undefined -D_GNU_SOURCE
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/transport
            -I${PROJECT_SOURCE_DIR}/transport/tcp
            ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_frame.c
            ${PROJECT_SOURCE_DIR}/transport/tcp/frame.c -o ${fuzz_bin}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_frame.c
            ${PROJECT_SOURCE_DIR}/transport/tcp/frame.c
            ${PROJECT_SOURCE_DIR}/transport/tcp/frame.h
            ${PROJECT_SOURCE_DIR}/transport/tcp/wire.h
    COMMENT "Building the frame fuzzer with clang-14")
  add_custom_target(fuzz_frame ALL DEPENDS ${fuzz_bin})
  # new inputs go to the build tree; the committed seeds stay as they are
  add_test(NAME fuzz.tcp_frame COMMAND sh -c
    "mkdir -p fuzz-corpus && exec '${fuzz_bin}' -max_total_time=20 -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 fuzz-corpus '${fuzz_corpus}'")
  set_tests_properties(fuzz.tcp_frame PROPERTIES LABELS "tcp;fuzz" TIMEOUT 90
    WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
else()
  message(STATUS "kumi: clang-14 or libclang_rt.fuzzer not found: fuzz.tcp_frame is skipped")
  add_test(NAME fuzz.tcp_frame COMMAND sh -c
    "echo 'fuzz.tcp_frame: needs clang-14 and libclang-rt-14-dev; skipped'; exit 77")
  set_tests_properties(fuzz.tcp_frame PROPERTIES LABELS "tcp;fuzz" SKIP_RETURN_CODE 77)
endif()
# regenerates tests/fuzz/corpus (committed): `make_corpus tests/fuzz/corpus`
add_executable(make_corpus ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/make_corpus.c)
target_include_directories(make_corpus PRIVATE
  ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/transport ${PROJECT_SOURCE_DIR}/transport/tcp)

# ------------------------------------------------------------- engine tests
# kumi_pe_test makes shm and tcp variants; these are about tcp only, so they
# run as SHM_ONLY with KUMI_TRANSPORT=tcp and get the tcp label.
function(kumi_tcp_test NAME SRC)
  cmake_parse_arguments(T "INTERNAL" "EXPECT_RC;EXPECT_REGEX" "NPES" ${ARGN})
  set(extra "")
  if(T_INTERNAL)
    list(APPEND extra INTERNAL)
  endif()
  if(DEFINED T_EXPECT_RC)
    list(APPEND extra EXPECT_RC ${T_EXPECT_RC} EXPECT_REGEX "${T_EXPECT_REGEX}")
  endif()
  kumi_pe_test(${NAME} ${SRC} NPES ${T_NPES} SHM_ONLY ENV KUMI_TRANSPORT=tcp ${extra})
  foreach(n IN LISTS T_NPES)
    set_tests_properties(pe.${NAME}.n${n} PROPERTIES LABELS "pe;tcp")
  endforeach()
endfunction()

# wrong-key and garbage connections to a running job are turned away and
# logged; the job's barriers, puts and atomics stay correct
kumi_tcp_test(tcp_intruder tcp_intruder.c NPES 2 4 INTERNAL)
# a malformed frame over an authenticated connection: the receiver names the
# sender, every PE's blocked call returns KUMI_ERR_PEER, the job exits 1
kumi_tcp_test(tcp_bad_frame tcp_bad_frame.c NPES 2 3 INTERNAL
  EXPECT_RC 1 EXPECT_REGEX "kumi\\[0\\]: tcp: bad frame from PE 1 \\(.*\\): put of 1 bytes at heap offset 0x[0-9a-f]+ beyond")
# long active messages (am_send_long): headers and payloads of every size
# class intact and in order with short AMs; bad arguments refused; a
# place() that refuses fails the connection as a bad frame
kumi_tcp_test(tcp_am_long tcp_am_long.c NPES 2 3 INTERNAL)
kumi_pe_test(tcp_am_long.refuse tcp_am_long.c NPES 2 SHM_ONLY INTERNAL ARGS refuse
  ENV KUMI_TRANSPORT=tcp EXPECT_RC 1
  EXPECT_REGEX "kumi\\[0\\]: tcp: bad frame from PE 1 \\(.*\\): long active message of 0 bytes refused by handler 30")
set_tests_properties(pe.tcp_am_long.refuse.n2 PROPERTIES LABELS "pe;tcp")
# when frames are written (the first active message after a round at once,
# the rest coalesced) and how a stream of long ones is read (headers alone)
kumi_tcp_test(tcp_batching tcp_batching.c NPES 2 INTERNAL)
# system calls per message of a ping-pong: one write and one recv a
# message, and kumi_recv returns without another look at the sockets once
# its message is in. Spin policy whatever kumirun's load check finds: the
# extra look happened in the spinning wait loop
# (2 PEs: a third, spinning in the last barrier, would take a core from them)
kumi_pe_test(tcp_calls tcp_calls.c NPES 2 SHM_ONLY INTERNAL
  ENV KUMI_TRANSPORT=tcp KUMI_WAIT=spin)
set_tests_properties(pe.tcp_calls.n2 PROPERTIES LABELS "pe;tcp")
# everyone puts small and large messages to everyone without quiet
kumi_tcp_test(tcp_backpressure tcp_backpressure.c NPES 2 3 4)
# gets and fetching atomics complete while the target computes
kumi_tcp_test(tcp_progress tcp_progress.c NPES 2)
