/*
 * rows.c -- an MG-shaped program: two 3-D grids as arrays of separately
 * malloc'ed rows (u[i][j] = malloc(n doubles), as NPB MG allocates its
 * grids), a 7-point stencil sweep and an update per iteration, each a
 * `parallel for` over the planes; the final grid is compared, point by
 * point, with the same computation done serially on contiguous arrays.
 *
 * Usage: ./rows [n [iters [mode]]]  (default 18 4 2)
 *   mode 0: the master allocates every row (as MG)
 *   mode 1: the rows are allocated by the threads, row (i, j) by thread
 *           (i + j) % nthreads (schedule(static, 1) over the planes and a
 *           rotation), so rows are homed at every PE and written by others
 *   mode 2: both grids, one of each kind
 * Prints the checksum and "rows ok" (the same at every thread count); the
 * seconds of the parallel iterations go to stderr (bench/openmp/grain.sh).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double ***grid_master(int n)
{
    double ***g = malloc(sizeof(double **) * n);
    for (int i = 0; i < n; i++) {
        g[i] = malloc(sizeof(double *) * n);
        for (int j = 0; j < n; j++)
            g[i][j] = malloc(sizeof(double) * n);
    }
    return g;
}

static double ***grid_threads(int n)
{
    double ***g = malloc(sizeof(double **) * n);
    for (int i = 0; i < n; i++)
        g[i] = malloc(sizeof(double *) * n);
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if ((i + j) % nt == t)
                    g[i][j] = malloc(sizeof(double) * n);
    }
    return g;
}

static double init(int i, int j, int k)
{
    return (double)((i * 7 + j * 13 + k * 29) % 17) - 8.0;
}

int main(int argc, char **argv)
{
    int n     = argc > 1 ? atoi(argv[1]) : 18;
    int iters = argc > 2 ? atoi(argv[2]) : 4;
    int mode  = argc > 3 ? atoi(argv[3]) : 2;
    if (n < 4 || iters < 0 || mode < 0 || mode > 2) {
        fprintf(stderr, "usage: rows [n >= 4 [iters [mode 0..2]]]\n");
        return 2;
    }
    double ***u = mode == 1 ? grid_threads(n) : grid_master(n);
    double ***r = mode == 0 ? grid_master(n) : grid_threads(n);
    double   *su = malloc(sizeof(double) * n * n * n), *sr = malloc(sizeof(double) * n * n * n);
#define S(a, i, j, k) a[((size_t)(i) * n + (j)) * n + (k)]

#pragma omp parallel for
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                u[i][j][k] = init(i, j, k);
                r[i][j][k] = 0.0;
            }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                S(su, i, j, k) = init(i, j, k);
                S(sr, i, j, k) = 0.0;
            }

    double t0 = omp_get_wtime();
    for (int it = 0; it < iters; it++) {
#pragma omp parallel for
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    r[i][j][k] = u[i][j][k] * -6.0 + u[i - 1][j][k] + u[i + 1][j][k]
                                 + u[i][j - 1][k] + u[i][j + 1][k] + u[i][j][k - 1]
                                 + u[i][j][k + 1];
#pragma omp parallel for
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    u[i][j][k] += 0.125 * r[i][j][k];
    }
    double t1 = omp_get_wtime();
    for (int it = 0; it < iters; it++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    S(sr, i, j, k) = S(su, i, j, k) * -6.0 + S(su, i - 1, j, k)
                                     + S(su, i + 1, j, k) + S(su, i, j - 1, k)
                                     + S(su, i, j + 1, k) + S(su, i, j, k - 1)
                                     + S(su, i, j, k + 1);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                for (int k = 1; k < n - 1; k++)
                    S(su, i, j, k) += 0.125 * S(sr, i, j, k);
    }
    fprintf(stderr, "rows seconds=%.6f n=%d iters=%d threads=%d\n", t1 - t0, n, iters,
            omp_get_max_threads());

    long   bad = 0;
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                if (u[i][j][k] != S(su, i, j, k) || r[i][j][k] != S(sr, i, j, k))
                    bad++;
                sum += u[i][j][k];
            }
    printf("n=%d iters=%d mode=%d checksum=%.12e\n", n, iters, mode, sum);
    if (bad != 0) {
        printf("rows FAILED: %ld points differ from the serial result\n", bad);
        return 1;
    }
    printf("rows ok\n");
    return 0;
}
