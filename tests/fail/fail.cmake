# Failure handling of real kumi jobs (included from tests/CMakeLists.txt).
add_executable(pe_fail ${CMAKE_CURRENT_LIST_DIR}/pe_fail.c)
target_link_libraries(pe_fail PRIVATE kumi)
foreach(n 2 4 8)
  add_test(NAME fail.job.n${n}
    COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/fail.sh ${CMAKE_BINARY_DIR}/bin/kumirun
            $<TARGET_FILE:pe_fail> ${n})
  set_tests_properties(fail.job.n${n} PROPERTIES LABELS "fail" TIMEOUT 120)
endforeach()
# the same over the ucx transport (UCX's tcp): a PE killed, exiting 3,
# crashing, leaving without kumi_finalize: the others get KUMI_ERR_PEER,
# the job ends within 5 s, no orphans, nothing in /dev/shm
if(UCX_FOUND)
  # (not 3: its "three jobs at once" case, 9 PEs polling UCX on 2 cores,
  # failed a healthy job once). UCX_HANDLE_ERRORS=none: UCX's own SIGSEGV
  # handler prints a symbolized backtrace before it re-raises, which on a
  # loaded machine took longer than the 5 s a case may take (the PE still
  # died by SIGSEGV and was reported so)
  foreach(n 2)
    add_test(NAME fail.job.ucx.n${n}
      COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/fail.sh ${CMAKE_BINARY_DIR}/bin/kumirun
              $<TARGET_FILE:pe_fail> ${n})
    set_tests_properties(fail.job.ucx.n${n} PROPERTIES LABELS "fail;ucx" TIMEOUT 120
      ENVIRONMENT "KUMI_TRANSPORT=ucx;UCX_TLS=tcp,self;UCX_HANDLE_ERRORS=none;${KUMI_UCX_SAN_ENV}")
  endforeach()
endif()

# libkumi.so's exports: kumi.h's API and the internal node of
# runtime/libkumi.map, nothing else (a second or so)
add_test(NAME install.symbols
  COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/symbols.sh $<TARGET_FILE:kumi> ${CMAKE_SOURCE_DIR})
set_tests_properties(install.symbols PROPERTIES LABELS "install;docs" TIMEOUT 60)

# Installation: headers, libraries, kumicc, kumirun, kumi.pc, CMake package
# (not in sanitizer builds: the consumers are built without the sanitizer)
if(NOT KUMI_SANITIZE)
  add_test(NAME install.consumers
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/check.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(install.consumers PROPERTIES LABELS "install" TIMEOUT 300)
else()
  kumi_skipped_test(install.consumers "install"
    "a sanitizer build (KUMI_SANITIZE=${KUMI_SANITIZE}): the consumers are built without the sanitizer")
endif()

# The Debian package (`make test-package`, label package, not in `make
# test`: building the package takes a while): built, installed with
# apt-get, used, removed without leftovers. Root only (skips otherwise).
if(NOT KUMI_SANITIZE)
  add_test(NAME package.smoke
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/package/smoke.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(package.smoke PROPERTIES LABELS "package" TIMEOUT 900 RUN_SERIAL TRUE
                       SKIP_RETURN_CODE 77)
  # ... and on a fresh Debian 12 (debootstrap): apt-get install pulls in
  # every dependency from the archive, then kumicc, oshcc.kumi and kumirun
  # work there. Needs the Debian archive (skips without it).
  add_test(NAME package.fresh
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/package/fresh.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(package.fresh PROPERTIES LABELS "package" TIMEOUT 2400 RUN_SERIAL TRUE
                       SKIP_RETURN_CODE 77 DEPENDS package.smoke)
endif()
