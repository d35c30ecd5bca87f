/* bench/ucx/lat_shmem.c -- lat.c's rows for OpenSHMEM (Open MPI's OSHMEM
 * over UCX): 8-byte put+quiet, get, pingpong (shmem_long_p answered, half
 * a round trip), putpp (8 bytes by shmem_putmem, waited for with
 * shmem_wait_until and put back: lat.c's put ping-pong, ucx_perftest's
 * ucp_put_lat), barrier_all, 1 MiB putmem+quiet (put1m); per-operation
 * medians. ARGS: ITERS. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double ks_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int ks_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void ks_report(const char *row, double *t, int n)
{
    qsort(t, (size_t)n, sizeof(*t), ks_cmp);
    printf("%s %.2f %.2f %.2f\n", row, t[n / 2], t[n / 10], t[n * 9 / 10]);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;

    shmem_init();
    int     me = shmem_my_pe();
    long   *sym = shmem_malloc(64), *flag = shmem_malloc(sizeof(long)), v = 0, seq = 0;
    long   *pflag = shmem_malloc(sizeof(long));
    double *t = calloc((size_t)(n > 10 ? n : 10), sizeof(*t));

    char   *big = shmem_malloc(1 << 20), *src = calloc(1, 1 << 20);

    if (n < 10 || sym == NULL || flag == NULL || pflag == NULL || t == NULL || big == NULL
        || src == NULL || shmem_n_pes() < 2)
        return 2;
    *flag = 0;
    *pflag = 0;
    shmem_barrier_all();
    if (me == 0) {
        for (int i = 0; i < n; i++) {
            double t0 = ks_now();
            v++;
            shmem_long_put(sym, &v, 1, 1);
            shmem_quiet();
            t[i] = (ks_now() - t0) * 1e6;
        }
        ks_report("put", t, n);
        for (int i = 0; i < n; i++) {
            double t0 = ks_now();
            shmem_long_get(&v, sym, 1, 1);
            t[i] = (ks_now() - t0) * 1e6;
        }
        ks_report("get", t, n);
    }
    shmem_barrier_all();
    for (int i = 0; i < n && me < 2; i++) {
        double t0 = ks_now();
        seq++;
        if (me == 0) {
            shmem_long_p(flag, seq, 1);
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
        } else {
            shmem_long_wait_until(flag, SHMEM_CMP_EQ, seq);
            shmem_long_p(flag, seq, 0);
        }
        t[i] = (ks_now() - t0) * 1e6 / 2;
    }
    if (me == 0)
        ks_report("pingpong", t, n);
    seq = 0;
    shmem_barrier_all();
    for (int i = 0; i < n && me < 2; i++) {
        double t0 = ks_now();
        seq++;
        if (me == 0) {
            shmem_putmem(pflag, &seq, sizeof(seq), 1);
            shmem_long_wait_until(pflag, SHMEM_CMP_EQ, seq);
        } else {
            shmem_long_wait_until(pflag, SHMEM_CMP_EQ, seq);
            shmem_putmem(pflag, &seq, sizeof(seq), 0);
        }
        t[i] = (ks_now() - t0) * 1e6 / 2;
    }
    if (me == 0)
        ks_report("putpp", t, n);
    for (int i = 0; i < n; i++) {
        double t0 = ks_now();
        shmem_barrier_all();
        t[i] = (ks_now() - t0) * 1e6;
    }
    if (me == 0)
        ks_report("barrier", t, n);
    shmem_barrier_all();
    if (me == 0) {
        for (int i = 0; i < n / 20; i++) {     /* put1m, last, as lat.c */
            double t0 = ks_now();
            shmem_putmem(big, src, 1 << 20, 1);
            shmem_quiet();
            t[i] = (ks_now() - t0) * 1e6;
        }
        ks_report("put1m", t, n / 20);
    }
    shmem_barrier_all();
    free(t);
    shmem_finalize();
    return 0;
}
