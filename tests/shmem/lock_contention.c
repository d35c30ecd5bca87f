/*
 * lock_contention.c -- shmem_set_lock, shmem_test_lock and shmem_clear_lock
 * under contention: every PE increments counters on PE 0 with a plain get
 * and put (no atomics) inside the critical section, many times, and the
 * totals must be exact; an atomic "inside" count on PE 0 must never see two
 * holders. Locks on the symmetric heap, in static data and a global; one
 * lock all PEs share and four that pairs of PEs share; set_lock and
 * test_lock loops mixed. shmem_clear_lock must complete the holder's puts
 * before the next holder's get, or updates are lost.
 *
 * argv[1]: iterations per PE (default 300).
 */
#include "amo_test.h"

static long lock_static;
long        lock_global;
static long locks4[4];
static int  counter, inside, counters4[4];

static int me, npes;

static void critical(int *ctr)
{
    CHECK(shmem_int_atomic_fetch_inc(&inside, 0) == 0, "two PEs hold the lock");
    int v = shmem_int_g(ctr, 0);
    shmem_int_p(ctr, v + 1, 0);
    /* no quiet here: shmem_clear_lock must complete the put */
    CHECK(shmem_int_atomic_fetch_add(&inside, -1, 0) == 1, "inside count");
}

static void run(long *lock, const char *where, int iters)
{
    if (me == 0)
        counter = 0;
    shmem_barrier_all();
    for (int i = 0; i < iters; i++) {
        if ((i + me) % 3 == 0) {
            long spins = 0;
            while (shmem_test_lock(lock) != 0)
                spins++;
        } else {
            shmem_set_lock(lock);
        }
        critical(&counter);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter == npes * iters, "%s: counter %d, expected %d", where, counter,
              npes * iters);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 300;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    long *heap_lock = shmem_calloc(1, sizeof(long));
    CHECK(heap_lock != NULL, "shmem_calloc");
    run(heap_lock, "heap", iters);
    run(&lock_static, "static", iters);
    run(&lock_global, "global", iters);
    run(heap_lock, "heap again", iters);   /* a lock is reusable */

    /* test_lock on a lock this PE holds: set, 1, nothing changes */
    if (me == 0) {
        shmem_set_lock(heap_lock);
        CHECK(shmem_test_lock(heap_lock) == 1, "test_lock on a held lock");
        shmem_clear_lock(heap_lock);
        CHECK(shmem_test_lock(heap_lock) == 0, "test_lock on a free lock");
        shmem_clear_lock(heap_lock);
    }
    shmem_barrier_all();

    /* four locks, PE p uses lock p % 4 and its own counter */
    for (int i = 0; i < iters; i++) {
        long *l = &locks4[me % 4];
        shmem_set_lock(l);
        int v = shmem_int_g(&counters4[me % 4], 0);
        shmem_int_p(&counters4[me % 4], v + 1, 0);
        shmem_clear_lock(l);
    }
    shmem_barrier_all();
    if (me == 0)
        for (int k = 0; k < 4 && k < npes; k++) {
            int users = (npes - k + 3) / 4;
            CHECK(counters4[k] == users * iters, "lock %d: %d, expected %d", k, counters4[k],
                  users * iters);
        }

    /* every lock is free again: test_lock takes each at once */
    shmem_barrier_all();
    if (me == npes - 1) {
        long *all[] = { heap_lock, &lock_static, &lock_global, &locks4[0], &locks4[1],
                        &locks4[2], &locks4[3] };
        for (int k = 0; k < 7; k++) {
            CHECK(shmem_test_lock(all[k]) == 0, "lock %d not free at the end", k);
            shmem_clear_lock(all[k]);
        }
    }
    shmem_barrier_all();
    shmem_free(heap_lock);
    if (me == 0)
        printf("lock_contention: %d PEs x %d iterations, exact\n", npes, iters);
    shmem_finalize();
    return 0;
}
