/*
 * pe_loop.c -- a job that keeps every PE blocked in kumi calls, for the
 * fault tests (hosts.sh kill/vanish, launcher.rdv_key).
 *
 *   pe_loop SECONDS
 *
 * Rounds of barrier + allreduce until SECONDS have passed on PE 0's clock
 * (the allreduce carries its verdict, so every PE stops in the same
 * round). PE 0 prints "pe_loop: running" after the first round, so a
 * script knows the job is up. A call that fails prints
 * "pe_loop[r]: saw <status>" and exits 1.
 */
#include <kumi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double  secs = argc > 1 ? atof(argv[1]) : 5.0, end;
    int64_t stop = 0, any;
    int     rc, me;

    if (kumi_init() != KUMI_OK)
        return 1;
    me  = kumi_rank();
    end = now_s() + secs;
    for (long round = 0; !stop; round++) {
        int64_t mine = me == 0 && now_s() >= end;

        rc = kumi_barrier(kumi_team_world());
        if (rc == KUMI_OK)
            rc = kumi_allreduce(kumi_team_world(), &any, &mine, 1, KUMI_INT64, KUMI_MAX);
        if (rc != KUMI_OK) {
            printf("pe_loop[%d]: saw %s\n", me, kumi_strerror(rc));
            fflush(stdout);
            return 1;
        }
        stop = any;
        if (round == 0 && me == 0) {
            printf("pe_loop: running\n");
            fflush(stdout);
        }
    }
    return kumi_finalize() == KUMI_OK ? 0 : 1;
}
