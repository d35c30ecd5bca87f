/*
 * matmul.c -- blocked dense matrix multiply C = A * B (doubles, n x n) as
 * plain C SPMD shared-memory code for kumi's DSM (interface in
 * kernel.h). Compiled twice: translated (KK_SUFFIX=_x) and plain (_p).
 *
 * Data: the rows of C are split into P bands, PE p owns band p of A, B and
 * C and allocates them itself (it is their home and writes them first, so
 * they start exclusive there); a private table of row pointers per PE
 * names every row. Each PE computes its band of C and reads all of B:
 * (P-1)/P of it moves from the other PEs in the timed section, in 4 KiB
 * coherence blocks (kumi_dsm_malloc_block), the only communication.
 *
 * Loop order: for a panel of KMM_BK rows of B (kept in the cache), every
 * row i of my band adds a[i][k] * b[k][*] to c[i][*] for k in the panel:
 * every element of C sums its products in k order, whatever the band, so
 * the sequential check (the same routine on private copies, all rows)
 * matches bit for bit.
 */
#include "kernel.h"

#include <kumi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KMM_BK    16     /* rows of B per panel: 16 x n doubles in L2   */
#define KMM_BLOCK 4096   /* coherence block of the matrices            */

/* c[lo..hi) += a[lo..hi) * b, in panels of KMM_BK rows of b */
static void mm_rows(double *const *a, double *const *b, double *const *c, long n, long lo,
                    long hi)
{
    for (long kk = 0; kk < n; kk += KMM_BK) {
        long ke = kk + KMM_BK < n ? kk + KMM_BK : n;
        for (long i = lo; i < hi; i++) {
            double       *ci = c[i];
            const double *ai = a[i];
            for (long k = kk; k < ke; k++) {
                const double  aik = ai[k];
                const double *bk  = b[k];
                for (long j = 0; j < n; j++)
                    ci[j] += aik * bk[j];
            }
        }
    }
}

static double mm_a(unsigned long seed, long n, long i, long j)
{
    return kk_unit(seed, (unsigned long long)(i * n + j)) - 0.5;
}

static double mm_b(unsigned long seed, long n, long i, long j)
{
    return kk_unit(seed ^ 0x5bd1e995ul, (unsigned long long)(i * n + j)) - 0.5;
}

/* Row pointers into each PE's band; NULL rows if an allocation failed. */
struct mm_mat {
    double **row;
    double  *mine;
};

static int mm_alloc(struct mm_mat *m, long n, int me, int np)
{
    long lo = me * n / np, hi = (me + 1) * n / np;
    int  bad = 0;

    m->row  = malloc((size_t)n * sizeof *m->row);
    m->mine = hi > lo ? kumi_dsm_malloc_block((size_t)(hi - lo) * (size_t)n * sizeof(double),
                                              KMM_BLOCK)
                      : NULL;
    for (int p = 0; p < np; p++) {
        long   plo = p * n / np, phi = (p + 1) * n / np;
        /* the flag -1 (not a valid DSM address) says a PE failed */
        void  *mine = (hi > lo && m->mine == NULL) || m->row == NULL ? (void *)-1 : m->mine;
        double *base = kk_share(mine, p);
        if (base == (void *)-1)
            bad = 1;
        for (long i = plo; !bad && i < phi; i++)
            m->row[i] = base + (i - plo) * n;
    }
    return bad ? -1 : 0;
}

static void mm_free(struct mm_mat *m)
{
    if (m->mine != NULL)
        kumi_dsm_free(m->mine);
    free(m->row);
}

int KK_FN(matmul)(const struct kk_params *p, struct kk_result *r)
{
    const long n  = p->n;
    const int  me = kumi_rank(), np = kumi_size();
    long       lo = me * n / np, hi = (me + 1) * n / np;
    struct mm_mat a = { 0 }, b = { 0 }, c = { 0 };
    int        rc = 0;

    r->ok = 1;
    if (n < 1) {
        snprintf(r->why, sizeof r->why, "matmul: size %ld < 1", n);
        return -1;
    }
    if (mm_alloc(&a, n, me, np) || mm_alloc(&b, n, me, np) || mm_alloc(&c, n, me, np)) {
        snprintf(r->why, sizeof r->why, "matmul: allocation of 3 x %ld x %ld doubles failed", n,
                 n);
        rc = -1;
        goto out;
    }
    /* my bands, written first here: they start exclusive on this PE */
    for (long i = lo; i < hi; i++)
        for (long j = 0; j < n; j++) {
            a.row[i][j] = mm_a(p->seed, n, i, j);
            b.row[i][j] = mm_b(p->seed, n, i, j);
            c.row[i][j] = 0.0;
        }

    kk_timer_start(r);
    mm_rows(a.row, b.row, c.row, n, lo, hi);
    kk_timer_stop(r);

    if (me == 0) {
        double  sum = 0;
        double *sa = malloc((size_t)n * (size_t)n * sizeof *sa);
        double *sb = malloc((size_t)n * (size_t)n * sizeof *sb);
        double *sc = calloc((size_t)n * (size_t)n, sizeof *sc);
        double **ra = malloc((size_t)n * 3 * sizeof *ra), **rb = ra + n, **rcp = ra + 2 * n;
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                sum += c.row[i][j];
        r->checksum = sum;
        if (p->verify && (sa == NULL || sb == NULL || sc == NULL || ra == NULL)) {
            r->ok = 0;
            snprintf(r->why, sizeof r->why, "matmul: no private memory for the check");
        } else if (p->verify) {
            for (long i = 0; i < n; i++) {
                ra[i] = sa + i * n;
                rb[i] = sb + i * n;
                rcp[i] = sc + i * n;
                for (long j = 0; j < n; j++) {
                    sa[i * n + j] = mm_a(p->seed, n, i, j);
                    sb[i * n + j] = mm_b(p->seed, n, i, j);
                }
            }
            mm_rows(ra, rb, rcp, n, 0, n);
            for (long i = 0; i < n && r->ok; i++)
                for (long j = 0; j < n; j++)
                    if (c.row[i][j] != sc[i * n + j]) {
                        r->ok = 0;
                        snprintf(r->why, sizeof r->why,
                                 "matmul: C[%ld][%ld] = %.17g, sequential %.17g", i, j,
                                 c.row[i][j], sc[i * n + j]);
                        break;
                    }
        }
        free(sa);
        free(sb);
        free(sc);
        free(ra);
    }
out:
    /* nobody frees a band another PE may still read */
    kumi_barrier(kumi_team_world());
    mm_free(&a);
    mm_free(&b);
    mm_free(&c);
    kumi_barrier(kumi_team_world());
    return rc;
}
