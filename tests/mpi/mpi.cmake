# tests/mpi/mpi.cmake -- the MPI binding's tests (labels mpi, mpi-full).
# Included from tests/CMakeLists.txt; it includes every other
# tests/mpi/*.cmake (one per part: core, type, coll), which call kumi_mpi_test.
#
# Quick set (label mpi, in `make test`): the PE counts of QUICK (default
# 2) on every transport. Everything else (label mpi-full): `ctest -L mpi-full`.
# kumi_mpi_test(NAME SRC [PES n...] [QUICK n...] [TRANSPORTS shm|tcp...]
#                 [ARGS a...] [ENV VAR=value...] [LABELS l...] [CXX]
#                 [COPTS flag...] [PROPS prop value...]
#                 [EXPECT_RC rc EXPECT_REGEX re] [TIMEOUT sec] [NOKUMIRUN])
# Builds tests/mpi/SRC once (target mpi_<SRC without extension>) the
# way mpicc does (mpi.h, libkumi-mpi, libkumi; C++ when SRC ends in .cc
# or .cpp, or with CXX) and adds one CTest per PE count and transport:
#   mpi.NAME.n<N>        kumirun -n N --timeout 120 PROGRAM ARGS (shm)
#   mpi.NAME.tcp.n<N>    ... --transport tcp ... (mpi.NAME.tcp_nosock.n1 at
#                        1 PE: the engine opens no socket for one PE)
# PES defaults to 1 2 3 4 8, TRANSPORTS to shm tcp, QUICK to 2 (QUICK ""
# puts every run in mpi-full; a count in QUICK but not in PES is added).
# Labels: mpi (quick) or mpi-full, plus tcp for tcp runs, plus LABELS.
# EXPECT_RC/EXPECT_REGEX: the run must exit with rc and print a line
# matching re (tests/pe/expect.sh). NOKUMIRUN: the program is started alone
# (a job of one PE; PES must be 1 and TRANSPORTS shm). COPTS: extra compile
# flags; PROPS: target properties (e.g. C_STANDARD 99 C_EXTENSIONS OFF).
set(KUMI_MPI_TEST_TIMEOUT 120)
function(kumi_mpi_test NAME SRC)
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
    set(A_TIMEOUT ${KUMI_MPI_TEST_TIMEOUT})
  endif()
  foreach(q IN LISTS A_QUICK)
    if(NOT q IN_LIST A_PES)
      list(APPEND A_PES ${q})
    endif()
  endforeach()
  get_filename_component(base ${SRC} NAME_WE)
  get_filename_component(ext ${SRC} LAST_EXT)
  set(target mpi_${base})
  if(NOT TARGET ${target})
    add_executable(${target} ${CMAKE_CURRENT_SOURCE_DIR}/mpi/${SRC})
    if(A_CXX OR ext STREQUAL ".cc" OR ext STREQUAL ".cpp")
      set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/mpi/${SRC}
        PROPERTIES LANGUAGE CXX)
    endif()
    target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/mpi)
    target_link_libraries(${target} PRIVATE kumi_mpi)
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
      set(test mpi.${NAME}${infix}.n${n})
      # one PE over tcp opens no socket (the engine needs none for a job of
      # one): the test checks the tcp transport's own memory and self paths,
      # and its name says so (.tcp_nosock.n1) instead of claiming tcp coverage
      if(tp STREQUAL "tcp" AND n EQUAL 1)
        set(test mpi.${NAME}.tcp_nosock.n1)
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
        set(labels mpi)
      else()
        set(labels mpi-full)
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

# every section's declarations: tests/mpi/*.cmake but this file
file(GLOB kumi_mpi_parts ${CMAKE_CURRENT_LIST_DIR}/*.cmake)
list(SORT kumi_mpi_parts)
foreach(part IN LISTS kumi_mpi_parts)
  get_filename_component(pname ${part} NAME)
  if(NOT pname STREQUAL "mpi.cmake")
    include(${part})
  endif()
endforeach()
