/*
 * fft.c -- complex 1-D FFT of n = 4^k points by the six-step method on the
 * DSM (SPLASH-2 FFT style).
 *
 * The n points are an m x m matrix (m = sqrt(n), row-major: x[j] is row
 * j / m, column j % m). With X[k1 + m k2] = sum_j x[j] w_n^(jk):
 *   1. transpose x -> y       (column j1 of x becomes row j1 of y)
 *   2. FFT of length m on every row of y
 *   3. y[j1][k1] *= w_n^(j1 k1)          (twiddle)
 *   4. transpose y -> x
 *   5. FFT of every row of x             (x[k1][k2] = X[k1 + m k2])
 *   6. transpose x -> y                  (y[k2][k1] = X[k2 m + k1]: natural order)
 * The rows are split among the PEs (PE q owns rows [q m / P, (q+1) m / P)
 * of both matrices and allocates them itself, so it is their home). Steps
 * 2, 3 and 5 touch only the PE's own rows; each transpose is a pull: a PE
 * fills its own rows of the destination by reading, tile by tile
 * (FFT_TILE_R x FFT_TILE_C), the columns of its row range in every row of the
 * source -- read misses on every other PE's rows, and the upgrades that
 * take back the copies of its rows which the others read in the previous
 * transpose. That all-to-all is the communication; barriers separate the
 * steps that read other PEs' rows (before 4 and 6) from the ones that
 * write them.
 *
 * Timed (kk_timer_start/stop around each transform, summed): steps 1-6,
 * p->iters times, the input rewritten untimed in between. Checked by PE 0:
 * the same six-step code on private memory gives bit-identical output
 * (same arithmetic per element); then the inverse transform, run in
 * parallel as conj(FFT(conj(X))) / n, gives back the input within 1e-9
 * (max error over max magnitude). Checksum: sum over the output of
 * round(1024 re) + 3 round(1024 im), in integers (the same for every P).
 */
#include <kumi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"

/* Coherence block of the rows: up to 4 KiB (256 points), but no more than
 * the part of a row one PE reads in a transpose (m / P points), so a miss
 * does not bring points nobody asked for. A transpose tile spans
 * FFT_TILE_R columns of the source (one largest block of each of its rows)
 * by FFT_TILE_C rows: each source block is read once, and the tile
 * (2 x 128 KiB) stays in the cache. */
#define FFT_BLOCK  4096
#define FFT_TILE_R 256
#define FFT_TILE_C 32
#define DEF_N     (1L << 20)

typedef struct { double re, im; } fft_cplx;

/* The constant tables, private and identical on every PE (same libm calls
 * in the same order): wm[k] = w_m^k, wl[k] = w_n^k (k < m), and the
 * bit-reversal permutation of log2(m) bits. */
struct fft_tab {
    long      m, n;
    int       logm;
    fft_cplx *wm, *wl;
    long     *rev;
};

static int fft_tab_init(struct fft_tab *t, long m)
{
    t->m = m;
    t->n = m * m;
    for (t->logm = 0; (1L << t->logm) < m; t->logm++)
        ;
    t->wm  = malloc(m * sizeof *t->wm);
    t->wl  = malloc(m * sizeof *t->wl);
    t->rev = malloc(m * sizeof *t->rev);
    if (t->wm == NULL || t->wl == NULL || t->rev == NULL)
        return -1;
    const double tau = 6.283185307179586476925286766559;
    for (long k = 0; k < m; k++) {
        t->wm[k].re = cos(tau * (double)k / (double)m);
        t->wm[k].im = -sin(tau * (double)k / (double)m);
        t->wl[k].re = cos(tau * (double)k / (double)t->n);
        t->wl[k].im = -sin(tau * (double)k / (double)t->n);
        long r = 0;
        for (int b = 0; b < t->logm; b++)
            r |= ((k >> b) & 1) << (t->logm - 1 - b);
        t->rev[k] = r;
    }
    return 0;
}

static void fft_tab_free(struct fft_tab *t)
{
    free(t->wm);
    free(t->wl);
    free(t->rev);
}

/* Points are copied field by field: a struct assignment becomes an
 * llvm.memcpy, which the translator routes through kumi_dsm_acquire (a
 * call per point; two scalar accesses are two inline checks). */
