/*
 * team_ctx_threads.c -- team contexts from many threads at once
 * (SHMEM_THREAD_MULTIPLE): 8 threads per PE each make contexts on a split
 * team (the world in reverse), put through them to team ranks, destroy
 * some; shmem_team_destroy destroys the ones left, and a second team is
 * left alive for shmem_finalize. Run under TSan too.
 */
#include <pthread.h>

#include "coll_test.h"

#define NTHREADS 8
#define ROUNDS   50

static shmem_team_t team;
static long         slots[NTHREADS];   /* written by my team neighbour */

static void *worker(void *arg)
{
    int   id = (int)(intptr_t)arg, r = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
    shmem_ctx_t kept = SHMEM_CTX_INVALID;

    for (int i = 0; i < ROUNDS; i++) {
        shmem_ctx_t c;
        CHECK(shmem_team_create_ctx(team, SHMEM_CTX_PRIVATE, &c) == 0, "thread %d: ctx", id);
        shmem_ctx_long_p(c, &slots[id], (long)(r * 1000 + i), (r + 1) % n);
        shmem_ctx_quiet(c);
        if (i == ROUNDS / 2 && kept == SHMEM_CTX_INVALID)
            kept = c;                    /* left for shmem_team_destroy */
        else
            shmem_ctx_destroy(c);
    }
    return NULL;
}

int main(void)
{
    pthread_t    th[NTHREADS];
    shmem_team_t other;
    shmem_ctx_t  c;
    int          provided, n;

    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init");
    n = shmem_n_pes();
    if (provided != SHMEM_THREAD_MULTIPLE) {
        if (shmem_my_pe() == 0)
            printf("team_ctx_threads: SHMEM_THREAD_MULTIPLE not provided, skipped\n");
        shmem_finalize();
        return 0;
    }
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &team) == 0, "split");
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) == 0, "thread");
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    CHECK(shmem_team_sync(team) == 0, "sync");
    {
        int r = shmem_team_my_pe(team), from = (r + n - 1) % n;
        for (int i = 0; i < NTHREADS; i++)
            CHECK(slots[i] == (long)(from * 1000 + ROUNDS - 1), "slot %d = %ld", i, slots[i]);
    }
    shmem_team_destroy(team);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &other) == 0, "split");
    CHECK(shmem_team_create_ctx(other, 0, &c) == 0, "ctx");
    shmem_finalize();
    return 0;
}
