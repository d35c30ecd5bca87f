/*
 * bcast.c -- kumi_broadcast and kumi_allgather through the team's scratch
 * (see the half-A rule in coll.h).
 *
 * broadcast: small messages ride the eager tree from team rank 0 (one line
 * per edge, tree.c; another root hands its value to rank 0 first).
 * Otherwise a two-slot pipeline in the root's half A: the root copies block
 * i in and raises FLAG_A at every member; each member copies it out and
 * raises FLAG_B at the root, which reuses a slot only once every member has
 * acknowledged the block that was in it.
 * allgather: small blocks on teams of up to 8 go through the all-exchange
 * lines (tree.c); otherwise each member publishes its block in its half A;
 * after the FLAG_A exchange everyone copies everyone's block (staggered:
 * rank i starts with i+1); a FLAG_B exchange closes the block.
 * A team without a scratch area (coll.h) sends KUMI_COLL_SMALL-byte pieces
 * down the eager tree instead: broadcast as it is, allgather as one
 * broadcast from each member.
 */
#include "coll.h"

int kumi_coll_bcast_pieces(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                           void *buf, size_t n, int root)
{
    int rc = KUMI_OK;

    for (size_t o = 0; o < n && rc == KUMI_OK; o += KUMI_COLL_SMALL) {
        size_t   c = n - o < KUMI_COLL_SMALL ? n - o : KUMI_COLL_SMALL;
        uint64_t acc[KUMI_COLL_SMALL / 8];
        if (t->rank == root)
            memcpy(acc, (uint8_t *)buf + o, c);
        rc = kumi_coll_tree_bcast(call, t, st, acc, c, root);
        if (rc == KUMI_OK && t->rank != root)
            memcpy((uint8_t *)buf + o, acc, c);
    }
    return rc;
}

int kumi_broadcast(kumi_team_t team, void *buf, size_t n, int root)
{
    static const char call[] = "kumi_broadcast";
    struct kumi_tp        *tp = &kumi_rt.tp;
    struct kumi_coll_team *st;
    size_t                 blk, nb;
    uint64_t               base;
    int                    rc = kumi_coll_check(call, team);

    if (rc != KUMI_OK)
        return rc;
    if (root < 0 || root >= team->size)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "root %d out of range (team size %d)",
                             root, team->size);
    if (n != 0 && buf == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "buf is NULL");
    if (n == 0 || team->size == 1)
        return KUMI_OK;
    rc = kumi_coll_state(call, team, &st);
    if (rc != KUMI_OK)
        return rc;
    if (n <= KUMI_COLL_SMALL) {
        uint64_t acc[KUMI_COLL_SMALL / 8];
        if (team->rank == root)
            memcpy(acc, buf, n);
        rc = kumi_coll_tree_bcast(call, team, st, acc, n, root);
        if (rc == KUMI_OK && team->rank != root)
            memcpy(buf, acc, n);
        return rc;
    }
    rc = kumi_coll_scratch(call, team, st);
    if (rc != KUMI_OK)
        return rc;
    if (st->data_bytes == 0)
        return kumi_coll_bcast_pieces(call, team, st, buf, n, root);
    /* two slots in the root's half A: the root copies block i + 1 in
     * while the others copy block i out */
    blk = kumi_coll_block(st) / 2;
    if (blk > kumi_coll_half(st) / 2)
        blk = kumi_coll_half(st) / 2;
    nb   = (n + blk - 1) / blk;
    base = st->step;
    st->step += nb;   /* every member: the same steps, one per block */
    for (size_t i = 0; i < nb && rc == KUMI_OK; i++) {
        size_t   o = i * blk, c = n - o < blk ? n - o : blk;
        size_t   slot = st->data_off + (i & 1) * blk;
        uint64_t s = base + i + 1;
        if (team->rank == root) {
            /* the slot's previous block (i - 2) must be out everywhere */
            for (int k = 1; i >= 2 && k < team->size && rc == KUMI_OK; k++)
                rc = kumi_coll_flag_wait(call, team, st, KUMI_COLL_FLAG_B,
                                         (root + k) % team->size, s - 2);
            if (rc != KUMI_OK)
                break;
            memcpy(kumi_coll_heap(slot), (uint8_t *)buf + o, c);
            for (int k = 1; k < team->size && rc == KUMI_OK; k++)
                rc = kumi_coll_flag_set(team, st, KUMI_COLL_FLAG_A, (root + k) % team->size, s);
        } else {
            rc = kumi_coll_flag_wait(call, team, st, KUMI_COLL_FLAG_A, root, s);
            if (rc == KUMI_OK)
                rc = tp->ops->get(tp, (uint8_t *)buf + o, team->pes[root], KUMI_SEG_HEAP, slot, c);
            if (rc == KUMI_OK)
                rc = kumi_coll_flag_set(team, st, KUMI_COLL_FLAG_B, root, s);
        }
    }
    /* the half-A rule: nobody reads the root's slots after it leaves */
    for (int k = 1; team->rank == root && k < team->size && rc == KUMI_OK; k++)
        rc = kumi_coll_flag_wait(call, team, st, KUMI_COLL_FLAG_B, (root + k) % team->size,
                                 base + nb);
    return rc;
}