static void fft_copy(fft_cplx *d, const fft_cplx *s)
{
    double re = s->re, im = s->im;
    d->re = re;
    d->im = im;
}

static void fft_swap(fft_cplx *a, fft_cplx *b)
{
    double re = a->re, im = a->im;
    a->re = b->re;
    a->im = b->im;
    b->re = re;
    b->im = im;
}

/* In-place radix-2 FFT of one row of m points (decimation in time). */
static void fft_row(fft_cplx *x, const struct fft_tab *t)
{
    const long m = t->m;
    for (long i = 0; i < m; i++) {
        long j = t->rev[i];
        if (i < j)
            fft_swap(&x[i], &x[j]);
    }
    for (long len = 2, step = m / 2; len <= m; len <<= 1, step >>= 1) {
        long half = len / 2;
        for (long s = 0; s < m; s += len)
            for (long k = 0; k < half; k++) {
                fft_cplx w, u, v, wv;
                fft_copy(&w, &t->wm[k * step]);
                fft_copy(&u, &x[s + k]);
                fft_copy(&v, &x[s + k + half]);
                wv.re = v.re * w.re - v.im * w.im;
                wv.im = v.re * w.im + v.im * w.re;
                x[s + k].re        = u.re + wv.re;
                x[s + k].im        = u.im + wv.im;
                x[s + k + half].re = u.re - wv.re;
                x[s + k + half].im = u.im - wv.im;
            }
    }
}

/* Rows [lo, hi) of dst = the transpose of src (columns [lo, hi) of every
 * row of src), tile by tile so that each source block is read once. */
static void fft_transpose(fft_cplx *const *dst, fft_cplx *const *src, long m, long lo,
                          long hi)
{
    fft_cplx *drow[FFT_TILE_R];   /* private: the tile's destination rows */
    for (long rb = lo; rb < hi; rb += FFT_TILE_R) {
        long re = rb + FFT_TILE_R < hi ? rb + FFT_TILE_R : hi;
        for (long r = rb; r < re; r++)
            drow[r - rb] = dst[r];
        for (long cb = 0; cb < m; cb += FFT_TILE_C) {
            long ce = cb + FFT_TILE_C < m ? cb + FFT_TILE_C : m;
            for (long c = cb; c < ce; c++) {
                const fft_cplx *s = src[c];
                for (long r = rb; r < re; r++)
                    fft_copy(&drow[r - rb][c], &s[r]);
            }
        }
    }
}

/* y[r][c] *= w_n^(r c) for rows [lo, hi); w_n^t = w_m^(t / m) w_n^(t % m). */
static void fft_twiddle(fft_cplx *const *y, const struct fft_tab *t, long lo, long hi)
{
    const long m = t->m;
    for (long r = lo; r < hi; r++) {
        fft_cplx *row = y[r];
        for (long c = 0; c < m; c++) {
            long     e = (r * c) & (t->n - 1);
            fft_cplx a, b, w, v;
            fft_copy(&a, &t->wm[e / m]);
            fft_copy(&b, &t->wl[e % m]);
            fft_copy(&v, &row[c]);
            w.re = a.re * b.re - a.im * b.im;
            w.im = a.re * b.im + a.im * b.re;
            row[c].re = v.re * w.re - v.im * w.im;
            row[c].im = v.re * w.im + v.im * w.re;
        }
    }
}

/* The six steps for rows [lo, hi): input in x (overwritten), output in y.
 * sync: barriers where other PEs' rows are read next (the parallel run);
 * the sequential check calls it with all rows and no barriers. */
static void fft_six_step(fft_cplx *const *x, fft_cplx *const *y, const struct fft_tab *t,
                         long lo, long hi, int sync)
{
    fft_transpose(y, x, t->m, lo, hi);
    for (long r = lo; r < hi; r++)
        fft_row(y[r], t);
    fft_twiddle(y, t, lo, hi);
    if (sync)
        kumi_barrier(kumi_team_world());
    fft_transpose(x, y, t->m, lo, hi);
    for (long r = lo; r < hi; r++)
        fft_row(x[r], t);
    if (sync)
        kumi_barrier(kumi_team_world());
    fft_transpose(y, x, t->m, lo, hi);
}

