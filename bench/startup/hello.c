/*
 * hello.c -- the job bench/startup/startup.sh times: start-up, one
 * barrier, finalize. Each PE checks that it sees the job's size the
 * launcher was asked for (startup.sh passes it), so a launcher that
 * started N singletons instead of one job of N fails the measurement.
 */
#include <stdio.h>
#include <stdlib.h>

#include "kumi.h"

int main(int argc, char **argv)
{
    int want = argc > 1 ? atoi(argv[1]) : 0;
    int rc   = kumi_init();

    if (rc != KUMI_OK) {
        fprintf(stderr, "kumi_init: %s\n", kumi_strerror(rc));
        return 1;
    }
    if (want > 0 && kumi_size() != want) {
        fprintf(stderr, "PE %d: the job has %d PEs, not %d\n", kumi_rank(), kumi_size(), want);
        return 1;
    }
    rc = kumi_barrier(kumi_team_world());
    if (rc != KUMI_OK) {
        fprintf(stderr, "kumi_barrier: %s\n", kumi_strerror(rc));
        return 1;
    }
    return kumi_finalize() == KUMI_OK ? 0 : 1;
}
