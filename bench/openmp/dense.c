/*
 * dense.c -- dense matrix multiply C = A * B of n x n doubles (malloc'd),
 * parallel for over the rows of C, i-k-j loop order, static schedule,
 * first touch in a parallel initialisation loop.
 *
 * A and B hold small integers, so every entry of C is an integer below
 * 2^53 and computed exactly whatever the order: the check (sums of C) is
 * the same for every thread count, and C is verified exactly by its row
 * sums (C 1 = A (B 1)), its column sums (1' C = (1' A) B) and 64 entries
 * computed directly.
 *
 * Usage: ./dense [scale]  (n = 1024 cbrt(scale), default 1: n = 1024)
 * Plain OpenMP 4.5 C.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double aval(long i, long k) { return (double)((i * 3 + k * 7) % 17) - 5.0; }
static double bval(long k, long j) { return (double)((k * 5 + j * 11) % 13) - 4.0; }

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0)) {
        fprintf(stderr, "usage: %s [scale > 0]\n", argv[0]);
        return 2;
    }
    long n = (long)(1024.0 * cbrt(scale) + 0.5);
    if (n < 8)
        n = 8;
    double *A = malloc(sizeof(double) * n * n);
    double *B = malloc(sizeof(double) * n * n);
    double *C = malloc(sizeof(double) * n * n);
    if (!A || !B || !C) {
        fprintf(stderr, "dense: out of memory\n");
        return 1;
    }

    int nthreads = 1;
#pragma omp parallel
    {
#pragma omp master
        nthreads = omp_get_num_threads();
    }

#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++) {
            A[i * n + j] = aval(i, j);
            B[i * n + j] = bval(i, j);
            C[i * n + j] = 0.0;
        }

    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) {
        double *c = C + i * n;
        for (long k = 0; k < n; k++) {
            double        a = A[i * n + k];
            const double *b = B + k * n;
            for (long j = 0; j < n; j++)
                c[j] += a * b[j];
        }
    }
    double t1 = omp_get_wtime();

    /* Verification (serial, exact integer arithmetic in doubles). */
    int     ok = 1;
    double *rb = calloc(n, sizeof(double)), *ca = calloc(n, sizeof(double));
    if (!rb || !ca) {
        fprintf(stderr, "dense: out of memory\n");
        return 1;
    }
    for (long k = 0; k < n; k++)
        for (long j = 0; j < n; j++)
            rb[k] += bval(k, j);                 /* B 1 */
    for (long i = 0; i < n; i++)
        for (long k = 0; k < n; k++)
            ca[k] += aval(i, k);                 /* 1' A */
    double sum = 0.0, wsum = 0.0;
    for (long i = 0; i < n && ok; i++) {
        double rc = 0.0, ex = 0.0;
        for (long j = 0; j < n; j++) {
            double c = C[i * n + j];
            rc += c;
            sum += c;
            wsum += c * (double)((i * 7 + j * 3) % 11 - 5);
        }
        for (long k = 0; k < n; k++)
            ex += aval(i, k) * rb[k];
        if (rc != ex) {
            fprintf(stderr, "dense: row %ld sums to %.1f, expected %.1f\n", i, rc, ex);
            ok = 0;
        }
    }
    for (long j = 0; j < n && ok; j++) {
        double cc = 0.0, ex = 0.0;
        for (long i = 0; i < n; i++)
            cc += C[i * n + j];
        for (long k = 0; k < n; k++)
            ex += ca[k] * bval(k, j);
        if (cc != ex) {
            fprintf(stderr, "dense: column %ld sums to %.1f, expected %.1f\n", j, cc, ex);
            ok = 0;
        }
    }
    for (long t = 0; t < 64 && ok; t++) {
        long   i = (t * 7919) % n, j = (t * 104729 + 13) % n;
        double ex = 0.0;
        for (long k = 0; k < n; k++)
            ex += aval(i, k) * bval(k, j);
        if (C[i * n + j] != ex) {
            fprintf(stderr, "dense: C[%ld][%ld] = %.1f, expected %.1f\n", i, j, C[i * n + j], ex);
            ok = 0;
        }
    }

    printf("kernel=dense threads=%d seconds=%.6f check=%.0f:%.0f\n", nthreads, t1 - t0, sum, wsum);
    printf("dense: n=%ld\n", n);
    printf("dense: %s\n", ok ? "VERIFIED" : "FAILED");
    free(A);
    free(B);
    free(C);
    free(rb);
    free(ca);
    return ok ? 0 : 1;
}
