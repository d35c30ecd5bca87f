/* tcp_calls.c -- the socket engine's system calls per message (internal:
 * the transport's test hook kumi_tcp_test_calls).
 *
 * PEs 0 and 1 play ping-pong with 8-byte kumi_send/kumi_recv, ROUNDS
 * round trips, each counting its engine's calls over the loop. A waiting
 * PE must look at its sockets with poll and recv only what poll says is
 * there: almost no recv that finds nothing (spinning on recv instead made
 * one per look, and holds the socket's lock the sender's delivery then
 * waits behind: transport/tcp/README.md, "Receiving"). Each message costs
 * one write at its sender (the reply leaves as kumi_send returns) and one
 * recv at its receiver; the few more allowed are the messaging layer's
 * credit returns and a recv now and then that races a message. Message
 * contents are checked too. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "tcp/tcp.h"

#include "pe_test.h"

#define ROUNDS 1000

int main(void)
{
    OK(kumi_init());
    struct kumi_tp        *tp = &kumi_rt.tp;
    kumi_team_t            world = kumi_team_world();
    int                    me = kumi_rank();
    struct kumi_tcp_calls  a, b;
    uint64_t               msg[1];

    BARRIER();
    if (me < 2) {
        int peer = 1 - me;

        /* warm-up round trip, outside the count */
        msg[0] = 0;
        if (me == 0) {
            OK(kumi_send(msg, sizeof msg, peer, 7, world));
            OK(kumi_recv(msg, sizeof msg, peer, 7, world, KUMI_STATUS_IGNORE));
        } else {
            OK(kumi_recv(msg, sizeof msg, peer, 7, world, KUMI_STATUS_IGNORE));
            OK(kumi_send(msg, sizeof msg, peer, 7, world));
        }
        OK(kumi_tcp_test_calls(tp, &a));
        for (uint64_t i = 1; i <= ROUNDS; i++) {
            if (me == 0) {
                msg[0] = 2 * i;
                OK(kumi_send(msg, sizeof msg, peer, 7, world));
                OK(kumi_recv(msg, sizeof msg, peer, 7, world, KUMI_STATUS_IGNORE));
                CHECK(msg[0] == 2 * i + 1, "round %" PRIu64 ": got %" PRIu64, i, msg[0]);
            } else {
                OK(kumi_recv(msg, sizeof msg, peer, 7, world, KUMI_STATUS_IGNORE));
                CHECK(msg[0] == 2 * i, "round %" PRIu64 ": got %" PRIu64, i, msg[0]);
                msg[0]++;
                OK(kumi_send(msg, sizeof msg, peer, 7, world));
            }
        }
        OK(kumi_tcp_test_calls(tp, &b));
        uint64_t polls = b.polls - a.polls, epolls = b.epolls - a.epolls;
        uint64_t recvs = b.recvs - a.recvs, empty = b.recvs_empty - a.recvs_empty;
        uint64_t writes = b.writes - a.writes;
        printf("tcp_calls: PE %d, %d messages each way: %" PRIu64 " polls, %" PRIu64
               " epoll_waits, %" PRIu64 " recvs (%" PRIu64 " empty), %" PRIu64 " writes\n",
               me, ROUNDS, polls, epolls, recvs, empty, writes);
        CHECK(empty <= ROUNDS / 20 + 8, "%" PRIu64 " recvs found nothing in %d messages: the "
              "wait spins on recv rather than on poll", empty, ROUNDS);
        CHECK(recvs <= ROUNDS + ROUNDS / 10 + 8, "%" PRIu64 " recvs for %d messages received",
              recvs, ROUNDS);
        CHECK(writes <= ROUNDS + ROUNDS / 10 + 8, "%" PRIu64 " writes for %d messages sent",
              writes, ROUNDS);
        CHECK(writes >= ROUNDS, "%" PRIu64 " writes for %d messages sent: not counted?", writes,
              ROUNDS);
    }
    BARRIER();
    return kumi_finalize();
}
