# tests/shmem/shmem.cmake -- the OpenSHMEM binding's tests (labels shmem,
# shmem-full). Included from tests/CMakeLists.txt; it includes every other
# tests/shmem/*.cmake (one per helper/section), which call kumi_shmem_test.
#
# Quick set (label shmem, in `make test`): the PE counts of QUICK (default
# 2) on every transport. Everything else (label shmem-full): `make
# test-shmem` or `ctest -L shmem-full`.

# kumi_shmem_test(NAME SRC [PES n...] [QUICK n...] [TRANSPORTS shm|tcp...]
#                 [ARGS a...] [ENV VAR=value...] [LABELS l...] [CXX]
#                 [COPTS flag...] [PROPS prop value...]
#                 [EXPECT_RC rc EXPECT_REGEX re] [TIMEOUT sec] [NOKUMIRUN])
# Builds tests/shmem/SRC once (target shmem_<SRC without extension>) the
# way oshcc does (shmem.h, libkumi-shmem, libkumi; C++ when SRC ends in .cc
# or .cpp, or with CXX) and adds one CTest per PE count and transport:
#   shmem.NAME.n<N>        kumirun -n N --timeout 120 PROGRAM ARGS (shm)
#   shmem.NAME.tcp.n<N>    ... --transport tcp ... (shmem.NAME.tcp_nosock.n1
#                          at 1 PE: the engine opens no socket for one PE)
# PES defaults to 1 2 3 4 8, TRANSPORTS to shm tcp, QUICK to 2 (QUICK ""
# puts every run in shmem-full; a count in QUICK but not in PES is added).
# Labels: shmem (quick) or shmem-full, plus tcp for tcp runs, plus LABELS.
# EXPECT_RC/EXPECT_REGEX: the run must exit with rc and print a line
# matching re (tests/pe/expect.sh). NOKUMIRUN: the program is started alone
# (a job of one PE; PES must be 1 and TRANSPORTS shm). COPTS: extra compile
# flags; PROPS: target properties (e.g. C_STANDARD 99 C_EXTENSIONS OFF).
set(KUMI_SHMEM_TEST_TIMEOUT 120)
function(kumi_shmem_test NAME SRC)
  cmake_parse_arguments(A "CXX;NOKUMIRUN" "EXPECT_RC;EXPECT_REGEX;TIMEOUT"
                        "PES;QUICK;TRANSPORTS;ARGS;ENV;LABELS;COPTS;PROPS" ${ARGN})
  if(NOT DEFINED A_PES)
    set(A_PES 1 2 3 4 8)
  endif()
  if(NOT DEFINED A_QUICK AND NOT "QUICK" IN_LIST ARGN)
    set(A_QUICK 2)
  endif()
  if(NOT DEFINED A_TRANSPORTS)
    set(A_TRANSPORTS shm tcp)
  endif()
  if(NOT DEFINED A_TIMEOUT)
    set(A_TIMEOUT ${KUMI_SHMEM_TEST_TIMEOUT})
  endif()
  foreach(q IN LISTS A_QUICK)
    if(NOT q IN_LIST A_PES)
      list(APPEND A_PES ${q})
    endif()
  endforeach()
  get_filename_component(base ${SRC} NAME_WE)
  get_filename_component(ext ${SRC} LAST_EXT)
  set(target shmem_${base})
  if(NOT TARGET ${target})
    add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/shmem/${SRC})
    if(A_CXX OR ext STREQUAL ".cc" OR ext STREQUAL ".cpp")
      set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/shmem/${SRC}
        PROPERTIES LANGUAGE CXX)
    endif()
    target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/shmem)
    target_link_libraries(${target} PRIVATE kumi_shmem)
    if(A_COPTS)
      target_compile_options(${target} PRIVATE ${A_COPTS})
    endif()
    if(A_PROPS)
      set_target_properties(${target} PROPERTIES ${A_PROPS})
    endif()
  endif()
  math(EXPR ctest_timeout "${A_TIMEOUT} + 30")
  foreach(tp IN LISTS A_TRANSPORTS)
    if(tp STREQUAL "shm")
      set(infix "")
      set(opts "")
      set(tplabel "")
    else()
      set(infix ".${tp}")
      set(opts --transport ${tp})
      set(tplabel ${tp})
    endif()
    foreach(n IN LISTS A_PES)
      set(test shmem.${NAME}${infix}.n${n})
      # one PE over tcp opens no socket (the engine needs none for a job of
      # one): the test checks the tcp transport's own memory and self paths,
      # and its name says so (.tcp_nosock.n1) instead of claiming tcp coverage
      if(tp STREQUAL "tcp" AND n EQUAL 1)
        set(test shmem.${NAME}.tcp_nosock.n1)
      endif()
      if(A_NOKUMIRUN)
        set(cmd $<TARGET_FILE:${target}> ${A_ARGS})
      else()
        set(cmd ${KUMIRUN} -n ${n} ${opts} --timeout ${A_TIMEOUT}
                $<TARGET_FILE:${target}> ${A_ARGS})
      endif()
      if(DEFINED A_EXPECT_RC)
        add_test(NAME ${test} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/pe/expect.sh
                 ${A_EXPECT_RC} "${A_EXPECT_REGEX}" ${cmd})
      else()
        add_test(NAME ${test} COMMAND ${cmd})
      endif()
      if(n IN_LIST A_QUICK)
        set(labels shmem)
      else()
        set(labels shmem-full)
      endif()
      list(APPEND labels ${tplabel} ${A_LABELS})
      set_tests_properties(${test} PROPERTIES LABELS "${labels}"
        TIMEOUT ${ctest_timeout} PROCESSORS ${n})
      if(A_ENV)
        set_tests_properties(${test} PROPERTIES ENVIRONMENT "${A_ENV}")
      endif()
    endforeach()
  endforeach()
endfunction()

# every section's declarations: tests/shmem/*.cmake but this file
file(GLOB kumi_shmem_parts ${CMAKE_CURRENT_LIST_DIR}/*.cmake)
list(SORT kumi_shmem_parts)
foreach(part IN LISTS kumi_shmem_parts)
  get_filename_component(pname ${part} NAME)
  if(NOT pname STREQUAL "shmem.cmake")
    include(${part})
  endif()
endforeach()