static fft_cplx fft_input(unsigned long seed, long j)
{
    fft_cplx v = { kk_unit(seed, 2 * (unsigned long long)j) - 0.5,
                   kk_unit(seed, 2 * (unsigned long long)j + 1) - 0.5 };
    return v;
}

/* rows [lo, hi) of x = the input */
static void fft_fill(fft_cplx *const *x, unsigned long seed, long m, long lo, long hi)
{
    for (long r = lo; r < hi; r++)
        for (long c = 0; c < m; c++)
        {
            fft_cplx v = fft_input(seed, r * m + c);
            fft_copy(&x[r][c], &v);
        }
}

static void fft_add(struct kk_result *r, double *sec, struct kk_stats *st)
{
    *sec += r->seconds;
    st->read_misses   += r->st.read_misses;
    st->write_misses  += r->st.write_misses;
    st->upgrades      += r->st.upgrades;
    st->msgs_sent     += r->st.msgs_sent;
    st->msgs_received += r->st.msgs_received;
}

/* PE 0: the sequential six steps on private memory, compared bit for bit
 * with the parallel output y. 0 if equal, else r->why is set. */
static int fft_check_forward(fft_cplx *const *y, const struct fft_tab *t, unsigned long seed,
                             struct kk_result *r)
{
    const long m = t->m;
    fft_cplx  *xs = malloc(t->n * sizeof *xs), *ys = malloc(t->n * sizeof *ys);
    fft_cplx **xr = malloc(m * sizeof *xr), **yr = malloc(m * sizeof *yr);
    int        bad = 0;
    if (xs == NULL || ys == NULL || xr == NULL || yr == NULL) {
        snprintf(r->why, sizeof r->why, "fft: no memory for the check");
        bad = 1;
        goto out;
    }
    for (long i = 0; i < m; i++) {
        xr[i] = xs + i * m;
        yr[i] = ys + i * m;
    }
    fft_fill(xr, seed, m, 0, m);
    fft_six_step(xr, yr, t, 0, m, 0);
    for (long i = 0; i < m && !bad; i++)
        for (long j = 0; j < m; j++) {
            fft_cplx a, b;
            fft_copy(&a, &y[i][j]);
            fft_copy(&b, &yr[i][j]);
            if (a.re != b.re || a.im != b.im) {
                snprintf(r->why, sizeof r->why,
                         "fft: X[%ld] = (%.17g, %.17g), sequential six-step (%.17g, %.17g)",
                         i * m + j, a.re, a.im, b.re, b.im);
                bad = 1;
                break;
            }
        }
out:
    free(xs); free(ys); free(xr); free(yr);
    return bad;
}

