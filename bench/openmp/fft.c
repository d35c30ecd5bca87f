/*
 * fft.c -- 2-D complex FFT of R x C = 2^L points (default 1024 x 1024 =
 * 2^20), iterative radix-2 (bit reversal, precomputed twiddles), forward
 * then inverse, REPS times.  Each 2-D transform is a parallel for over
 * the rows (one 1-D FFT each, in place) and a parallel for over blocks
 * of CB columns (copied into a per-thread buffer, transformed, copied
 * back), static schedule, first touch in a parallel initialisation loop.
 *
 * Verified by the inverse transform (the data comes back to the input
 * within 1e-9) and by Parseval (sum |X|^2 = R C sum |x|^2) on one more
 * forward transform after the timed phase.  Every 1-D FFT is done by one
 * thread with the same operations whatever the thread count, so the check
 * (serial sums over the spectrum) is the same for every thread count.
 *
 * Usage: ./fft [scale]  (2^20 scale points, rounded to a power of 2)
 * Plain OpenMP 4.5 C.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <string.h>

#define REPS 4   /* forward + inverse pairs in the timed phase */
#define CB   8   /* columns per block in the column pass */

/* In-place 1-D FFT of n = 2^k interleaved complex values (stride 1).
 * w: n/2 twiddles exp(-2 pi i j / n); sign -1 forward, +1 inverse
 * (unscaled). */
static void fft1d(double *x, long n, const long *rev, const double *w, int sign)
{
    for (long i = 0; i < n; i++) {
        long r = rev[i];
        if (r > i) {
            double tr = x[2 * i], ti = x[2 * i + 1];
            x[2 * i]     = x[2 * r];
            x[2 * i + 1] = x[2 * r + 1];
            x[2 * r]     = tr;
            x[2 * r + 1] = ti;
        }
    }
    for (long len = 2; len <= n; len <<= 1) {
        long half = len / 2, step = n / len;
        for (long b = 0; b < n; b += len)
            for (long j = 0; j < half; j++) {
                double wr = w[2 * j * step], wi = -sign * w[2 * j * step + 1];
                double *p = x + 2 * (b + j), *q = x + 2 * (b + j + half);
                double tr = wr * q[0] - wi * q[1], ti = wr * q[1] + wi * q[0];
                q[0] = p[0] - tr;
                q[1] = p[1] - ti;
                p[0] += tr;
                p[1] += ti;
            }
    }
}

static void tables(long n, long **rev, double **w)
{
    int lg = 0;
    while ((1L << lg) < n)
        lg++;
    *rev = malloc(sizeof(long) * n);
    *w   = malloc(sizeof(double) * n);     /* n/2 complex */
    if (!*rev || !*w) {
        fprintf(stderr, "fft: out of memory\n");
        exit(1);
    }
    for (long i = 0; i < n; i++) {
        long r = 0;
        for (int b = 0; b < lg; b++)
            if (i & (1L << b))
                r |= 1L << (lg - 1 - b);
        (*rev)[i] = r;
    }
    for (long j = 0; j < n / 2; j++) {
        (*w)[2 * j]     = cos(2 * M_PI * (double)j / (double)n);
        (*w)[2 * j + 1] = -sin(2 * M_PI * (double)j / (double)n);
    }
}

/* 2-D transform of the R x C row-major array x; called by every thread of
 * a team (orphaned worksharing).  The inverse scales by 1/(R C). */
static void fft2d(double *x, long R, long C, const long *revr, const double *wr,
                  const long *revc, const double *wc, int sign)
{
#pragma omp for schedule(static)
    for (long r = 0; r < R; r++)
        fft1d(x + 2 * r * C, C, revc, wc, sign);

    double  f   = sign > 0 ? 1.0 / ((double)R * (double)C) : 1.0;
    long    cb  = C < CB ? C : CB;
    double *buf = malloc(sizeof(double) * 2 * R * cb);
    if (!buf) {
        fprintf(stderr, "fft: out of memory\n");
        exit(1);
    }
#pragma omp for schedule(static)
    for (long c0 = 0; c0 < C; c0 += cb) {
        for (long r = 0; r < R; r++)
            for (long k = 0; k < cb; k++) {
                buf[2 * (k * R + r)]     = x[2 * (r * C + c0 + k)];
                buf[2 * (k * R + r) + 1] = x[2 * (r * C + c0 + k) + 1];
            }
        for (long k = 0; k < cb; k++)
            fft1d(buf + 2 * k * R, R, revr, wr, sign);
        for (long r = 0; r < R; r++)
            for (long k = 0; k < cb; k++) {
                x[2 * (r * C + c0 + k)]     = f * buf[2 * (k * R + r)];
                x[2 * (r * C + c0 + k) + 1] = f * buf[2 * (k * R + r) + 1];
            }
    }
    free(buf);
}

