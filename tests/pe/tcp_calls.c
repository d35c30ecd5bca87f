/* tcp_calls.c -- the socket engine's system calls per message (internal:
 * the transport's test hook kumi_tcp_test_calls).
 *
 * PEs 0 and 1 play ping-pong with 8-byte kumi_send/kumi_recv, ROUNDS
 * round trips, each counting its engine's calls over the loop. Each
 * message costs one write at its sender (the reply leaves as kumi_send
 * returns) and one recv that finds it at its receiver; the few more
 * allowed are the messaging layer's credit returns. With 2 PEs, kumi_recv
 * returns as soon as its message is in: no recv that finds nothing comes
 * between the one that read the message and the return (the wait loop
 * serves the transport between two tests of the request, and the test
 * after a pass that delivered it must not make another: msg/api.c,
 * any_ready_wait; it did for about half the messages: 436 and 458 of
 * 1000). With more PEs (not run: the round that reads the message reads
 * the other sockets too) that check is left out. Message contents are
 * checked too. */
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
    struct kumi_tcp_calls  a, b, r;
    uint64_t               trailing = 0;
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
                OK(kumi_tcp_test_calls(tp, &r));
                trailing += r.trailing;
                CHECK(msg[0] == 2 * i + 1, "round %" PRIu64 ": got %" PRIu64, i, msg[0]);
            } else {
                OK(kumi_recv(msg, sizeof msg, peer, 7, world, KUMI_STATUS_IGNORE));
                OK(kumi_tcp_test_calls(tp, &r));
                trailing += r.trailing;
                CHECK(msg[0] == 2 * i, "round %" PRIu64 ": got %" PRIu64, i, msg[0]);
                msg[0]++;
                OK(kumi_send(msg, sizeof msg, peer, 7, world));
            }
        }
        OK(kumi_tcp_test_calls(tp, &b));
        uint64_t epolls = b.epolls - a.epolls, recvs = b.recvs - a.recvs;
        uint64_t empty = b.recvs_empty - a.recvs_empty, writes = b.writes - a.writes;
        printf("tcp_calls: PE %d, %d messages each way: %" PRIu64 " epoll_waits, %" PRIu64
               " recvs (%" PRIu64 " empty; %" PRIu64 " after the message, before kumi_recv "
               "returned), %" PRIu64 " writes\n", me, ROUNDS, epolls, recvs, empty, trailing,
               writes);
        CHECK(recvs - empty <= ROUNDS + ROUNDS / 10 + 8, "%" PRIu64 " recvs found something "
              "for %d messages received", recvs - empty, ROUNDS);
        CHECK(writes <= ROUNDS + ROUNDS / 10 + 8, "%" PRIu64 " writes for %d messages sent",
              writes, ROUNDS);
        CHECK(kumi_size() > 2 || trailing <= ROUNDS / 20 + 8, "%" PRIu64 " recvs that found "
              "nothing came after %d messages were read, before kumi_recv returned",
              trailing, ROUNDS);
        CHECK(writes >= ROUNDS, "%" PRIu64 " writes for %d messages sent: not counted?", writes,
              ROUNDS);
    }
    BARRIER();
    return kumi_finalize();
}
