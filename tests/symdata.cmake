# tests/symdata.cmake -- kumi_init_ex(KUMI_INIT_SYMMETRIC_DATA): globals and
# statics as put/get/atomic/signal/wait targets, kumi_ptr on them, and the
# extended atomics (and/or/xor, fetching forms, fetch, set). Included from
# tests/CMakeLists.txt (kumi_pe_test is defined there). Each run takes well
# under a second here.

# every operation on .data, .bss, a multi-page array and a struct member;
# non-symmetric addresses still fail naming both ranges
kumi_pe_test(static_data  static_data.c  NPES 1 2 4)
# the same with libkumi linked in statically: kumi's own state is inside
# the range kumi_init moves
kumi_pe_test(static_data_linked static_data_linked.c NPES 2 4 INTERNAL)
# without the flag static data is rejected (the message names the flag);
# KUMI_SYMMETRIC_DATA=on|off overrides what the program asks
kumi_pe_test(static_data_off static_data.c NPES 2 ARGS off)
kumi_pe_test(static_data_forced_on static_data.c NPES 2 ARGS forced_on
  ENV KUMI_SYMMETRIC_DATA=on)
kumi_pe_test(static_data_forced_off static_data.c NPES 2 ARGS forced_off
  ENV KUMI_SYMMETRIC_DATA=off)
# PEs that disagree on the flag: kumi_init fails on every PE with one line
# (shm compares the segments first, tcp the flags)
kumi_pe_test(static_data_mixed static_data.c NPES 2 3 ARGS mixed
  EXPECT_RC 1 EXPECT_REGEX
  "kumi\\[[0-9]+\\]: (shm: static data of PE [0-9]+ is [0-9]+ bytes, mine [0-9]+|kumi_init: the PEs started with different flags)")

# the extended atomics on the heap, everyone on the same words at once
kumi_pe_test(atomics_ext  atomics_ext.c  NPES 1 2 3 4 ARGS 3000 TCP_ARGS 100)
kumi_pe_test(atomics_ext_full atomics_ext.c NPES 8 ARGS 1000 TCP_ARGS 50)
foreach(t pe.atomics_ext_full.n8 pe.atomics_ext_full.tcp.n8)
  get_test_property(${t} LABELS labels)
  set_tests_properties(${t} PROPERTIES LABELS "${labels};shmem-full")
endforeach()
