/*
 * lock_threads.c -- locks, waits and atomics from many threads of each PE
 * (SHMEM_THREAD_MULTIPLE). THREADS threads per PE:
 *   - all take the same lock (set_lock and test_lock loops) and increment
 *     a counter on PE 0 with a get and a put: the total must be exact, and
 *     an atomic "inside" count never sees two holders (the threads of one
 *     PE take turns as well as the PEs);
 *   - thread t waits (wait_until, wait_until_any) on its own flags, which
 *     thread t of the left neighbour sets, round after round, while the
 *     other threads lock, put and increment: a thread blocked in a wait
 *     never stops another from making progress;
 *   - all fetch_inc one word on PE 0: every value once.
 *
 * argv[1]: iterations per thread (default 100).
 */
#include <pthread.h>

#include "amo_test.h"

#define THREADS 4

static long lock;
static int  counter, inside;
static long flags[THREADS][2];
static long ticket;
static int  me, npes, iters;
static long fetched[THREADS][1000];

static void *worker(void *arg)
{
    int t = (int)(long)arg, right = (me + 1) % npes;

    for (int i = 0; i < iters; i++) {
        /* lock */
        if ((i + t) % 4 == 0)
            while (shmem_test_lock(&lock) != 0)
                ;
        else
            shmem_set_lock(&lock);
        CHECK(shmem_int_atomic_fetch_inc(&inside, 0) == 0, "two holders (thread %d)", t);
        int v = shmem_int_g(&counter, 0);
        shmem_int_p(&counter, v + 1, 0);
        CHECK(shmem_int_atomic_fetch_add(&inside, -1, 0) == 1, "inside count");
        shmem_clear_lock(&lock);

        /* round i: set my partner's flag i + 1, wait for mine */
        shmem_long_atomic_set(&flags[t][i & 1], i + 1, right);
        if (i & 1) {
            size_t k = shmem_long_wait_until_any(flags[t], 2, (const int[2]){ 1, 0 },
                                                 SHMEM_CMP_GE, i + 1);
            CHECK(k == 1, "wait_until_any: %zu", k);
        } else {
            shmem_long_wait_until(&flags[t][0], SHMEM_CMP_GE, i + 1);
        }

        fetched[t][i] = shmem_long_atomic_fetch_inc(&ticket, 0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[THREADS];
    int       provided = -1;

    iters = argc > 1 ? atoi(argv[1]) : 100;
    if (iters > 1000)
        iters = 1000;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "shmem_init_thread");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= AMO_TEST_MAX_PES, "too many PEs");

    for (long t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)t) == 0, "pthread_create");
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();

    if (me == 0)
        CHECK(counter == npes * THREADS * iters, "counter %d, expected %d", counter,
              npes * THREADS * iters);
    /* every ticket once: each PE checks the ones it fetched are distinct,
     * PE 0 that the count is right (distinct across PEs: every PE's
     * tickets summed equal the sum 0 .. total-1) */
    long long sum = 0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < iters; i++) {
            sum += fetched[t][i];
            for (int u = 0; u <= t; u++)
                for (int j = 0; j < (u == t ? i : iters); j++)
                    CHECK(fetched[u][j] != fetched[t][i], "ticket %ld twice", fetched[t][i]);
        }
    amo_test_gather(&sum, sizeof sum);
    if (me == 0) {
        long long total = 0, n = (long long)npes * THREADS * iters;
        for (int p = 0; p < npes; p++)
            total += *(const long long *)amo_test_slot(p);
        CHECK(ticket == n && total == n * (n - 1) / 2, "tickets: %ld, sum %lld", ticket,
              total);
        printf("lock_threads: %d PEs x %d threads x %d iterations, exact\n", npes, THREADS,
               iters);
    }
    shmem_finalize();
    return 0;
}