int KK_FN(fft)(const struct kk_params *p, struct kk_result *r)
{
    const int           me = kumi_rank(), np = kumi_size();
    const long          n = p->n > 0 ? p->n : DEF_N, iters = p->iters > 0 ? p->iters : 1;
    const unsigned long seed = p->seed;
    long                m = 1;
    while (m * m < n)
        m <<= 1;
    r->ok = 1;
    r->seconds = 0;
    if (m * m != n || m < 2) {
        snprintf(r->why, sizeof r->why, "fft: n = %ld is not 4^k (k >= 1): the six steps need an m x m matrix", n);
        return -1;
    }

    struct fft_tab t;
    long           lo = m * me / np, hi = m * (me + 1) / np, rows = hi - lo;
    fft_cplx     **x = malloc(m * sizeof *x), **y = malloc(m * sizeof *y);
    int            fail = fft_tab_init(&t, m) != 0 || x == NULL || y == NULL;
    /* my rows of both matrices (at least one block: 0 rows is no allocation) */
    size_t    bytes = (rows > 0 ? (size_t)rows : 1) * m * sizeof(fft_cplx);
    size_t    blk = 64;
    while (blk < FFT_BLOCK && 2 * blk <= (size_t)(m / np) * sizeof(fft_cplx))
        blk *= 2;
    fft_cplx *mx = fail ? NULL : kumi_dsm_malloc_block(bytes, blk);
    fft_cplx *my = fail ? NULL : kumi_dsm_malloc_block(bytes, blk);
    long     *sums = NULL;   /* per-PE checksum parts, a line each */
    if (me == 0)
        sums = kumi_dsm_malloc(np * 64);
    sums = kk_share(sums, 0);
    if (mx == NULL || my == NULL || sums == NULL)
        fail = 1;
    for (int q = 0; q < np; q++) {
        fft_cplx *qx = kk_share(mx, q), *qy = kk_share(my, q);
        long      qlo = m * q / np, qhi = m * (q + 1) / np;
        if (qx == NULL || qy == NULL)
            fail = 1;
        else if (!fail)
            for (long i = qlo; i < qhi; i++) {
                x[i] = qx + (i - qlo) * m;
                y[i] = qy + (i - qlo) * m;
            }
    }
    if (fail) {
        snprintf(r->why, sizeof r->why, "fft: PE %d: allocation of %ld points failed", me, n);
        kumi_barrier(kumi_team_world());
        if (mx) kumi_dsm_free(mx);
        if (my) kumi_dsm_free(my);
        if (me == 0 && sums) kumi_dsm_free(sums);
        kumi_barrier(kumi_team_world());
        fft_tab_free(&t);
        free(x); free(y);
        return -1;
    }

    /* first touch of my rows of y out of the timed section (the region's
     * pages are copied on first write), as SPLASH-2 initializes all data */
    for (long i = lo; i < hi; i++)
        for (long j = 0; j < m; j++)
            y[i][j].re = y[i][j].im = 0;

    double          sec = 0;
    struct kk_stats st = {0};
    for (long it = 0; it < iters; it++) {
        fft_fill(x, seed, m, lo, hi);
        kk_timer_start(r);
        fft_six_step(x, y, &t, lo, hi, 1);
        kk_timer_stop(r);
        fft_add(r, &sec, &st);
    }
    r->seconds = sec;
    r->st = st;

    /* checksum in integers: the same sum whatever the split */
    long cs = 0;
    for (long i = lo; i < hi; i++)
        for (long j = 0; j < m; j++)
            cs += lrint(y[i][j].re * 1024) + 3 * lrint(y[i][j].im * 1024);
    sums[me * 8] = cs;
    kumi_barrier(kumi_team_world());
    cs = 0;
    for (int q = 0; q < np; q++)
        cs += sums[q * 8];
    r->checksum = (double)cs;

    if (p->verify) {
        if (me == 0 && fft_check_forward(y, &t, seed, r) != 0)
            r->ok = 0;
        kumi_barrier(kumi_team_world());
        /* the inverse, in parallel: conj, forward six steps, conj / n */
        for (long i = lo; i < hi; i++)
            for (long j = 0; j < m; j++)
                y[i][j].im = -y[i][j].im;
        kumi_barrier(kumi_team_world());
        fft_six_step(y, x, &t, lo, hi, 1);
        for (long i = lo; i < hi; i++)
            for (long j = 0; j < m; j++) {
                x[i][j].re = x[i][j].re / (double)n;
                x[i][j].im = -x[i][j].im / (double)n;
            }
        kumi_barrier(kumi_team_world());
        if (me == 0 && r->ok) {
            double emax = 0, vmax = 0;
            long   at = 0;
            for (long j = 0; j < n; j++) {
                fft_cplx v = fft_input(seed, j), g;
                fft_copy(&g, &x[j / m][j % m]);
                double   e = fmax(fabs(g.re - v.re), fabs(g.im - v.im));
                vmax = fmax(vmax, fmax(fabs(v.re), fabs(v.im)));
                if (e > emax) {
                    emax = e;
                    at = j;
                }
            }
            if (!(emax <= 1e-9 * vmax)) {
                r->ok = 0;
                snprintf(r->why, sizeof r->why,
                         "fft: inverse transform: x[%ld] off by %.3g (max |x| %.3g, allowed 1e-9 relative)",
                         at, emax, vmax);
            }
        }
    }

    kumi_barrier(kumi_team_world());
    kumi_dsm_free(mx);
    kumi_dsm_free(my);
    if (me == 0)
        kumi_dsm_free(sums);
    kumi_barrier(kumi_team_world());
    fft_tab_free(&t);
    free(x); free(y);
    return 0;
}
