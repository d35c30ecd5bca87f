/*
 * lock_test_spin.c -- threads that spin on shmem_test_lock while the lock
 * is held give up their core (SHMEM_THREAD_MULTIPLE): PE 0's main thread
 * holds the lock for HOLD seconds while SPINNERS threads of every PE call
 * shmem_test_lock in a loop (PE 0's find it held by their own PE, the
 * others find it held by PE 0). Once a thread has failed for a few
 * milliseconds each failed call naps (lock.c), so in the window from 20 ms
 * to 120 ms of the hold a thread makes at most about 1000 calls; one that
 * spins makes that many in well under a millisecond of CPU. A loaded
 * machine only lowers the counts (a thread off its core makes no calls),
 * so the bound never fails a correct build. After the hold every spinner
 * still gets the lock, once each.
 */
#include <pthread.h>

#include "amo_test.h"

#define SPINNERS 3
#define HOLD     0.15
#define WIN_FROM 0.02
#define WIN_TO   0.12
#define MAX_CALLS 3000

static long   lock;
static int    taken;          /* on PE 0: spinners that got the lock */
static double start;
static long   calls[SPINNERS];

static void *spinner(void *arg)
{
    long t = (long)arg, n = 0;

    while (shmem_test_lock(&lock) != 0) {
        double now = amo_test_now() - start;
        n += now >= WIN_FROM && now < WIN_TO;
    }
    shmem_int_atomic_inc(&taken, 0);
    shmem_clear_lock(&lock);
    calls[t] = n;
    return NULL;
}

int main(void)
{
    pthread_t th[SPINNERS];
    int       provided = -1, me;

    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "shmem_init_thread");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    me = shmem_my_pe();
    if (me == 0)
        shmem_set_lock(&lock);
    shmem_barrier_all();
    start = amo_test_now();
    for (long t = 0; t < SPINNERS; t++)
        CHECK(pthread_create(&th[t], NULL, spinner, (void *)t) == 0, "pthread_create");
    if (me == 0) {
        struct timespec hold = { 0, (long)(HOLD * 1e9) };
        nanosleep(&hold, NULL);
        CHECK(taken == 0, "%d spinners took a held lock", taken);
        shmem_clear_lock(&lock);
    }
    for (int t = 0; t < SPINNERS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < SPINNERS; t++)
        CHECK(calls[t] <= MAX_CALLS, "thread %d called shmem_test_lock %ld times in %.0f ms "
              "of a held lock (at most %d: it should nap)", t, calls[t],
              1e3 * (WIN_TO - WIN_FROM), MAX_CALLS);
    shmem_barrier_all();
    if (me == 0)
        CHECK(taken == SPINNERS * shmem_n_pes(), "%d of %d spinners got the lock", taken,
              SPINNERS * shmem_n_pes());
    shmem_finalize();
    return 0;
}
