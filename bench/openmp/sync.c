/*
 * sync.c -- the cost of OpenMP synchronisation, the shapes NPB's SP and LU
 * repeat thousands of times per iteration:
 *   fork   `#pragma omp parallel` with an empty body (fork + join)
 *   fork1  a `parallel for` over a tiny loop (n = 2 x threads) that reads
 *          two shared scalars of the master and writes a shared array
 *   for    inside one region, `#pragma omp for` over the same tiny loop
 *          (its implied barrier), repeated
 *   bar    inside one region, `#pragma omp barrier`, repeated
 *   pipe   LU's pipeline: thread t works on row j after thread t-1 has
 *          finished row j; a volatile flag per thread, `#pragma omp
 *          flush` spins (as NPB LU's sync_left/sync_right)
 * Prints microseconds per operation and a check (the same for every
 * thread count), then VERIFIED.
 *
 * Usage: ./sync [scale [parts]]  (scale 1: 20000 of each, 2000 pipeline
 * rows x 20; parts: a bit mask of fork, fork1, for, bar, pipe, default 31)
 * Plain OpenMP C.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 64

static double now(void)
{
    return omp_get_wtime();
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0)) {
        fprintf(stderr, "usage: %s [scale > 0]\n", argv[0]);
        return 2;
    }
    int    reps = (int)(20000 * scale), rows = (int)(2000 * scale);
    int    parts = argc > 2 ? atoi(argv[2]) : 31;
    double a[2 * MAXT];
    double c0 = 1.5, c1 = 0.25;
    long   bad = 0;
    int    nth = 1;
    if (reps < 10)
        reps = 10;
    if (rows < 10)
        rows = 10;
#pragma omp parallel
#pragma omp master
    nth = omp_get_num_threads();
    int n = 2 * nth;

    double t0 = now();
    for (int r = 0; r < (parts & 1 ? reps : 0); r++) {
#pragma omp parallel
        {
            if (omp_get_thread_num() < 0)   /* never: a body clang keeps */
                bad++;
        }
    }
    double t_fork = now() - t0;

    t0 = now();
    for (int r = 0; r < (parts & 2 ? reps : 0); r++) {
#pragma omp parallel for
        for (int i = 0; i < n; i++)
            a[i] = c0 * i + c1 * r;
    }
    double t_fork1 = now() - t0;
    for (int i = 0; i < n && (parts & 2); i++)
        bad += a[i] != c0 * i + c1 * (reps - 1);

    double t_for = 0, t_bar = 0;
#pragma omp parallel
    {
        double s = now();
        for (int r = 0; r < (parts & 4 ? reps : 0); r++) {
#pragma omp for
            for (int i = 0; i < n; i++)
                a[i] = c0 * i + c1 * r;
        }
#pragma omp master
        t_for = now() - s;
#pragma omp barrier
        s = now();
        for (int r = 0; r < (parts & 8 ? reps : 0); r++) {
#pragma omp barrier
        }
#pragma omp master
        t_bar = now() - s;
    }
    for (int i = 0; i < n && (parts & 4); i++)
        bad += a[i] != c0 * i + c1 * (reps - 1);

    /* the pipeline: 20 sweeps over rows rows, row j of thread t after row
     * j of thread t-1; each thread adds into its own column of w */
    volatile int flag[MAXT];
    double      *w = malloc(sizeof(double) * (size_t)rows * MAXT);
    for (int j = 0; j < rows * MAXT; j++)
        w[j] = 0;
    double t_pipe = 0;
#pragma omp parallel
    {
        int    t = omp_get_thread_num(), nt = omp_get_num_threads();
        double s = now();
        for (int sweep = 0; sweep < (parts & 16 ? 20 : 0); sweep++) {
            flag[t] = 0;
#pragma omp barrier
            for (int j = 0; j < rows; j++) {
                if (t > 0) {   /* wait for row j of my left neighbour */
                    while (flag[t - 1] <= j) {
#pragma omp flush
                    }
#pragma omp flush
                }
                w[(size_t)j * MAXT + t] += (t > 0 ? w[(size_t)j * MAXT + t - 1] : 1.0);
#pragma omp flush
                flag[t] = j + 1;
#pragma omp flush
            }
#pragma omp barrier
        }
        (void)nt;
#pragma omp master
        t_pipe = now() - s;
    }
    /* w[j][t] after 20 sweeps: sum over sweeps of the prefix; check serially */
    double chk = 0;
    for (int j = 0; j < rows; j++)
        for (int t = 0; t < nth; t++)
            chk += w[(size_t)j * MAXT + t];
    /* thread t's column: sweep s adds w[j][t-1] (after its own sweep s)
     * -- a binomial; recompute serially */
    {
        double *v = calloc((size_t)nth, sizeof(double));
        double  ref = 0;
        for (int s = 0; s < 20; s++)
            for (int t = 0; t < nth; t++)
                v[t] += t > 0 ? v[t - 1] : 1.0;
        for (int t = 0; t < nth; t++)
            ref += v[t] * rows;
        bad += (parts & 16) && chk != ref;
        free(v);
    }
    printf("kernel=sync threads=%d seconds=%.6f check=%ld\n", nth,
           t_fork + t_fork1 + t_for + t_bar + t_pipe, bad);
    printf("us per op: fork %.2f fork1 %.2f for %.2f barrier %.2f pipe_row %.2f "
           "(%d reps, %d rows x 20)\n",
           1e6 * t_fork / reps, 1e6 * t_fork1 / reps, 1e6 * t_for / reps, 1e6 * t_bar / reps,
           1e6 * t_pipe / (20.0 * rows), reps, rows);
    printf(bad == 0 ? "VERIFIED\n" : "FAILED\n");
    free(w);
    return bad == 0 ? 0 : 1;
}
