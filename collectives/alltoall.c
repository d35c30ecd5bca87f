/*
 * alltoall.c -- kumi_alltoall through the team's scratch (half-A rule in
 * coll.h): per round every member publishes a chunk of each of its n
 * blocks in its half A; after the FLAG_A exchange member j copies chunk j
 * of every member r into dst + r * n_each; a FLAG_B exchange closes the
 * round. The order members are read in is Cenju-4's lesson: staggered
 * (member j starts with j+1, so at each step everyone reads a different
 * member) unless KUMI_ALLTOALL=naive (everyone reads member 0 first, then
 * 1, ...), kept for comparison. Blocks of up to 56 bytes on teams of up
 * to 8 take the all-exchange lines instead (tree.c: one line per pair).
 * A team without a scratch area (coll.h) sends each block from its owner
 * in KUMI_COLL_SMALL-byte pieces down the eager tree, every member taking
 * only what is addressed to it: slow, but it needs no scratch.
 */
#include "coll.h"

static int kumi_alltoall_pieces(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                                void *dst, const void *src, size_t n_each)
{
    const int me = t->rank;
    int       rc = KUMI_OK;

    memcpy((uint8_t *)dst + (size_t)me * n_each, (const uint8_t *)src + (size_t)me * n_each,
           n_each);
    for (int r = 0; r < t->size; r++)
        for (int j = 0; j < t->size; j++) {
            if (j == r)   /* a member's block to itself stays home */
                continue;
            for (size_t o = 0; o < n_each && rc == KUMI_OK; o += KUMI_COLL_SMALL) {
                size_t   c = n_each - o < KUMI_COLL_SMALL ? n_each - o : KUMI_COLL_SMALL;
                uint64_t acc[KUMI_COLL_SMALL / 8];
                if (me == r)
                    memcpy(acc, (const uint8_t *)src + (size_t)j * n_each + o, c);
                rc = kumi_coll_tree_bcast(call, t, st, acc, c, r);
                if (rc == KUMI_OK && me == j)
                    memcpy((uint8_t *)dst + (size_t)r * n_each + o, acc, c);
            }
            if (rc != KUMI_OK)
                return rc;
        }
    return rc;
}

int kumi_alltoall(kumi_team_t team, void *dst, const void *src, size_t n_each)
{
    static const char call[] = "kumi_alltoall";
    struct kumi_tp        *tp = &kumi_rt.tp;
    struct kumi_coll_team *st;
    size_t                 chunk;
    int                    rc = kumi_coll_check(call, team), n;

    if (rc != KUMI_OK)
        return rc;
    n = team->size;
    if (n_each != 0 && (dst == NULL || src == NULL))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "dst or src is NULL");
    if (n_each == 0)
        return KUMI_OK;
    if (n_each > SIZE_MAX / (size_t)n)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "%d x %zu bytes overflows", n, n_each);
    if (n == 1) {
        memmove(dst, src, n_each);
        return KUMI_OK;
    }
    rc = kumi_coll_state(call, team, &st);
    if (rc != KUMI_OK)
        return rc;
    if (kumi_coll_xchg_ok(team, n_each))   /* one line per pair, one step */
        return kumi_coll_xchg_copy(call, team, st, dst, src, n_each, 1);
    rc = kumi_coll_scratch(call, team, st);
    if (rc != KUMI_OK)
        return rc;
    if (st->data_bytes == 0)
        return kumi_alltoall_pieces(call, team, st, dst, src, n_each);
    chunk = (kumi_coll_block(st) / (size_t)n) & ~(size_t)7;
    if (chunk < 64)
        chunk = (kumi_coll_half(st) / (size_t)n) & ~(size_t)7;
    for (size_t o = 0; o < n_each && rc == KUMI_OK; o += chunk) {
        size_t   c = n_each - o < chunk ? n_each - o : chunk;
        /* dst == src is not allowed (api: distinct buffers), so my block
         * can move directly */
        uint8_t *a = kumi_coll_heap(st->data_off);
        for (int j = 0; j < n; j++)   /* my own block goes straight to dst below */
            if (j != team->rank)
                memcpy(a + (size_t)j * c, (const uint8_t *)src + (size_t)j * n_each + o, c);
        rc = kumi_coll_exchange(call, team, st, KUMI_COLL_FLAG_A, ++st->step);
        for (int k = 0; k < n && rc == KUMI_OK; k++) {
            int r = kumi_rt.cfg.alltoall == KUMI_ALLTOALL_NAIVE ? k : (team->rank + k) % n;
            uint8_t *out = (uint8_t *)dst + (size_t)r * n_each + o;
            size_t   at  = st->data_off + (size_t)team->rank * c;
            if (r == team->rank)
                memcpy(out, (const uint8_t *)src + (size_t)r * n_each + o, c);
            else
                rc = tp->ops->get(tp, out, team->pes[r], KUMI_SEG_HEAP, at, c);
        }
        if (rc == KUMI_OK)
            rc = kumi_coll_exchange(call, team, st, KUMI_COLL_FLAG_B, ++st->step);
    }
    return rc;
}
