/* bench/ucx/lat.c -- per-operation latencies, medians: 8-byte put+quiet,
 * get, pingpong (half a round trip of kicks) and barrier between PEs 0 and
 * 1, each operation timed on its own, so a loaded machine's stalls move the
 * tail, not the median (kumi-bench reports the loop's mean); putpp, a put
 * ping-pong: PE 0 puts 8 bytes into a word of PE 1's heap, PE 1 waits for
 * it (kumi_wait_until) and puts it back, half the round trip (as
 * ucx_perftest's ucp_put_lat and OSHMEM's shmem_putmem + shmem_wait_until). Then the get again while PE 1
 * computes: getbusy (bursts of 400 us with one poll, kumi_test, between
 * them) and getcomp (bursts of 20 ms): served by PE 1's progress thread,
 * or by its next poll. Last put1m, a 1 MiB put and quiet (ITERS/20 of
 * them). Built and run by ab.sh --lat;
 * lat_shmem.c is the same for OpenSHMEM (no busy rows). ARGS: ITERS. */
#include <stdio.h>
#include <stdlib.h>

#include <kumi.h>

static int kl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void kl_report(const char *row, double *t, int n)
{
    qsort(t, (size_t)n, sizeof(*t), kl_cmp);
    printf("%s %.2f %.2f %.2f\n", row, t[n / 2], t[n / 10], t[n * 9 / 10]);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;

    if (n < 10 || kumi_init() != KUMI_OK || kumi_size() < 2)
        return 2;
    int                me = kumi_rank();
    uint64_t          *sym = kumi_malloc(64), v = 0, seq = 0;
    volatile uint64_t *flag = kumi_malloc(8);
    size_t             off = kumi_llcm_alloc(8);
    volatile uint64_t *mine = kumi_llcm(off);
    double            *t = calloc((size_t)n, sizeof(*t));

    uint8_t           *big = kumi_malloc(1 << 20), *src = calloc(1, 1 << 20);

    if (sym == NULL || flag == NULL || t == NULL || off == (size_t)-1 || big == NULL || src == NULL)
        return 2;
    *flag = 0;
    kumi_barrier(kumi_team_world());
    if (me == 0) {
        for (int i = 0; i < n; i++) {
            double t0 = kumi_wtime();
            v++;
            if (kumi_put(sym, &v, 8, 1) != KUMI_OK || kumi_quiet() != KUMI_OK)
                return 1;
            t[i] = (kumi_wtime() - t0) * 1e6;
        }
        kl_report("put", t, n);
        for (int i = 0; i < n; i++) {
            double t0 = kumi_wtime();
            if (kumi_get(&v, sym, 8, 1) != KUMI_OK)
                return 1;
            t[i] = (kumi_wtime() - t0) * 1e6;
        }
        kl_report("get", t, n);
    }
    kumi_barrier(kumi_team_world());
    for (int i = 0; i < n && me < 2; i++) {
        double t0 = kumi_wtime();
        seq++;
        if (me == 0 && (kumi_kick(1, off, &seq, 8) != KUMI_OK
                        || kumi_wait_until_u64(mine, KUMI_CMP_EQ, seq) != KUMI_OK))
            return 1;
        if (me == 1 && (kumi_wait_until_u64(mine, KUMI_CMP_EQ, seq) != KUMI_OK
                        || kumi_kick(0, off, &seq, 8) != KUMI_OK))
            return 1;
        t[i] = (kumi_wtime() - t0) * 1e6 / 2;
    }
    if (me == 0)
        kl_report("pingpong", t, n);
    seq = 0;
    kumi_barrier(kumi_team_world());
    for (int i = 0; i < n && me < 2; i++) {
        double t0 = kumi_wtime();
        seq++;
        if (me == 0 && (kumi_put((void *)flag, &seq, 8, 1) != KUMI_OK
                        || kumi_wait_until_u64(flag, KUMI_CMP_EQ, seq) != KUMI_OK))
            return 1;
        if (me == 1 && (kumi_wait_until_u64(flag, KUMI_CMP_EQ, seq) != KUMI_OK
                        || kumi_put((void *)flag, &seq, 8, 0) != KUMI_OK))
            return 1;
        t[i] = (kumi_wtime() - t0) * 1e6 / 2;
    }
    if (me == 0)
        kl_report("putpp", t, n);
    for (int i = 0; i < n; i++) {
        double t0 = kumi_wtime();
        if (kumi_barrier(kumi_team_world()) != KUMI_OK)
            return 1;
        t[i] = (kumi_wtime() - t0) * 1e6;
    }
    if (me == 0)
        kl_report("barrier", t, n);
    /* PE 1 computes (no kumi call) in bursts of `burst` us, polling once
     * between bursts, until PE 0 has timed its gets and kicks `round` */
    static const struct { const char *row; double burst; } busy[] = {
        { "getbusy", 400e-6 }, { "getcomp", 20e-3 },
    };
    for (uint64_t round = 1; round <= 2; round++) {
        int m = n / 4;
        kumi_barrier(kumi_team_world());
        if (me == 1) {
            while (!kumi_test_u64(mine, KUMI_CMP_EQ, 1000 + round)) {
                double t0 = kumi_wtime();
                while (kumi_wtime() - t0 < busy[round - 1].burst) {
                }
            }
        } else if (me == 0) {
            uint64_t stop = 1000 + round;
            for (int i = 0; i < m; i++) {
                double t0 = kumi_wtime();
                if (kumi_get(&v, sym, 8, 1) != KUMI_OK)
                    return 1;
                t[i] = (kumi_wtime() - t0) * 1e6;
            }
            if (kumi_kick(1, off, &stop, 8) != KUMI_OK)
                return 1;
            kl_report(busy[round - 1].row, t, m);
        }
    }
    /* last: after the 1 MiB puts the latency rows were sometimes 20-40x
     * slower for the rest of the run (README: Numbers, 2026-11-27 10:35) */
    kumi_barrier(kumi_team_world());
    if (me == 0) {
        /* a 1 MiB put and its quiet (an RMA put and a worker flush over
         * ucx): MB/s = 1048576 / the median in us */
        for (int i = 0; i < n / 20; i++) {
            double t0 = kumi_wtime();
            if (kumi_put(big, src, 1 << 20, 1) != KUMI_OK || kumi_quiet() != KUMI_OK)
                return 1;
            t[i] = (kumi_wtime() - t0) * 1e6;
        }
        kl_report("put1m", t, n / 20);
    }
    kumi_barrier(kumi_team_world());
    free(t);
    free(src);
    return kumi_finalize() == KUMI_OK ? 0 : 1;
}
