/*
 * ep.c -- embarrassingly parallel Monte-Carlo kernel (after NAS EP).
 *
 * Generates NP pairs of uniform deviates in (-1,1) with a 64-bit LCG,
 * turns the accepted ones into Gaussian pairs by the Marsaglia polar
 * method, and counts them in square annuli (q[l]: max(|gx|,|gy|) in
 * [l, l+1)) while summing gx and gy.
 *
 * The pairs are cut into fixed blocks of BLOCK pairs; block b starts the
 * generator 2*BLOCK*b steps after the seed (LCG skip-ahead), so every
 * deviate is the same whatever the number of threads and whichever thread
 * runs the block.  Besides the double sums, the deviates are also summed in
 * 32.32 fixed point (int64), which makes the printed check exact and
 * independent of the thread count.
 *
 * Usage: ./ep [scale]   (scale multiplies the number of pairs, default 1)
 * Plain OpenMP 4.5 C.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define BLOCK   (1L << 14)          /* pairs per block */
#define NQ      10
#define LCG_A   6364136223846793005ULL
#define LCG_C   1442695040888963407ULL
#define SEED    271828183ULL
#define FIX     4294967296.0        /* 2^32 */

/* The multiplier and increment of k LCG steps: x_k = A x_0 + C. */
static void lcg_skip(uint64_t k, uint64_t *A, uint64_t *C)
{
    uint64_t a = LCG_A, c = LCG_C, ra = 1, rc = 0;
    while (k) {
        if (k & 1) {
            ra = ra * a;
            rc = rc * a + c;
        }
        c = (a + 1) * c;
        a = a * a;
        k >>= 1;
    }
    *A = ra;
    *C = rc;
}

static inline double next_u(uint64_t *x)
{
    *x = *x * LCG_A + LCG_C;
    return (double)(*x >> 11) * (1.0 / 9007199254740992.0); /* [0,1) */
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0)) {
        fprintf(stderr, "usage: %s [scale > 0]\n", argv[0]);
        return 2;
    }
    long np = (long)(scale * (double)(1L << 25));
    if (np < BLOCK)
        np = BLOCK;
    long nblocks = (np + BLOCK - 1) / BLOCK;

    int nthreads = 1;
#pragma omp parallel
    {
#pragma omp master
        nthreads = omp_get_num_threads();
    }

    double  sx = 0.0, sy = 0.0;
    int64_t ix = 0, iy = 0, acc = 0;
    int64_t q[NQ] = { 0 };

    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) reduction(+ : sx, sy, ix, iy, acc, q[:NQ])
    for (long b = 0; b < nblocks; b++) {
        uint64_t A, C;
        lcg_skip((uint64_t)b * 2 * BLOCK, &A, &C);
        uint64_t x   = A * SEED + C;
        long     end = (b + 1) * BLOCK < np ? (b + 1) * BLOCK : np;
        for (long k = b * BLOCK; k < end; k++) {
            double u = 2.0 * next_u(&x) - 1.0;
            double v = 2.0 * next_u(&x) - 1.0;
            double t = u * u + v * v;
            if (t <= 1.0 && t > 0.0) {
                double f  = sqrt(-2.0 * log(t) / t);
                double gx = u * f, gy = v * f;
                double m  = fmax(fabs(gx), fabs(gy));
                int    l  = (int)m;
                if (l < NQ)
                    q[l]++;
                acc++;
                sx += gx;
                sy += gy;
                ix += (int64_t)(gx * FIX);
                iy += (int64_t)(gy * FIX);
            }
        }
    }
    double t1 = omp_get_wtime();

    /* Verification. */
    int    ok = 1;
    int64_t qsum = 0, qhash = 0;
    for (int l = 0; l < NQ; l++) {
        qsum += q[l];
        qhash += q[l] * (l + 1);
    }
    if (qsum != acc) {
        fprintf(stderr, "ep: annulus counts sum to %lld, accepted %lld\n",
                (long long)qsum, (long long)acc);
        ok = 0;
    }
    /* The double sums agree with the exact fixed-point sums (truncation
     * loses < 2^-32 per deviate). */
    double tol = (double)acc / FIX + 1e-9 * (double)acc;
    if (fabs(sx - (double)ix / FIX) > tol || fabs(sy - (double)iy / FIX) > tol) {
        fprintf(stderr, "ep: sums disagree: sx=%.10e fixed %.10e, sy=%.10e fixed %.10e\n",
                sx, (double)ix / FIX, sy, (double)iy / FIX);
        ok = 0;
    }
    /* Statistics, 6 sigma: acceptance pi/4, P(l = 0) = erf(1/sqrt 2)^2,
     * mean 0, variance 1 per coordinate. */
    double p = M_PI / 4, pa = (double)acc / (double)np;
    if (fabs(pa - p) > 6 * sqrt(p * (1 - p) / (double)np)) {
        fprintf(stderr, "ep: acceptance %.6f, expected %.6f\n", pa, p);
        ok = 0;
    }
    double p0 = erf(1 / sqrt(2.0)) * erf(1 / sqrt(2.0)), pq0 = (double)q[0] / (double)acc;
    if (acc == 0 || fabs(pq0 - p0) > 6 * sqrt(p0 * (1 - p0) / (double)acc)) {
        fprintf(stderr, "ep: fraction in annulus 0 %.6f, expected %.6f\n", pq0, p0);
        ok = 0;
    }
    if (acc == 0 || fabs(sx) > 6 * sqrt((double)acc) || fabs(sy) > 6 * sqrt((double)acc)) {
        fprintf(stderr, "ep: mean too far from 0: sx=%g sy=%g\n", sx, sy);
        ok = 0;
    }

    printf("kernel=ep threads=%d seconds=%.6f check=%lld:%lld:%lld:%lld\n", nthreads, t1 - t0,
           (long long)acc, (long long)qhash, (long long)ix, (long long)iy);
    printf("ep: pairs=%ld accepted=%lld sx=%.12e sy=%.12e q=", np, (long long)acc, sx, sy);
    for (int l = 0; l < NQ; l++)
        printf("%lld%s", (long long)q[l], l + 1 < NQ ? "," : "\n");
    printf("ep: %s\n", ok ? "VERIFIED" : "FAILED");
    return ok ? 0 : 1;
}
