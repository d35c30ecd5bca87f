/*
 * pe_fail.c -- a kumi job in which one PE fails, for fail.sh.
 *
 *   pe_fail MODE VICTIM TOKEN
 *
 * Every PE loops over barriers and kick/wait rounds (the waits a real code
 * blocks in). After a few rounds PE VICTIM fails as MODE says:
 *   kill        raise(SIGKILL)
 *   exit3       exit(3)
 *   nofinalize  return 0 without kumi_finalize
 *   segv        a NULL store (SIGSEGV)
 * The other PEs keep waiting; a wait that returns KUMI_ERR_PEER prints
 * "pe_fail[r]: saw KUMI_ERR_PEER" and exits 1 (kumirun reports the victim,
 * not them). TOKEN only marks the processes so the script can look for
 * orphans. MODE "ok" runs the loop to the end on every PE. MODE "hold"
 * prints "pe_fail[r]: running" on every PE once all have started, then
 * loops until the job is ended from outside (at most 60 s, then exit 1),
 * for fail.sh's SIGINT case.
 */
#include <kumi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: pe_fail MODE VICTIM TOKEN\n");
        return 2;
    }
    const char *mode = argv[1];
    int victim = atoi(argv[2]);

    if (kumi_init() != KUMI_OK)
        return 1;
    int me = kumi_rank(), n = kumi_size();
    size_t flag = kumi_llcm_alloc(8);
    volatile uint64_t *mine = kumi_llcm(flag);

    if (strcmp(mode, "hold") == 0) {
        if (kumi_barrier(kumi_team_world()) != KUMI_OK)
            return 1;
        printf("pe_fail[%d]: running\n", me);
        fflush(stdout);
        for (double t0 = kumi_wtime(); kumi_wtime() - t0 < 60;)
            if (kumi_barrier(kumi_team_world()) != KUMI_OK)
                return 1;
            else
                usleep(1000);   /* pacing, not waiting for anything */
        fprintf(stderr, "pe_fail[%d]: hold: nobody ended the job in 60 s\n", me);
        return 1;
    }

    for (uint64_t round = 1; round <= 200; round++) {
        if (round == 20 && me == victim) {
            if (strcmp(mode, "kill") == 0)
                raise(SIGKILL);
            if (strcmp(mode, "exit3") == 0)
                exit(3);
            if (strcmp(mode, "nofinalize") == 0)
                return 0;
            if (strcmp(mode, "segv") == 0)
                *(volatile int *)(uintptr_t)argc = 0;   /* argc is small: not a valid address */
        }
        int rc = kumi_barrier(kumi_team_world());
        if (rc == KUMI_OK) {
            rc = kumi_kick((me + 1) % n, flag, &round, 8);
            if (rc == KUMI_OK)
                rc = kumi_wait_until_u64(mine, KUMI_CMP_GE, round);
        }
        if (rc == KUMI_ERR_PEER) {
            printf("pe_fail[%d]: saw KUMI_ERR_PEER\n", me);
            fflush(stdout);
            return 1;
        }
        if (rc != KUMI_OK) {
            fprintf(stderr, "pe_fail[%d]: unexpected %s\n", me, kumi_strerror(rc));
            return 1;
        }
        usleep(1000);
    }
    return kumi_finalize() == KUMI_OK ? 0 : 1;
}
