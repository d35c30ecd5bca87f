# msg.cmake -- tests of two-sided messaging (msg/), included by
# tests/CMakeLists.txt; every test here also gets the label msg
# (`ctest -L msg`; `ctest -L msg -LE tcp` for shm only). Each source's
# header comment says what it checks.

# matching and ordering: specific/ANY source x tag, posted order, probe,
# cancel, truncation, bad arguments
kumi_pe_test(msg_match msg_match.c NPES 1 2 3 4 8)
# every message by rendezvous (KUMI_MSG_EAGER=0), and large ones streamed
# on shm too (KUMI_MSG_CMA=0: the path taken where the kernel refuses
# cross-memory attach)
# (the parts that receive before they wait for their sends)
kumi_pe_test(msg_match.rdv msg_match.c NPES 2 4 ARGS combos,posted,probe,trunc,errors
  ENV KUMI_MSG_EAGER=0)
kumi_pe_test(msg_match.nocma msg_match.c NPES 2 3 SHM_ONLY ENV KUMI_MSG_CMA=0)  # tcp never uses it
kumi_pe_test(msg_reqs.nocma msg_reqs.c NPES 2 ARGS 64 64 SHM_ONLY ENV KUMI_MSG_CMA=0)

# every size 0..40 bytes exactly, nothing written past it (the small
# copies of transport/shm and msg/ that do without memcpy)
kumi_pe_test(msg_small msg_small.c NPES 1 2 3)

# a receive's wait for one source (shm: polls that source's queue alone)
# still serves the others (a rendezvous from a third PE it depends on) and
# queues the source's other messages as unexpected, in order; policy spin
# (what kumirun picks on a quiet machine): a yielding wait serves
# everything at every turn and would hide a wait that does not
kumi_pe_test(msg_from msg_from.c NPES 2 3 ENV KUMI_WAIT=spin)

# unexpected-message floods: bounded memory (INTERNAL: reads the layer's
# own count), order, no deadlock when everyone sends before receiving;
# small credits (16k) so the credit path runs often. 8 PEs on 2 cores:
# fewer messages
kumi_pe_test(msg_flood msg_flood.c NPES 2 3 4 ARGS 3000 INTERNAL ENV KUMI_MSG_CREDIT=16k)
kumi_pe_test(msg_flood.n8 msg_flood.c NPES 8 ARGS 1000 INTERNAL ENV KUMI_MSG_CREDIT=16k)

# many outstanding requests (waitany, test, waitall) and a 64 MiB
# exchange with every word checked; 8 PEs: fewer requests
kumi_pe_test(msg_reqs msg_reqs.c NPES 2 3 4 ARGS 256 64)
kumi_pe_test(msg_reqs.n8 msg_reqs.c NPES 8 ARGS 64 64)
# waits that yield and sleep on the doorbell (KUMI_WAIT=block): a message's
# arrival must wake its receiver
kumi_pe_test(msg_reqs.block msg_reqs.c NPES 4 ARGS 64 4 ENV KUMI_WAIT=block)
kumi_pe_test(msg_match.block msg_match.c NPES 3 ENV KUMI_WAIT=block)
# hostile input to the handler: random messages shaped not to match real
# requests; nothing crashes, the layer works afterwards (INTERNAL)
kumi_pe_test(msg_wire msg_wire.c NPES 1 2 ARGS 20000 INTERNAL)

# the bindings' entry points (msg/msg.h): contexts never match each other,
# synchronous sends complete only once matched, finish/cancel
kumi_pe_test(msg_ctx msg_ctx.c NPES 1 2 3)

# a PE dies while the others wait in receive, waitall or a rendezvous
# send: KUMI_ERR_PEER naming PE 1 (over tcp the survivor may only have
# seen the connection drop, which names PE 1 too), kumirun exits 137
function(msg_fail_test CASE CALL)
  kumi_pe_test(msg_fail.${CASE} msg_fail.c ${ARGN} ARGS ${CASE} EXPECT_RC 137
    EXPECT_REGEX "kumi\\[0\\]: ${CALL}: (PE 1 failed \\(status 137\\)|lost the connection to PE 1)")
endfunction()
msg_fail_test(recv kumi_recv    NPES 2 3)
msg_fail_test(wait kumi_waitall NPES 2)
msg_fail_test(send kumi_send    NPES 2)

# the label msg on every test above
get_property(msg_all_tests DIRECTORY PROPERTY TESTS)
foreach(t IN LISTS msg_all_tests)
  if(t MATCHES "^pe\\.msg_")
    set_property(TEST ${t} APPEND PROPERTY LABELS msg)
  endif()
endforeach()