static double hash01(unsigned long i)   /* deterministic input in [-1, 1) */
{
    unsigned long z = i * 0x9E3779B97F4A7C15UL + 0x632BE59BD9B4E019UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

int main(int argc, char **argv)
{
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0)) {
        fprintf(stderr, "usage: %s [scale > 0]\n", argv[0]);
        return 2;
    }
    int lg = 20 + (int)floor(log2(scale) + 0.5);
    if (lg < 6)
        lg = 6;
    long    R = 1L << (lg / 2), C = 1L << (lg - lg / 2), N = R * C;
    double *x  = malloc(sizeof(double) * 2 * N);
    double *x0 = malloc(sizeof(double) * 2 * N);
    if (!x || !x0) {
        fprintf(stderr, "fft: out of memory\n");
        return 1;
    }
    long   *revr, *revc;
    double *wr, *wc;
    tables(R, &revr, &wr);
    tables(C, &revc, &wc);

    int nthreads = 1;
#pragma omp parallel
    {
#pragma omp master
        nthreads = omp_get_num_threads();
    }

    double e0 = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : e0)
    for (long r = 0; r < R; r++)
        for (long c = 0; c < C; c++) {
            long   i  = r * C + c;
            double re = hash01(2 * i), im = hash01(2 * i + 1);
            x[2 * i] = x0[2 * i] = re;
            x[2 * i + 1] = x0[2 * i + 1] = im;
            e0 += re * re + im * im;
        }

    double t0 = omp_get_wtime();
#pragma omp parallel
    for (int rep = 0; rep < REPS; rep++) {
        fft2d(x, R, C, revr, wr, revc, wc, -1);
        fft2d(x, R, C, revr, wr, revc, wc, +1);
    }
    double t1 = omp_get_wtime();

    /* Verification: back to the input; then Parseval on one more forward
     * transform (untimed). */
    double maxerr = 0.0;
#pragma omp parallel for schedule(static) reduction(max : maxerr)
    for (long i = 0; i < 2 * N; i++) {
        double e = fabs(x[i] - x0[i]);
        if (e > maxerr)
            maxerr = e;
    }
    double e1 = 0.0;
#pragma omp parallel
    {
        fft2d(x, R, C, revr, wr, revc, wc, -1);
#pragma omp for schedule(static) reduction(+ : e1)
        for (long i = 0; i < 2 * N; i++)
            e1 += x[i] * x[i];
    }
    double perr = fabs(e1 / (double)N - e0) / e0;
    /* The DC term is the sum of the input. */
    double dcr = 0.0, dci = 0.0;
    for (long i = 0; i < N; i++) {
        dcr += x0[2 * i];
        dci += x0[2 * i + 1];
    }
    double dcerr = hypot(x[0] - dcr, x[1] - dci);
    int    ok    = maxerr < 1e-9 && perr < 1e-10 && dcerr < 1e-8 * sqrt((double)N);

    double sre = 0.0, sim = 0.0;        /* serial: the same for every thread count */
    for (long i = 0; i < N; i++) {
        double wgt = (double)(i % 7 + 1);
        sre += wgt * x[2 * i];
        sim += wgt * x[2 * i + 1];
    }

    printf("kernel=fft threads=%d seconds=%.6f check=%.12e:%.12e\n", nthreads, t1 - t0, sre, sim);
    printf("fft: %ldx%ld points, %d forward+inverse, maxerr=%.3e parseval=%.3e dc=%.3e\n", R, C,
           REPS, maxerr, perr, dcerr);
    printf("fft: %s\n", ok ? "VERIFIED" : "FAILED");
    free(x);
    free(x0);
    free(revr);
    free(revc);
    free(wr);
    free(wc);
    return ok ? 0 : 1;
}
