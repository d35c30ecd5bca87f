/* bench/ucx/lat.c -- per-operation latencies, medians: 8-byte put+quiet,
 * get, pingpong (half a round trip of kicks) and barrier between PEs 0 and
 * 1, each operation timed on its own, so a loaded machine's stalls move the
 * tail, not the median (kumi-bench reports the loop's mean). Built and run
 * by ab.sh --lat; lat_shmem.c is the same for OpenSHMEM. ARGS: ITERS. */
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
    size_t             off = kumi_llcm_alloc(8);
    volatile uint64_t *mine = kumi_llcm(off);
    double            *t = calloc((size_t)n, sizeof(*t));

    if (sym == NULL || t == NULL || off == (size_t)-1)
        return 2;
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
    for (int i = 0; i < n; i++) {
        double t0 = kumi_wtime();
        if (kumi_barrier(kumi_team_world()) != KUMI_OK)
            return 1;
        t[i] = (kumi_wtime() - t0) * 1e6;
    }
    if (me == 0)
        kl_report("barrier", t, n);
    kumi_barrier(kumi_team_world());
    free(t);
    return kumi_finalize() == KUMI_OK ? 0 : 1;
}
