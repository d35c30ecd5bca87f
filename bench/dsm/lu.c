/*
 * lu.c -- blocked LU factorization without pivoting of a diagonally
 * dominant n x n matrix, SPLASH-2 style ("contiguous blocks"), as plain C
 * SPMD shared-memory code for kumi's DSM (interface in kernel.h).
 * Compiled twice: translated (_x) and plain (_p).
 *
 * The matrix is nb x nb blocks of bs x bs doubles, each block contiguous.
 * Blocks are scattered over a pr x pc grid of PEs (2-D cyclic: block (I, J)
 * belongs to PE (I % pr) * pc + J % pc); each PE allocates its blocks in one
 * allocation (it is their home and writes them first) and a private table
 * names every block. Step K:
 *   1. the owner of (K, K) factors it (L unit lower, U upper, in place);
 *   barrier;
 *   2. the owners of row K's blocks (K, J > K) solve L_KK X = A_KJ, those
 *      of column K's (I > K, K) solve X U_KK = A_IK;
 *   barrier;
 *   3. every owner of (I > K, J > K) subtracts A_IK * A_KJ.
 * No barrier between 3 and the next step's 1: the next diagonal block is
 * updated in 3 by the PE that factors it, and nothing read in step K
 * (row and column K) is written again. Communication: the diagonal block
 * and the perimeter blocks move to the PEs that need them, 8 KiB blocks
 * (bs 32) in 4 KiB coherence blocks.
 *
 * Every element sees the same operations in the same order whoever runs
 * them, so the sequential check (the same block routines, all blocks, on
 * private memory) matches bit for bit.
 */
#include "kernel.h"

#include <kumi.h>
#include <stdio.h>
#include <stdlib.h>

#define KLU_BLOCK 4096   /* coherence block of the matrix blocks */

/* a = L U in place (bs x bs, no pivoting) */
static void lu_diag(double *a, long bs)
{
    for (long k = 0; k < bs; k++) {
        const double piv = a[k * bs + k];
        for (long i = k + 1; i < bs; i++) {
            double *ai = a + i * bs;
            const double *ak = a + k * bs;
            const double l = ai[k] / piv;
            ai[k] = l;
            for (long j = k + 1; j < bs; j++)
                ai[j] -= l * ak[j];
        }
    }
}

/* b = L^-1 b: row K's perimeter (L unit lower, from the diagonal block d) */
static void lu_row(const double *d, double *b, long bs)
{
    for (long k = 0; k < bs; k++) {
        const double *bk = b + k * bs;
        for (long i = k + 1; i < bs; i++) {
            const double l  = d[i * bs + k];
            double      *bi = b + i * bs;
            for (long j = 0; j < bs; j++)
                bi[j] -= l * bk[j];
        }
    }
}

/* b = b U^-1: column K's perimeter (U upper, from the diagonal block d) */
static void lu_col(const double *d, double *b, long bs)
{
    for (long i = 0; i < bs; i++) {
        double *bi = b + i * bs;
        for (long k = 0; k < bs; k++) {
            const double x  = bi[k] / d[k * bs + k];
            const double *dk = d + k * bs;
            bi[k] = x;
            for (long j = k + 1; j < bs; j++)
                bi[j] -= x * dk[j];
        }
    }
}

/* c -= a * b (bs x bs blocks) */
static void lu_inner(const double *a, const double *b, double *c, long bs)
{
    for (long i = 0; i < bs; i++) {
        double       *ci = c + i * bs;
        const double *ai = a + i * bs;
        for (long k = 0; k < bs; k++) {
            const double  aik = ai[k];
            const double *bk  = b + k * bs;
            for (long j = 0; j < bs; j++)
                ci[j] -= aik * bk[j];
        }
    }
}

/* Element (i, j) of the input: random in [0, 1), n added on the diagonal
 * (diagonally dominant: no pivoting needed). */
static double lu_init(unsigned long seed, long n, long i, long j)
{
    return kk_unit(seed, (unsigned long long)(i * n + j)) + (i == j ? (double)n : 0.0);
}

struct lu_grid {
    long nb, bs;
    int  pr, pc;
};

static int lu_owner(const struct lu_grid *gr, long I, long J)
{
    return (int)(I % gr->pr) * gr->pc + (int)(J % gr->pc);
}

/* The whole factorization, or my share of it (me < 0: every block, no
 * barriers: the sequential check). blk[I * nb + J] is block (I, J). */
static void lu_factor(double *const *blk, const struct lu_grid *gr, int me)
{
    const long nb = gr->nb, bs = gr->bs;

    for (long K = 0; K < nb; K++) {
        double *d = blk[K * nb + K];
        if (me < 0 || lu_owner(gr, K, K) == me)
            lu_diag(d, bs);
        if (me >= 0)
            kumi_barrier(kumi_team_world());
        for (long J = K + 1; J < nb; J++)
            if (me < 0 || lu_owner(gr, K, J) == me)
                lu_row(d, blk[K * nb + J], bs);
        for (long I = K + 1; I < nb; I++)
            if (me < 0 || lu_owner(gr, I, K) == me)
                lu_col(d, blk[I * nb + K], bs);
        if (me >= 0)
            kumi_barrier(kumi_team_world());
        for (long I = K + 1; I < nb; I++)
            for (long J = K + 1; J < nb; J++)
                if (me < 0 || lu_owner(gr, I, J) == me)
                    lu_inner(blk[I * nb + K], blk[K * nb + J], blk[I * nb + J], bs);
    }
}

