# tests/shmem/wrapper.cmake -- oshcc, oshc++, oshrun of the build tree
# (wrapper_check.sh): --showme forms, pass-through flags, SHMEM_CC/CXX, a C
# and a C++ program built by them and run with oshrun, oshrun's options and
# exit status. The C++ program also runs as a normal test at every PE count.
# Not in sanitizer builds: oshcc adds no sanitizer flags, so its programs
# cannot load a sanitized libkumi ("ASan runtime does not come first"); the
# wrappers are shell scripts, which a sanitizer would not check anyway.
if(NOT KUMI_SANITIZE)
  add_test(NAME shmem.wrapper.tools
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/shmem/wrapper_check.sh ${CMAKE_BINARY_DIR}/bin
            ${PROJECT_SOURCE_DIR})
  set_tests_properties(shmem.wrapper.tools PROPERTIES LABELS "shmem" TIMEOUT 180)
else()
  kumi_skipped_test(shmem.wrapper.tools "shmem"
    "a sanitizer build (KUMI_SANITIZE=${KUMI_SANITIZE}): oshcc's programs cannot load a sanitized libkumi")
endif()
kumi_shmem_test(core_cxx core_cxx.cc)