int kumi_allgather(kumi_team_t team, void *dst, const void *src, size_t n_each)
{
    static const char call[] = "kumi_allgather";
    struct kumi_tp        *tp = &kumi_rt.tp;
    struct kumi_coll_team *st;
    size_t                 half;
    int                    rc = kumi_coll_check(call, team);

    if (rc != KUMI_OK)
        return rc;
    if (n_each != 0 && (dst == NULL || src == NULL))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "dst or src is NULL");
    if (n_each == 0)
        return KUMI_OK;
    if (n_each > SIZE_MAX / (size_t)team->size)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "%d x %zu bytes overflows", team->size,
                             n_each);
    if (team->size == 1) {
        memmove(dst, src, n_each);
        return KUMI_OK;
    }
    rc = kumi_coll_state(call, team, &st);
    if (rc != KUMI_OK)
        return rc;
    if (kumi_coll_xchg_ok(team, n_each))
        return kumi_coll_xchg_copy(call, team, st, dst, src, n_each, 0);
    rc = kumi_coll_scratch(call, team, st);
    if (rc != KUMI_OK)
        return rc;
    if (st->data_bytes == 0) {
        /* mine first (src may be my block of dst), then everyone's */
        memmove((uint8_t *)dst + (size_t)team->rank * n_each, src, n_each);
        for (int r = 0; r < team->size && rc == KUMI_OK; r++)
            rc = kumi_coll_bcast_pieces(call, team, st, (uint8_t *)dst + (size_t)r * n_each,
                                        n_each, r);
        return rc;
    }
    half = kumi_coll_block(st);
    for (size_t o = 0; o < n_each && rc == KUMI_OK; o += half) {
        size_t c = n_each - o < half ? n_each - o : half;
        memcpy(kumi_coll_heap(st->data_off), (const uint8_t *)src + o, c);
        rc = kumi_coll_exchange(call, team, st, KUMI_COLL_FLAG_A, ++st->step);
        for (int k = 0; k < team->size && rc == KUMI_OK; k++) {
            int      r   = (team->rank + k) % team->size;
            uint8_t *out = (uint8_t *)dst + (size_t)r * n_each + o;
            if (r == team->rank)
                memmove(out, (const uint8_t *)src + o, c);
            else
                rc = tp->ops->get(tp, out, team->pes[r], KUMI_SEG_HEAP, st->data_off, c);
        }
        if (rc == KUMI_OK)
            rc = kumi_coll_exchange(call, team, st, KUMI_COLL_FLAG_B, ++st->step);
    }
    return rc;
}