int KK_FN(lu)(const struct kk_params *p, struct kk_result *r)
{
    const long n  = p->n;
    const int  me = kumi_rank(), np = kumi_size();
    struct lu_grid gr;
    double **blk = NULL, *mine = NULL;
    long     nmine = 0;
    int      bad = 0, rc = 0;

    r->ok = 1;
    /* the largest block size up to 32 that divides n */
    gr.bs = 32;
    while (gr.bs > 1 && n % gr.bs != 0)
        gr.bs /= 2;
    if (n < 1) {
        snprintf(r->why, sizeof r->why, "lu: size %ld < 1", n);
        return -1;   /* every PE sees the same n */
    }
    gr.nb = n / gr.bs;
    /* pr x pc = P, pr the largest divisor <= sqrt(P) */
    gr.pr = 1;
    for (int d = 1; d * d <= np; d++)
        if (np % d == 0)
            gr.pr = d;
    gr.pc = np / gr.pr;

    const long nb = gr.nb, bsz = gr.bs * gr.bs;
    blk = malloc((size_t)(nb * nb) * sizeof *blk);
    bad = blk == NULL;
    for (long I = 0; I < nb; I++)
        for (long J = 0; J < nb; J++)
            nmine += lu_owner(&gr, I, J) == me;
    if (!bad && nmine > 0)
        mine = kumi_dsm_malloc_block((size_t)(nmine * bsz) * sizeof(double), KLU_BLOCK);
    for (int q = 0; q < np; q++) {
        void   *m = bad || (nmine > 0 && mine == NULL) ? (void *)-1 : mine;
        double *base = kk_share(m, q);
        long    k = 0;
        if (base == (void *)-1)
            bad = 1;
        /* PE q's blocks in row-major order, one after the other */
        for (long I = 0; I < nb && !bad; I++)
            for (long J = 0; J < nb; J++)
                if (lu_owner(&gr, I, J) == q)
                    blk[I * nb + J] = base + bsz * k++;
    }
    if (bad) {
        snprintf(r->why, sizeof r->why, "lu: allocation of %ld x %ld doubles failed", n, n);
        rc = -1;
        goto out;
    }
    for (long I = 0; I < nb; I++)
        for (long J = 0; J < nb; J++)
            if (lu_owner(&gr, I, J) == me)
                for (long i = 0; i < gr.bs; i++)
                    for (long j = 0; j < gr.bs; j++)
                        blk[I * nb + J][i * gr.bs + j] =
                            lu_init(p->seed, n, I * gr.bs + i, J * gr.bs + j);

    kk_timer_start(r);
    lu_factor(blk, &gr, me);
    kk_timer_stop(r);

    if (me == 0) {
        double   sum = 0;
        double  *s   = malloc((size_t)(n * n) * sizeof *s);
        double **sb  = malloc((size_t)(nb * nb) * sizeof *sb);
        for (long b = 0; b < nb * nb; b++)
            for (long e = 0; e < bsz; e++)
                sum += blk[b][e];
        r->checksum = sum;
        if (p->verify && (s == NULL || sb == NULL)) {
            r->ok = 0;
            snprintf(r->why, sizeof r->why, "lu: no private memory for the check");
        } else if (p->verify) {
            for (long I = 0; I < nb; I++)
                for (long J = 0; J < nb; J++) {
                    sb[I * nb + J] = s + (I * nb + J) * bsz;
                    for (long i = 0; i < gr.bs; i++)
                        for (long j = 0; j < gr.bs; j++)
                            sb[I * nb + J][i * gr.bs + j] =
                                lu_init(p->seed, n, I * gr.bs + i, J * gr.bs + j);
                }
            lu_factor(sb, &gr, -1);
            for (long b = 0; b < nb * nb && r->ok; b++)
                for (long e = 0; e < bsz; e++)
                    if (blk[b][e] != sb[b][e]) {
                        long i = b / nb * gr.bs + e / gr.bs, j = b % nb * gr.bs + e % gr.bs;
                        r->ok = 0;
                        snprintf(r->why, sizeof r->why,
                                 "lu: element (%ld, %ld) = %.17g, sequential %.17g", i, j,
                                 blk[b][e], sb[b][e]);
                        break;
                    }
        }
        free(s);
        free(sb);
    }
out:
    /* nobody frees blocks another PE may still read */
    kumi_barrier(kumi_team_world());
    if (mine != NULL)
        kumi_dsm_free(mine);
    free(blk);
    kumi_barrier(kumi_team_world());
    return rc;
}
