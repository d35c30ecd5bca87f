/*
 * spsweep.c -- an SP-shaped program (NPB SP's lhsz and x_solve, 3.0
 * structure): global arrays, a sequential loop over grid lines around
 * `omp for` loops whose threads write interleaved parts of one coherence
 * block, and 1-D work arrays written by one `omp for` and read across the
 * threads' boundary by the next.
 *
 *   lines: for every grid line (i, j): an `omp for` over k fills the work
 *          arrays cv[k], rho[k]; a second one writes a[n][i][j][k] for the
 *          five n from cv[k-1], cv[k+1], rho[k] (a row of n doubles: both
 *          threads write the same block, a few bytes apart)
 *   sweep: for i = 1 .. n-2 in order: an `omp for` over j updates
 *          a[m][i][j][k] from a[m][i-1][j][k] (every plane written by all
 *          threads, each its own rows)
 * The final arrays are summed serially; the sums and "spsweep ok" are the
 * same at every thread count (compared with libomp by omp_test.sh).
 *
 * Usage: ./spsweep [n [iters]]  (default 8 1; at most 40)
 * The seconds of the iterations go to stderr (bench/openmp/spsweep.sh).
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define NMAX 40

static double a[5][NMAX][NMAX][NMAX];
static double cv[NMAX], rho[NMAX];
static double c1 = 0.25, c2 = 0.125;
static int    n = 8;

static void lines(void)
{
#pragma omp parallel
    for (int i = 1; i < n - 1; i++) {
        for (int j = 1; j < n - 1; j++) {
#pragma omp for
            for (int k = 0; k < n; k++) {
                cv[k]  = a[0][i][j][k] * c1 + k;
                rho[k] = a[1][i][j][k] * c2 + 1.0;
            }
#pragma omp for
            for (int k = 1; k < n - 1; k++) {
                for (int m = 0; m < 5; m++)
                    a[m][i][j][k] = 0.5 * a[m][i][j][k] + c1 * cv[k - 1] - c2 * cv[k + 1]
                                    + rho[k] * (m + 1) * 0.01;
            }
        }
    }
}

static void sweep(void)
{
#pragma omp parallel
    for (int i = 1; i < n - 1; i++) {
#pragma omp for
        for (int j = 1; j < n - 1; j++) {
            for (int k = 1; k < n - 1; k++) {
                for (int m = 0; m < 5; m++)
                    a[m][i][j][k] = a[m][i][j][k] * 0.75 + a[m][i - 1][j][k] * 0.25;
            }
        }
    }
}

int main(int argc, char **argv)
{
    int iters = 1;

    if (argc > 1)
        n = atoi(argv[1]);
    if (argc > 2)
        iters = atoi(argv[2]);
    if (n < 4 || n > NMAX || iters < 0) {
        fprintf(stderr, "usage: spsweep [n (4..%d) [iters]]\n", NMAX);
        return 2;
    }
    for (int m = 0; m < 5; m++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                for (int k = 0; k < n; k++)
                    a[m][i][j][k] = (double)((m * 7 + i * 5 + j * 3 + k) % 11) / 11.0;
    double t0 = omp_get_wtime();
    for (int it = 0; it < iters; it++) {
        lines();
        sweep();
    }
    double t1 = omp_get_wtime();
    for (int m = 0; m < 5; m++) {
        double s = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                for (int k = 0; k < n; k++)
                    s += a[m][i][j][k] * (double)(1 + (i + j + k) % 3);
        printf("sum[%d] = %.10e\n", m, s);
    }
    printf("spsweep ok\n");
    fprintf(stderr, "spsweep: n %d, %d iterations: %.6f s\n", n, iters, t1 - t0);
    return 0;
}
