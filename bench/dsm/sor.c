/*
 * sor.c -- red-black successive over-relaxation on an (n+2) x (n+2) grid,
 * Ocean-like, as plain C SPMD shared-memory code for kumi's DSM (interface
 * in kernel.h). Compiled twice: translated (_x) and plain (_p).
 *
 * The n interior rows are split into P bands; PE p allocates its band
 * itself (PE 0 also the top boundary row, PE P-1 the bottom one), so it is
 * the home of its rows and, writing them first, holds them exclusive.
 * Separate allocations keep one PE's last row and the next PE's first row
 * in different coherence blocks (no false sharing at band edges); a
 * private table of row pointers names every row. A sweep updates the red
 * points (i + j even), then, after a barrier, the black ones, then a
 * barrier: per colour, each PE reads the edge rows of its neighbours
 * (a few 4 KiB blocks) and its own edge rows' copies elsewhere are
 * invalidated when it writes them: the only communication.
 *
 * Within a colour every point depends only on points of the other colour,
 * so the result does not depend on the order or the split: the sequential
 * check (the same sweep routine on a private grid, all rows) matches bit
 * for bit.
 */
#include "kernel.h"

#include <kumi.h>
#include <stdio.h>
#include <stdlib.h>

#define KSOR_BLOCK 4096   /* coherence block of the bands */
#define KSOR_W     1.5    /* over-relaxation factor      */

/* One colour over rows [lo, hi): points with (i + j) % 2 == colour. */
static void sor_colour(double *const *g, long n, long lo, long hi, int colour)
{
    const double om = 1.0 - KSOR_W, w4 = KSOR_W * 0.25;

    for (long i = lo; i < hi; i++) {
        const double *up = g[i - 1], *dn = g[i + 1];
        double       *c  = g[i];
        for (long j = 1 + ((i + 1 + colour) & 1); j <= n; j += 2)
            c[j] = om * c[j] + w4 * (up[j] + dn[j] + c[j - 1] + c[j + 1]);
    }
}

/* The initial value of point (i, j): a hot top edge, cold other edges,
 * a random interior. */
static double sor_init(unsigned long seed, long n, long i, long j)
{
    if (i == 0)
        return 1.0;
    if (i == n + 1 || j == 0 || j == n + 1)
        return 0.0;
    return kk_unit(seed, (unsigned long long)(i * (n + 2) + j));
}

int KK_FN(sor)(const struct kk_params *p, struct kk_result *r)
{
    const long n  = p->n, w = n + 2;
    const int  me = kumi_rank(), np = kumi_size();
    /* band p: interior rows [1 + p*n/P, 1 + (p+1)*n/P), plus the boundary
     * row above (PE 0) or below (PE P-1) */
    long     lo = 1 + me * n / np, hi = 1 + (me + 1) * n / np;
    long     first = me == 0 ? 0 : lo, last = me == np - 1 ? n + 2 : hi;
    double **g    = malloc((size_t)w * sizeof *g);
    double  *mine = NULL;
    int      bad  = g == NULL, rc = 0;

    r->ok = 1;
    if (n < 1) {
        snprintf(r->why, sizeof r->why, "sor: size %ld < 1", n);
        free(g);
        return -1;   /* every PE sees the same n */
    }
    if (last > first && !bad)
        mine = kumi_dsm_malloc_block((size_t)(last - first) * (size_t)w * sizeof(double),
                                     KSOR_BLOCK);
    for (int q = 0; q < np; q++) {
        long   qlo = 1 + q * n / np, qhi = 1 + (q + 1) * n / np;
        long   qf = q == 0 ? 0 : qlo, ql = q == np - 1 ? n + 2 : qhi;
        /* (void *)-1 (never a DSM address) tells the others this PE failed */
        void  *m = bad || (last > first && mine == NULL) ? (void *)-1 : mine;
        double *base = kk_share(m, q);
        if (base == (void *)-1)
            bad = 1;
        for (long i = qf; !bad && i < ql; i++)
            g[i] = base + (i - qf) * w;
    }
    if (bad) {
        snprintf(r->why, sizeof r->why, "sor: allocation of the %ld x %ld grid failed", w, w);
        rc = -1;
        goto out;
    }
    for (long i = first; i < last; i++)
        for (long j = 0; j < w; j++)
            g[i][j] = sor_init(p->seed, n, i, j);

    kk_timer_start(r);
    for (long it = 0; it < p->iters; it++) {
        sor_colour(g, n, lo, hi, 0);
        kumi_barrier(kumi_team_world());
        sor_colour(g, n, lo, hi, 1);
        kumi_barrier(kumi_team_world());
    }
    kk_timer_stop(r);

    if (me == 0) {
        double   sum = 0;
        double  *s   = malloc((size_t)w * (size_t)w * sizeof *s);
        double **sr  = malloc((size_t)w * sizeof *sr);
        for (long i = 1; i <= n; i++)
            for (long j = 1; j <= n; j++)
                sum += g[i][j];
        r->checksum = sum;
        if (p->verify && (s == NULL || sr == NULL)) {
            r->ok = 0;
            snprintf(r->why, sizeof r->why, "sor: no private memory for the check");
        } else if (p->verify) {
            for (long i = 0; i < w; i++) {
                sr[i] = s + i * w;
                for (long j = 0; j < w; j++)
                    sr[i][j] = sor_init(p->seed, n, i, j);
            }
            for (long it = 0; it < p->iters; it++) {
                sor_colour(sr, n, 1, n + 1, 0);
                sor_colour(sr, n, 1, n + 1, 1);
            }
            for (long i = 0; i < w && r->ok; i++)
                for (long j = 0; j < w; j++)
                    if (g[i][j] != sr[i][j]) {
                        r->ok = 0;
                        snprintf(r->why, sizeof r->why,
                                 "sor: point (%ld, %ld) = %.17g, sequential %.17g", i, j, g[i][j],
                                 sr[i][j]);
                        break;
                    }
        }
        free(s);
        free(sr);
    }
out:
    /* nobody frees a band another PE may still read */
    kumi_barrier(kumi_team_world());
    if (mine != NULL)
        kumi_dsm_free(mine);
    free(g);
    kumi_barrier(kumi_team_world());
    return rc;
}
