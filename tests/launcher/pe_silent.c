/*
 * pe_silent.c -- a PE that falls silent while alive: PE 1 stops itself
 * (SIGSTOP) after kumi_init, so its rendezvous channel says nothing.
 *
 *   pe_silent SEC   PE 0 continues PE 1 after SEC seconds; both then meet
 *                   in a barrier and finalize (the job must succeed)
 *   pe_silent 0     nobody continues PE 1; PE 0 waits in a barrier (the
 *                   job must end, kumirun naming PE 1)
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kumi.h"

#define OK(call)                                                                    \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != KUMI_OK) {                                                       \
            fprintf(stderr, "pe_silent: %s: %s\n", #call, kumi_strerror(rc_));      \
            return 1;                                                               \
        }                                                                           \
    } while (0)

int main(int argc, char **argv)
{
    double      secs = argc > 1 ? atof(argv[1]) : 3.0;
    int64_t     mine, pids[2];
    kumi_team_t w;

    OK(kumi_init());
    w    = kumi_team_world();
    mine = (int64_t)getpid();
    if (kumi_size() != 2) {
        fprintf(stderr, "pe_silent: needs 2 PEs\n");
        return 1;
    }
    OK(kumi_allgather(w, pids, &mine, sizeof(mine)));
    if (kumi_rank() == 1) {
        raise(SIGSTOP);
    } else if (secs > 0) {
        usleep((useconds_t)(secs * 1e6));
        kill((pid_t)pids[1], SIGCONT);
    }
    OK(kumi_barrier(w));
    return kumi_finalize() == KUMI_OK ? 0 : 1;
}
