# litmus.cmake -- the DSM litmus tests as plain C (tests/translate/litmus.c:
# volatile loads and stores to kumi_dsm_malloc memory, nothing else),
# compiled by kumicc at build time. Included at the end of translate.cmake
# (non-sanitizer builds with kumi-translate). Labels: translate, dsm (and
# tcp). Each run stops at MAX_ITERS or SECONDS (its last two arguments),
# going on to 1000 iterations on a loaded machine, never past 3 x SECONDS.
#   translate.litmus.SHAPE.n2        translated, 2 PEs, shm (SHAPE: the seven
#                                    classic shapes, and mpspin: MP with the
#                                    reader spinning on the flag)
#   translate.litmus.SHAPE[.tcp].n3  3 PEs (mp, corr): the third is only a
#                                    home, so misses are forwarded (3 hops)
#   translate.litmus.SHAPE.tcp.n2    the same over tcp
#   translate.litmus.iriw[.tcp].n4   IRIW needs 4 roles
#   translate.litmus.plain.*         negative controls: the same source with
#                                    KUMI_TRANSLATE=0 must report BAD (flag
#                                    patterns read as data, PEs that disagree
#                                    on a final value)
if(NOT DEFINED _kumicc OR NOT DEFINED _kumirun)
  message(FATAL_ERROR "tests/translate/litmus.cmake: include it from translate.cmake "
    "(after _kumicc and _kumirun are set)")
endif()

set(_lit ${CMAKE_CURRENT_BINARY_DIR}/litmus)
set(_lit_plain ${CMAKE_CURRENT_BINARY_DIR}/litmus_plain)
add_custom_command(OUTPUT ${_lit}
  COMMAND ${CMAKE_COMMAND} -E env KUMI_TRANSLATE=1
          ${_kumicc} -O2 -g -Wall -Wextra ${_tdir}/litmus.c -o ${_lit}
  DEPENDS ${_tdir}/litmus.c kumi kumi-translate ${PROJECT_SOURCE_DIR}/launcher/kumicc.in
  COMMENT "kumicc (translated) litmus.c")
add_custom_command(OUTPUT ${_lit_plain}
  COMMAND ${CMAKE_COMMAND} -E env KUMI_TRANSLATE=0
          ${_kumicc} -O2 -Wall -Wextra ${_tdir}/litmus.c -o ${_lit_plain}
  DEPENDS ${_tdir}/litmus.c kumi ${PROJECT_SOURCE_DIR}/launcher/kumicc.in
  COMMENT "kumicc (KUMI_TRANSLATE=0) litmus.c")
add_custom_target(translate_litmus ALL DEPENDS ${_lit} ${_lit_plain})

# litmus_test(NAME NPES TRANSPORT PROGRAM ARGS...)
function(litmus_test NAME NPES TP PROG)
  set(labels "translate;dsm")
  set(opts "")
  if(TP STREQUAL "tcp")
    set(opts --transport tcp)
    list(APPEND labels tcp)
  endif()
  add_test(NAME ${NAME} COMMAND ${_kumirun} -n ${NPES} ${opts} --timeout 45 ${PROG} ${ARGN})
  set_tests_properties(${NAME} PROPERTIES LABELS "${labels}" TIMEOUT 60 PROCESSORS ${NPES})
  # 2 PEs: the roles must race, so they spin bound to their cores as they
  # do on an idle machine, even when kumirun's start-up load check (other
  # work running) would make them block unbound: a PE asleep in the sets'
  # barrier lets the other run its accesses alone, and the run then misses
  # outcomes it must see ("did not race as intended"; seen in CI with
  # other work on the machine). More PEs than this machine's 2 cores block
  # anyway.
  if(NPES EQUAL 2)
    set_tests_properties(${NAME} PROPERTIES ENVIRONMENT "KUMI_WAIT=spin")
  endif()
endfunction()

# tcp gets fewer iterations: a miss is a socket round trip
foreach(s mp sb lb 2+2w corr cowr mpspin)
  litmus_test(translate.litmus.${s}.n2 2 shm ${_lit} ${s} 20000 2)
  litmus_test(translate.litmus.${s}.tcp.n2 2 tcp ${_lit} ${s} 6000 2)
  # "BAD" on PE 0's stdout fails the test even if the exit status were 0
  set_tests_properties(translate.litmus.${s}.n2 translate.litmus.${s}.tcp.n2
    PROPERTIES FAIL_REGULAR_EXPRESSION "BAD")
endforeach()
foreach(s mp corr)
  litmus_test(translate.litmus.${s}.n3 3 shm ${_lit} ${s} 10000 2)
  set_tests_properties(translate.litmus.${s}.n3 PROPERTIES FAIL_REGULAR_EXPRESSION "BAD")
endforeach()
litmus_test(translate.litmus.mp.tcp.n3 3 tcp ${_lit} mp 4000 2)
set_tests_properties(translate.litmus.mp.tcp.n3 PROPERTIES FAIL_REGULAR_EXPRESSION "BAD")
litmus_test(translate.litmus.iriw.n4 4 shm ${_lit} iriw 10000 2)
litmus_test(translate.litmus.iriw.tcp.n4 4 tcp ${_lit} iriw 3000 2)
set_tests_properties(translate.litmus.iriw.n4 translate.litmus.iriw.tcp.n4
  PROPERTIES FAIL_REGULAR_EXPRESSION "BAD")

# Negative controls: untranslated, the loads read the local copy (the flag
# pattern of an invalid line, or this PE's own stale writes). (mpspin is
# not among them: untranslated, its reader may spin to its 5 s limit.) The test
# passes only if the program itself found a forbidden outcome (a crash or a
# hang cut by --timeout does not print that line, so it fails).
foreach(s mp cowr)
  litmus_test(translate.litmus.plain.${s}.n2 2 shm ${_lit_plain} ${s} 2000 1)
  set_tests_properties(translate.litmus.plain.${s}.n2 PROPERTIES
    PASS_REGULAR_EXPRESSION "litmus [a-z0-9+]+: BAD: forbidden outcome")
endforeach()
