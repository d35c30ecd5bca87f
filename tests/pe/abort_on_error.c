/* abort_on_error.c -- run with KUMI_ABORT_ON_ERROR=1: the last PE makes a
 * bad call (a put to a PE out of range) while the others wait in a barrier
 * that can never complete. The job must end (kumirun exits with the failed
 * PE's status, 1) instead of hanging, and the message must name the call.
 * If the bad call returns, that PE exits with 42 (kumirun then does too). */
#include <stdio.h>
#include <stdlib.h>

#include <kumi.h>

int main(void)
{
    if (kumi_init() != KUMI_OK)
        return 3;
    int   me = kumi_rank(), npes = kumi_size();
    char *sym = kumi_malloc(64);
    char  buf[8] = "kumi";

    if (sym == NULL)
        return 4;
    if (me == npes - 1) {
        int rc = kumi_put(sym, buf, sizeof(buf), npes);
        fprintf(stderr, "FAIL abort_on_error.c: kumi_put to pe %d returned %d (%s) with "
                "KUMI_ABORT_ON_ERROR=1\n", npes, rc, kumi_strerror(rc));
        return 42;
    }
    int rc = kumi_barrier(kumi_team_world());   /* never completes */
    fprintf(stderr, "abort_on_error.c: pe %d: barrier returned %d (%s)\n", me, rc,
            kumi_strerror(rc));
    return rc == KUMI_OK ? 0 : 5;
}
