# dsm.cmake -- tests of the software DSM (dsm/), included by
# tests/CMakeLists.txt. Every test here also gets the label dsm
# (`ctest -L dsm`; `ctest -L dsm -LE tcp` for shm only). The programs
# include dsm/check.h (the inline access checks kumicc's translator
# emits), hence INTERNAL. Each source's header comment says what it checks.
#
# Time: the litmus and stress programs stop at an iteration count or a
# time limit (their last arguments), whichever comes first, so a slow
# machine or a sanitizer build runs fewer rounds, not longer. tcp runs
# get fewer iterations (socket round trips are ~10x shm's).

# API: allocation from every PE, calloc, block sizes, 4 KiB blocks, remote
# free and reuse, flag-valued data, unaligned and line-crossing accesses,
# acquire, stats, bad arguments
kumi_pe_test(dsm_api dsm_api.c NPES 1 2 3 4 TCP_NPES 2 3 INTERNAL)
# one PE keeping its checks (KUMI_DSM_SOLO=0): every part still holds
kumi_pe_test(dsm_api_nosolo dsm_api.c NPES 1 SHM_ONLY INTERNAL ENV KUMI_DSM_SOLO=0)
# a full region (KUMI_DSM_SIZE=8m): NULL and a message naming
# KUMI_DSM_SIZE; remote frees make room again
kumi_pe_test(dsm_api_exhaust dsm_api.c NPES 1 2 4 TCP_NPES 2 ARGS exhaust INTERNAL
  ENV KUMI_DSM_SIZE=8m)

# Litmus tests of sequential consistency: dsm_litmus TEST MAX_ITERS SECONDS.
# 2 PEs play the roles; with 4 (shm) or 3 (tcp) PEs the others are homes
# too, so misses are forwarded (3 hops). IRIW needs 4 PEs. Each run prints
# its outcome histogram and fails under 640 iterations or when it saw too
# few distinct outcomes (see dsm_litmus.c).
foreach(t mp sb lb 2+2w corr cowr)
  kumi_pe_test(dsm_litmus.${t} dsm_litmus.c NPES 2 4 TCP_NPES 2 3
    ARGS ${t} 20000 1.5 TCP_ARGS ${t} 4000 1.5 INTERNAL)
endforeach()
kumi_pe_test(dsm_litmus.iriw dsm_litmus.c NPES 4 ARGS iriw 20000 1.5
  TCP_ARGS iriw 4000 1.5 INTERNAL)
# the negative control: 100 iterations are too few to prove anything
kumi_pe_test(dsm_litmus.too_few dsm_litmus.c NPES 2 ARGS mp 100 1.5 INTERNAL SHM_ONLY
  EXPECT_RC 1 EXPECT_REGEX "mp: only [0-9]+ iterations .*at least 640 needed")

# KUMI_DSM_STATS=1: the stats line says where a PE's time went -- the wall
# time of its misses (miss_us) and how many of its kumi_dsm_poll calls (the
# litmus spins poll) found a request to serve (polls, polls_served)
kumi_pe_test(dsm_litmus.stats dsm_litmus.c NPES 2 SHM_ONLY ARGS mp 2000 0.5 INTERNAL
  ENV KUMI_DSM_STATS=1 EXPECT_RC 0
  EXPECT_REGEX "kumi: dsm stats PE [01]: .* miss_us=[1-9][0-9]* polls=[1-9][0-9]* polls_served=[1-9][0-9]*$")

# Stress: counters under DSM and heap mutexes, lock fairness, whole-block
# slots never torn, a random mix with false sharing; each part at most
# 1.5 s (fair: two runs), so <= ~8 s even at 8 PEs on 2 cores
kumi_pe_test(dsm_stress dsm_stress.c NPES 2 4 8 TCP_NPES 2 4
  ARGS all 20000 1.5 TCP_ARGS all 5000 1.5 INTERNAL)

# Failures: PE 1 is SIGKILLed while PE 0 needs DSM data it holds (owner),
# homes (home), shares (sharer) or a DSM mutex it holds (mutex). kumirun
# exits with the victim's status (137); PE 0's DSM call must have returned
# KUMI_ERR_PEER naming PE 1 before kumirun ended the job (its line, not a
# hang cut short by kumirun). Over tcp the survivor may only have seen the
# connection drop, which names PE 1 too.
function(dsm_fail_test CASE CALL)
  kumi_pe_test(dsm_fail.${CASE} dsm_fail.c ${ARGN} ARGS ${CASE} INTERNAL EXPECT_RC 137
    EXPECT_REGEX "kumi\\[0\\]: ${CALL}: (PE 1 failed \\(status 137\\)|lost the connection to PE 1)")
endfunction()
dsm_fail_test(owner      kumi_dsm_read   NPES 2 3)
dsm_fail_test(owner_load kumi_dsm_load   NPES 2)   # translated code: the miss ends the job
dsm_fail_test(home       kumi_dsm_write  NPES 2 3)
dsm_fail_test(sharer     kumi_dsm_write  NPES 2)
dsm_fail_test(mutex      kumi_mutex_lock NPES 2)

# Placement (dsm_place.c): block-distributed allocations homed part k at
# PE k, free/realloc from any PE, the stencil's misses and messages per PE
# homed at PE 0 vs distributed (printed); KUMI_DSM_DIST_MIN=0 leaves
# kumi_dsm_malloc local; the OpenMP heap's big object (after its header's
# block) in parts counted from the object, each PE's static share written
# without a miss; a full share (KUMI_DSM_SIZE=8m). tcp: the
# stencil's arrays are 256 KiB, not 1 MiB (homed at PE 0 they cost a
# socket round trip per line)
kumi_pe_test(dsm_place dsm_place.c NPES 1 2 3 4 TCP_NPES 2 3 4 INTERNAL
  TCP_ARGS all 32768)
# line-sized parts (the default block is 4 KiB)
kumi_pe_test(dsm_place_b64 dsm_place.c NPES 3 TCP_NPES 2 INTERNAL ARGS all 32768
  ENV KUMI_DSM_DIST_BLOCK=64)
kumi_pe_test(dsm_place_off dsm_place.c NPES 2 4 TCP_NPES 2 ARGS homes INTERNAL
  ENV KUMI_DSM_DIST_MIN=0)
kumi_pe_test(dsm_place_exhaust dsm_place.c NPES 1 2 4 TCP_NPES 2 ARGS exhaust INTERNAL
  ENV KUMI_DSM_SIZE=8m)

# the label dsm on every test above
get_property(dsm_all_tests DIRECTORY PROPERTY TESTS)
foreach(t IN LISTS dsm_all_tests)
  if(t MATCHES "^pe\\.dsm_")
    set_property(TEST ${t} APPEND PROPERTY LABELS dsm)
  endif()
endforeach()
