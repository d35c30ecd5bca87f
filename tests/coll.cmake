# Collectives: teams, barrier algorithms, reductions, broadcast, gathers.
# (included from tests/CMakeLists.txt; kumi_pe_test is defined there)

# every collective x type x op x count on world, strided, listed and
# overlapping teams (3 elements: three 16-byte values on the small paths,
# 7 of them on the large one)
kumi_pe_test(coll          coll.c NPES 1 2 3 4 8 ARGS 0 1 3 7 1000)
# (the first six types: the others' blocks are covered by coll_scratch*,
# whose 16k scratch makes blocks of 8k)
kumi_pe_test(coll_big      coll.c NPES 2 ARGS --types old 1000000)
# over tcp at 8 PEs on 2 cores this one takes 40 s (every rank pair moves
# megabytes through sockets): tcp runs it at 3 and 4, coll.tcp.n8 covers 8
kumi_pe_test(coll_big_sub  coll.c NPES 3 4 8 TCP_NPES 3 4 ARGS --big-subset 1000000)
kumi_pe_test(coll_block    coll.c NPES 4 ARGS 0 7 1000 ENV KUMI_WAIT=block)
kumi_pe_test(coll_naive    coll.c NPES 3 ARGS 7 1000 ENV KUMI_ALLTOALL=naive)
kumi_pe_test(coll_scratch  coll.c NPES 3 ARGS 1000 100000 ENV KUMI_COLL_SCRATCH=16k)
# buffers in the symmetric heap: the large collectives read peers' sources
# in place (coll.h, streams; reduce.c), no scratch ring
kumi_pe_test(coll_heap     coll.c NPES 2 3 4 ARGS --heap 0 7 1000 100000)
kumi_pe_test(coll_scratch_new coll.c NPES 2 4 ARGS --types new 30000
  ENV KUMI_COLL_SCRATCH=20k)   # the least for 4 PEs (4 KiB each + flags)
# teams other than the world without a scratch area (only the world's
# exists, or one more: the first team takes it, the others not): large
# collectives in small pieces, every type
kumi_pe_test(coll_noscratch coll.c NPES 2 3 4 ARGS 7 1000 ENV KUMI_COLL_SCRATCH_AREAS=1)
kumi_pe_test(coll_onescratch coll.c NPES 3 ARGS 7 1000 ENV KUMI_COLL_SCRATCH_AREAS=2)
# each small-reduction algorithm where auto would not pick it on this
# machine (auto: the shared line where the values fit and PEs spin, xchg
# when oversubscribed, rd on 2 and 4 PEs otherwise); rd on 3 and 8, xchg on
# 9, line on 8 PEs and over tcp (not mapped) run their fallback, the tree;
# line with KUMI_WAIT=block (the auto choice only where PEs spin)
kumi_pe_test(coll_small_tree coll.c NPES 2 3 4 8 ARGS 0 1 3 7 ENV KUMI_REDUCE_SMALL=tree)
kumi_pe_test(coll_small_rd   coll.c NPES 2 3 4 8 ARGS 0 1 3 7 ENV KUMI_REDUCE_SMALL=rd)
kumi_pe_test(coll_small_xchg coll.c NPES 2 3 5 8 9 ARGS 0 1 3 7 TCP_NPES 2 5 8
  ENV KUMI_REDUCE_SMALL=xchg)
kumi_pe_test(coll_small_line coll.c NPES 2 3 4 8 ARGS 0 1 3 7 TCP_NPES 2 3
  ENV KUMI_REDUCE_SMALL=line)
kumi_pe_test(coll_small_line_block coll.c NPES 2 3 ARGS 0 1 3 7 SHM_ONLY
  ENV KUMI_REDUCE_SMALL=line KUMI_WAIT=block)

# small collectives of every kind interleaved, fresh values each round;
# at 2 PEs with each small-reduction algorithm (auto: the line for one
# 8-byte value, rd for more)
foreach(algo auto tree rd xchg line)
  kumi_pe_test(coll_mix_${algo} coll_mix.c NPES 2 ARGS 200000 TCP_ARGS 3000
    ENV KUMI_REDUCE_SMALL=${algo})
endforeach()
kumi_pe_test(coll_mix coll_mix.c NPES 3 4 8 ARGS 3000 TCP_ARGS 500)

# 10^5 back-to-back barriers per algorithm (fewer when 8 PEs share 2 cores;
# over tcp, where a barrier is socket round trips, 5000 and 1000)
foreach(algo tree dissem counter mcast a2a word auto)
  kumi_pe_test(barrier_${algo} barrier_storm.c NPES 2 4 ARGS 100000 TCP_ARGS 5000
    ENV KUMI_BARRIER=${algo})
  kumi_pe_test(barrier8_${algo} barrier_storm.c NPES 8 ARGS 10000 TCP_ARGS 1000
    ENV KUMI_BARRIER=${algo})
  # the rich checks (puts, kicks, atomics visible after the barrier)
  kumi_pe_test(barrier_vis_${algo} barrier.c NPES 3 5 ENV KUMI_BARRIER=${algo})
endforeach()
# SHM_ONLY: the polled release reads team rank 0's word through mapped
# memory; where peers are not mapped (tcp) it is the kick release, which
# barrier_tree already runs
kumi_pe_test(barrier_poll  barrier_storm.c NPES 2 4 ARGS 100000 SHM_ONLY
  ENV KUMI_BARRIER=tree KUMI_TREE_RELEASE=poll)
# a2a and word on more than 8 PEs: their fallback, dissemination (word over
# tcp, where rank 0's word is not mapped: a2a, which barrier_word runs)
kumi_pe_test(barrier9_a2a barrier_storm.c NPES 9 ARGS 2000 TCP_ARGS 300 ENV KUMI_BARRIER=a2a)
kumi_pe_test(barrier9_word barrier_storm.c NPES 9 ARGS 2000 SHM_ONLY ENV KUMI_BARRIER=word)
# word when waiters may sleep (members' kicks ring rank 0's doorbell)
kumi_pe_test(barrier_word_block barrier_storm.c NPES 3 ARGS 20000 SHM_ONLY
  ENV KUMI_BARRIER=word KUMI_WAIT=block)
kumi_pe_test(barrier_radix2 barrier_storm.c NPES 7 ARGS 10000 TCP_ARGS 1000
  ENV KUMI_BARRIER=tree KUMI_TREE_RADIX=2)

# making teams (tests/pe/team.c; INTERNAL: it reads the teams' slots):
# kumi_team_split with colors, keys and members left out, then collectives
# on the new teams; negative and zero strides; the limit on teams alive at
# once with the SHMEM binding's LLCM (2m: 127 besides the world), every PE
# failing the same call, destroy and again
kumi_pe_test(team_split   team.c NPES 2 3 4 5 6 7 8 ARGS split INTERNAL)
kumi_pe_test(team_strided team.c NPES 1 2 3 4 ARGS strided INTERNAL)
kumi_pe_test(team_limits  team.c NPES 2 4 ARGS limits INTERNAL ENV KUMI_LLCM_SIZE=2m)

# `ctest -L coll`: every test above (collectives and teams)
get_property(kumi_coll_tests DIRECTORY PROPERTY TESTS)
foreach(t IN LISTS kumi_coll_tests)
  if(t MATCHES "^pe\\.(coll|team|barrier)")
    set_property(TEST ${t} APPEND PROPERTY LABELS coll)
  endif()
endforeach()
