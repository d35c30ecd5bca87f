/*
 * msg_fail.c -- a PE dies (SIGKILL) while the others wait for its
 * messages: their receives and waits must return KUMI_ERR_PEER naming
 * it, never hang; kumirun ends the job with the victim's status (137).
 *
 *   msg_fail recv|wait|send
 *
 * PE 1 is the victim: after a barrier it waits (no kumi call) until every
 * survivor has marked that it left the barrier, and kills itself.
 *   recv  every survivor is in kumi_recv from PE 1
 *   wait  every survivor waits (kumi_waitall) on a receive from PE 1 and
 *         a receive from ANY_SOURCE
 *   send  every survivor is in a rendezvous kumi_send to PE 1 (never
 *         matched: PE 1 posts no receive)
 * A survivor that gets KUMI_ERR_PEER says so and exits 0; kumi's own
 * line names the dead PE (tests/msg.cmake checks PE 0's).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pe_test.h"

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "recv";
    static char buf[1 << 20];
    int         rc;

    OK(kumi_init());
    int me = kumi_rank(), npes = kumi_size();
    kumi_team_t world = kumi_team_world();
    CHECK(npes >= 2, "msg_fail needs at least 2 PEs");
    pe_test_marks_t marks;
    pe_test_marks_begin(&marks);
    BARRIER();
    if (me == 1) {   /* dies once every other PE left the barrier (its mark) */
        pe_test_wait_marks(&marks, me, 60);
        raise(SIGKILL);
    }
    pe_test_mark(&marks);
    if (strcmp(c, "recv") == 0) {
        rc = kumi_recv(buf, 64, 1, 0, world, NULL);
    } else if (strcmp(c, "wait") == 0) {
        kumi_request_t r[2];
        OK(kumi_irecv(buf, 64, 1, 0, world, &r[0]));
        OK(kumi_irecv(buf + 64, 64, KUMI_ANY_SOURCE, 0, world, &r[1]));
        rc = kumi_waitall(2, r, KUMI_STATUSES_IGNORE);
    } else if (strcmp(c, "send") == 0) {
        rc = kumi_send(buf, sizeof buf, 1, 0, world);
    } else {
        CHECK(0, "usage: msg_fail recv|wait|send (got '%s')", c);
    }
    CHECK(rc == KUMI_ERR_PEER, "%s returned %s", c, kumi_strerror(rc));
    fprintf(stderr, "msg_fail: PE %d: %s returned KUMI_ERR_PEER as it should\n", me, c);
    return 0;
}
