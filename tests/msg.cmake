# msg.cmake -- tests of two-sided messaging (msg/), included by
# tests/CMakeLists.txt; every test here also gets the label msg
# (`ctest -L msg`; `ctest -L msg -LE tcp` for shm only). Each source's
# header comment says what it checks.

# matching and ordering: specific/ANY source x tag, posted order, probe,
# cancel, truncation, bad arguments
kumi_pe_test(msg_match msg_match.c NPES 2 3 4 8)

# the label msg on every test above
get_property(msg_all_tests DIRECTORY PROPERTY TESTS)
foreach(t IN LISTS msg_all_tests)
  if(t MATCHES "^pe\\.msg_")
    set_property(TEST ${t} APPEND PROPERTY LABELS msg)
  endif()
endforeach()
