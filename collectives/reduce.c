/*
 * reduce.c -- kumi_allreduce and kumi_reduce.
 *
 * Small (<= KUMI_COLL_SMALL bytes): the DIMMnet global sum. Partials ride
 * the barrier tree as values in LLCM slots; each node folds its children's
 * in a fixed order; the root's result comes down the tree. On teams of a
 * power-of-two size, recursive doubling over the same LLCM lines instead:
 * log2(n) one-way steps rather than a round trip per tree level; on
 * oversubscribed teams of up to 8, the all-exchange (one step: each member
 * folds everyone's value itself). KUMI_REDUCE_SMALL chooses.
 * Large: reduce-scatter + allgather through the team's heap scratch, in
 * blocks of half the data area: every member publishes its block -- in
 * place where src lies in the symmetric heap or static data, else copied
 * into its half A; member r folds slice r of everyone's block in rank
 * order (reading peers' memory in place where the transport maps it) into
 * its half B; then everyone collects the slices. Blocks smaller than half
 * the area rotate through up to 4 places in the halves from call to call. Each element is computed once, by one
 * member, in one fixed order, so every member gets the same bits whatever
 * the arrival order. A team that has no scratch area (every one busy on
 * some member, coll.h) reduces in small-data pieces instead.
 */
#include <stdlib.h>

#include "coll.h"

static int kumi_reduce_args(const char *call, struct kumi_team *team, const void *dst,
                            const void *src, size_t count, kumi_type_t type, kumi_op_t op,
                            int need_dst, kumi_coll_op_fn *fn, size_t *esize)
{
    int rc = kumi_coll_check(call, team);

    if (rc != KUMI_OK)
        return rc;
    *fn    = kumi_coll_op_lookup(type, op);
    *esize = kumi_coll_type_size(type);
    if (*fn == NULL || *esize == 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "%s on %s is not a valid reduction",
                             kumi_coll_op_name(op), kumi_coll_type_name(type));
    if (count > SIZE_MAX / *esize)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "count %zu overflows", count);
    if (count != 0 && (src == NULL || (need_dst && dst == NULL)))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "src or dst is NULL");
    return KUMI_OK;
}

#define KUMI_REDUCE_SUB 16384   /* bytes folded at a time: stays in L1/L2 */

static inline size_t kumi_slice(size_t m, int r, int n)
{
    return m * (size_t)r / (size_t)n;
}

/* Reduce-scatter of one block of m elements (at element e0 of src): I
 * make the slices the others fold available -- in place where src lies in
 * memory they reach (its place in FLAG_D), else copied into my half A at
 * a (mine stays in src) -- and fold slice `rank` of every member, in rank
 * order, into my half B at b, a sub-chunk at a time so the accumulator
 * stays in cache. */
static int kumi_reduce_block(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                             kumi_coll_op_fn fn, size_t es, const uint8_t *src, size_t m,
                             void *tmp, size_t a, size_t b)
{
    const int      n = t->size, me = t->rank;
    const size_t   lo = kumi_slice(m, me, n), hi = kumi_slice(m, me + 1, n);
    const size_t   sub = KUMI_REDUCE_SUB / es;
    const uint64_t desc = kumi_coll_desc(src, m * es);
    const uint64_t *peer_desc = kumi_coll_heap(st->flags_off
                                               + (size_t)KUMI_COLL_FLAG_D * (size_t)n * 8);
    int            rc;

    for (int r = 0; desc == 0 && r < n; r++) {
        size_t rlo = kumi_slice(m, r, n), rhi = kumi_slice(m, r + 1, n);
        if (r != me && rhi > rlo)
            memcpy(kumi_coll_heap(a + rlo * es), src + rlo * es, (rhi - rlo) * es);
    }
    /* FLAG_D before FLAG_A; a member rewrites it only in its next call,
     * after everyone's FLAG_B of this one (I fold before I raise mine) */
    rc = kumi_coll_flag_set_others(t, st, KUMI_COLL_FLAG_D, desc);
    if (rc == KUMI_OK)
        rc = kumi_coll_exchange(call, t, st, KUMI_COLL_FLAG_A, ++st->step);
    for (size_t x = lo; x < hi && rc == KUMI_OK; x += sub) {
        size_t   k   = hi - x < sub ? hi - x : sub;
        uint8_t *acc = kumi_coll_heap(b + x * es);
        for (int r = 0; r < n && rc == KUMI_OK; r++) {
            uint64_t    d  = r == me ? 0 : __atomic_load_n(&peer_desc[r], __ATOMIC_ACQUIRE);
            const void *in = r == me ? src + x * es
                             : d != 0 ? kumi_coll_peer_seg_data(t, r, d, x * es, k * es, tmp, &rc)
                                      : kumi_coll_peer_data(t, r, a + x * es, k * es, tmp, &rc);
            if (rc != KUMI_OK)
                break;
            if (r == 0)
                memcpy(acc, in, k * es);
            else
                fn(acc, in, k);
        }
    }
    return rc;
}

/* Copies the reduced slices of a block (half B of each member) into out;
 * root < 0: everyone collects; else only root does. */
static int kumi_reduce_collect(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                               size_t es, size_t m, uint8_t *out, int root, size_t b)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    int             rc = kumi_coll_exchange(call, t, st, KUMI_COLL_FLAG_B, ++st->step);

    if (rc != KUMI_OK || (root >= 0 && t->rank != root))
        return rc;
    for (int k = 0; k < t->size && rc == KUMI_OK; k++) {
        int    r  = (t->rank + k) % t->size;   /* staggered */
        size_t lo = kumi_slice(m, r, t->size), hi = kumi_slice(m, r + 1, t->size);
        if (hi == lo)
            continue;
        if (r == t->rank)
            memcpy(out + lo * es, kumi_coll_heap(b + lo * es), (hi - lo) * es);
        else
            rc = kumi_tp_get(tp, out + lo * es, t->pes[r], KUMI_SEG_HEAP, b + lo * es,
                             (hi - lo) * es);
    }
    return rc;
}

