/*
 * stencil.c -- 2-D Jacobi, 5-point stencil, on an (N+2) x (N+2) grid of
 * doubles (malloc'd, zero Dirichlet boundary), SWEEPS sweeps, static
 * schedule, first touch in a parallel initialisation loop.
 *
 * The initial field is the sum of two eigenmodes of the discrete operator,
 *   u0(i,j) = sin(p a i) sin(r a j) + 0.5 sin(3 a i) sin(2 a j),  a = pi/(N+1),
 * so after s sweeps u(i,j) = l1^s m1(i,j) + 0.5 l2^s m2(i,j) exactly
 * (l = (cos(p a) + cos(r a)) / 2 for the mode (p, r)); the result is
 * checked against that at every point.  Every point is computed by the
 * same operations whatever the thread count, so the check (a serial sum
 * of the final grid) is the same for every thread count.
 *
 * Usage: ./stencil [scale]  (N = 2048 sqrt(scale), default 1: N = 2048)
 * Plain OpenMP 4.5 C.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define SWEEPS 100

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0)) {
        fprintf(stderr, "usage: %s [scale > 0]\n", argv[0]);
        return 2;
    }
    long n = (long)(2048.0 * sqrt(scale) + 0.5);
    if (n < 16)
        n = 16;
    long    w = n + 2;                   /* row length incl. boundary */
    double *u = malloc(sizeof(double) * w * w);
    double *v = malloc(sizeof(double) * w * w);
    double *s1 = malloc(sizeof(double) * w), *s2 = malloc(sizeof(double) * w);
    double *s3 = malloc(sizeof(double) * w);
    if (!u || !v || !s1 || !s2 || !s3) {
        fprintf(stderr, "stencil: out of memory\n");
        return 1;
    }
    const double a = M_PI / (double)(n + 1);
    for (long i = 0; i < w; i++) {      /* 1-D mode tables, exact 0 at the boundary */
        int edge = (i == 0 || i == n + 1);
        s1[i] = edge ? 0.0 : sin(a * i);
        s2[i] = edge ? 0.0 : sin(2 * a * i);
        s3[i] = edge ? 0.0 : sin(3 * a * i);
    }

    int nthreads = 1;
#pragma omp parallel
    {
#pragma omp master
        nthreads = omp_get_num_threads();
    }

    /* First touch: each thread initialises the rows it will update. */
#pragma omp parallel for schedule(static)
    for (long i = 0; i < w; i++)
        for (long j = 0; j < w; j++) {
            u[i * w + j] = s1[i] * s1[j] + 0.5 * s3[i] * s2[j];
            v[i * w + j] = 0.0;
        }

    double t0 = omp_get_wtime();
#pragma omp parallel
    {
        double *src = u, *dst = v;      /* private copies, swapped by each thread */
        for (int s = 0; s < SWEEPS; s++) {
#pragma omp for schedule(static)
            for (long i = 1; i <= n; i++) {
                const double *up = src + (i - 1) * w, *uc = src + i * w, *un = src + (i + 1) * w;
                double       *d  = dst + i * w;
                for (long j = 1; j <= n; j++)
                    d[j] = 0.25 * (up[j] + un[j] + uc[j - 1] + uc[j + 1]);
            }
            /* implicit barrier: dst complete before it is read */
            double *t = src;
            src       = dst;
            dst       = t;
        }
    }
    double t1 = omp_get_wtime();
    double *res = (SWEEPS % 2) ? v : u;

    /* Verification against the analytic result, every point. */
    double l1 = cos(a), l2 = 0.5 * (cos(3 * a) + cos(2 * a));
    double f1 = pow(l1, SWEEPS), f2 = 0.5 * pow(l2, SWEEPS);
    double maxerr = 0.0;
#pragma omp parallel for schedule(static) reduction(max : maxerr)
    for (long i = 0; i < w; i++)
        for (long j = 0; j < w; j++) {
            double e = fabs(res[i * w + j] - (f1 * s1[i] * s1[j] + f2 * s3[i] * s2[j]));
            if (e > maxerr)
                maxerr = e;
        }
    double sum = 0.0, wsum = 0.0;       /* serial: the same for every thread count */
    for (long i = 0; i < w; i++)
        for (long j = 0; j < w; j++) {
            sum += res[i * w + j];
            wsum += res[i * w + j] * (double)((i * 7 + j * 3) % 11);
        }
    int ok = maxerr < 1e-10;

    printf("kernel=stencil threads=%d seconds=%.6f check=%.15e:%.15e\n", nthreads, t1 - t0, sum,
           wsum);
    printf("stencil: n=%ld sweeps=%d maxerr=%.3e\n", n, SWEEPS, maxerr);
    printf("stencil: %s\n", ok ? "VERIFIED" : "FAILED");
    free(u);
    free(v);
    free(s1);
    free(s2);
    free(s3);
    return ok ? 0 : 1;
}
