/* tcp_bad_frame.c -- a malformed frame over a real, authenticated
 * connection (internal: the transport's test hook). PE 1 sends PE 0 a put
 * beyond the heap; PE 0 must name PE 1 and its address, and every PE's
 * barrier must return KUMI_ERR_PEER instead of hanging. Exits 1 on that
 * expected failure (tests/tcp.cmake checks status and message), 2 when no
 * failure is seen. */
#include <stdio.h>

#include "rt.h"
#include "tcp/tcp.h"

#include "pe_test.h"

int main(void)
{
    OK(kumi_init());
    int    me = kumi_rank();
    double t0;

    BARRIER();
    if (me == 1)
        CHECK(kumi_tcp_test_bad_frame(&kumi_rt.tp, 0) == KUMI_OK, "test hook");
    t0 = kumi_wtime();
    while (kumi_wtime() - t0 < 20) {
        int rc = kumi_barrier(kumi_team_world());
        if (rc != KUMI_OK) {
            CHECK(rc == KUMI_ERR_PEER, "barrier: %s", kumi_strerror(rc));
            fprintf(stderr, "tcp_bad_frame: pe %d: barrier failed as expected\n", me);
            return 1;
        }
    }
    fprintf(stderr, "FAIL tcp_bad_frame: pe %d saw no failure in 20 s\n", me);
    return 2;
}