static int kumi_reduce_large(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                             void *dst, const void *src, size_t count, size_t es,
                             kumi_coll_op_fn fn, int root)
{
    const size_t per = kumi_coll_half(st) / es;   /* elements per block */
    void        *tmp = NULL;
    int          rc  = KUMI_OK;

    /* where a peer's memory is not mapped its sub-chunks are copied first
     * (tcp; or static data some transport might not map) */
    tmp = malloc(KUMI_REDUCE_SUB);
    if (tmp == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "no memory for a reduction buffer");
    /* dst == src works: a block's src is read (into scratch, or folded)
     * before the collect writes that block of dst */
    for (size_t e0 = 0; e0 < count && rc == KUMI_OK; e0 += per) {
        size_t m = count - e0 < per ? count - e0 : per;
        /* where in the halves: blocks that fit more than once take the
         * next of up to 4 places in turn, so what I write now lies where
         * the others last read a few calls ago (their copies of those
         * lines are gone: writing lines another core still holds costs
         * several times a copy here) */
        size_t span = (m * es + 63) & ~(size_t)63, fit = kumi_coll_half(st) / span;
        size_t pos  = fit > 1 ? (size_t)(st->ring++ % (fit < 4 ? fit : 4)) * span : 0;
        size_t a = st->data_off + pos, b = st->data_off + kumi_coll_half(st) + pos;
        rc = kumi_reduce_block(call, t, st, fn, es, (const uint8_t *)src + e0 * es, m, tmp, a, b);
        if (rc == KUMI_OK)
            rc = kumi_reduce_collect(call, t, st, es, m, (uint8_t *)dst + e0 * es, root, b);
    }
    free(tmp);
    return rc;
}

/* Without scratch: KUMI_COLL_SMALL bytes of whole elements at a time. */
static int kumi_reduce_pieces(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                              void *dst, const void *src, size_t count, size_t es,
                              kumi_coll_op_fn fn, int root)
{
    const size_t per = KUMI_COLL_SMALL / es;
    int          rc  = KUMI_OK;

    for (size_t e0 = 0; e0 < count && rc == KUMI_OK; e0 += per) {
        size_t   m = count - e0 < per ? count - e0 : per;
        uint64_t acc[KUMI_COLL_SMALL / 8];
        memcpy(acc, (const uint8_t *)src + e0 * es, m * es);
        rc = kumi_coll_reduce_small(call, t, st, acc, m * es, fn, m);
        if (rc == KUMI_OK && (root < 0 || t->rank == root))
            memcpy((uint8_t *)dst + e0 * es, acc, m * es);
    }
    return rc;
}

static int kumi_reduce_any(const char *call, struct kumi_team *team, void *dst, const void *src,
                           size_t count, kumi_type_t type, kumi_op_t op, int root)
{
    struct kumi_coll_team *st;
    kumi_coll_op_fn        fn;
    size_t                 es, bytes;
    int                    rc;

    rc = kumi_reduce_args(call, team, dst, src, count, type, op,
                          root < 0 || (team != NULL && team->rank == root), &fn, &es);
    if (rc != KUMI_OK)
        return rc;
    if (root >= team->size)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "root %d out of range (team size %d)",
                             root, team->size);
    if (count == 0)
        return KUMI_OK;
    bytes = count * es;
    if (team->size == 1) {   /* no kernel runs: give the result a kernel's bytes */
        memmove(dst, src, bytes);
        kumi_coll_type_canon(type, dst, count);
        return KUMI_OK;
    }
    rc = kumi_coll_state(call, team, &st);
    if (rc != KUMI_OK)
        return rc;
    if (bytes <= KUMI_COLL_SMALL) {
        uint64_t acc[KUMI_COLL_SMALL / 8];
        kumi_coll_copy(acc, src, bytes);
        rc = kumi_coll_reduce_small(call, team, st, acc, bytes, fn, count);
        if (rc == KUMI_OK && (root < 0 || team->rank == root))
            kumi_coll_copy(dst, acc, bytes);
        return rc;
    }
    if (st->root_llcm == NULL && bytes <= KUMI_COLL_PIECES_UNMAPPED)
        return kumi_reduce_pieces(call, team, st, dst, src, count, es, fn, root);
    rc = kumi_coll_scratch(call, team, st);
    if (rc != KUMI_OK)
        return rc;
    if (st->data_bytes == 0)
        return kumi_reduce_pieces(call, team, st, dst, src, count, es, fn, root);
    return kumi_reduce_large(call, team, st, dst, src, count, es, fn, root);
}

int kumi_allreduce(kumi_team_t team, void *dst, const void *src, size_t count, kumi_type_t type,
                   kumi_op_t op)
{
    return kumi_rt_peer_status("kumi_allreduce",
                               kumi_reduce_any("kumi_allreduce", team, dst, src, count, type, op,
                                               -1));
}

int kumi_reduce(kumi_team_t team, void *dst, const void *src, size_t count, kumi_type_t type,
                kumi_op_t op, int root)
{
    if (root < 0)
        return kumi_rt_error(KUMI_ERR_INVALID, "kumi_reduce", "root %d out of range", root);
    return kumi_rt_peer_status("kumi_reduce",
                               kumi_reduce_any("kumi_reduce", team, dst, src, count, type, op,
                                               root));
}
