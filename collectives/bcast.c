/*
 * bcast.c -- kumi_broadcast and kumi_allgather through the team's scratch
 * (see the half-A rule in coll.h).
 *
 * broadcast: small messages ride the eager tree from team rank 0 (one line
 * per edge, tree.c; another root hands its value to rank 0 first).
 * Otherwise the root streams its buffer to every member (coll.h, streams):
 * in place where it lies in the symmetric heap or static data (each member
 * copies straight from the root's buffer), else block by block through the
 * ring in the root's half A.
 * allgather: small blocks on teams of up to 8 go through the all-exchange
 * lines (tree.c); otherwise every member streams its block to every other
 * at once, block k of all before block k + 1 (staggered: rank i reads
 * i + 1 first).
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

/* The root streams buf to every other member (coll.h, streams): in place
 * where buf lies in memory the others reach, else through its ring. */
static int kumi_coll_bcast_stream(const char *call, struct kumi_team *t,
                                  struct kumi_coll_team *st, void *buf, size_t n, int root)
{
    struct kumi_coll_stream s;
    size_t                  blk = kumi_coll_stream_max_blk(st, KUMI_COLL_STREAM_BLOCK);
    int                     rc  = KUMI_OK;

    kumi_coll_stream_begin(st, &s, blk, (n + blk - 1) / blk);
    if (t->rank == root) {
        uint64_t desc = kumi_coll_desc(buf, n);
        rc = kumi_coll_stream_publish(t, st, &s, desc);
        for (size_t k = 0; desc == 0 && k < s.nb && rc == KUMI_OK; k++) {
            size_t o = k * blk, c = n - o < blk ? n - o : blk, slot;
            rc = kumi_coll_stream_slot(call, t, st, &s, k, &slot);
            if (rc == KUMI_OK) {
                memcpy(kumi_coll_heap(slot), (uint8_t *)buf + o, c);
                rc = kumi_coll_stream_signal(t, st, &s, k);
            }
        }
        return rc == KUMI_OK ? kumi_coll_stream_end(call, t, st, &s) : rc;
    }
    for (size_t k = 0; k < s.nb && rc == KUMI_OK; k++) {
        size_t   o = k * blk, c = n - o < blk ? n - o : blk;
        uint64_t desc;
        rc = kumi_coll_stream_wait(call, t, st, &s, root, k, &desc);
        if (rc == KUMI_OK)
            rc = kumi_coll_stream_read(t, st, &s, root, desc, k, o, 0, (uint8_t *)buf + o, c);
        if (rc == KUMI_OK)
            rc = kumi_coll_stream_ack(t, st, &s, root, desc, k);
    }
    return rc;
}

static int kumi_broadcast_run(kumi_team_t team, void *buf, size_t n, int root)
{
    static const char call[] = "kumi_broadcast";
    struct kumi_coll_team *st;
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
    if (st->root_llcm == NULL && n <= KUMI_COLL_PIECES_UNMAPPED)
        return kumi_coll_bcast_pieces(call, team, st, buf, n, root);
    rc = kumi_coll_scratch(call, team, st);
    if (rc != KUMI_OK)
        return rc;
    if (st->data_bytes == 0)
        return kumi_coll_bcast_pieces(call, team, st, buf, n, root);
    return kumi_coll_bcast_stream(call, team, st, buf, n, root);
}

/* a KUMI_ERR_PEER a transport operation returned is reported here */
int kumi_broadcast(kumi_team_t team, void *buf, size_t n, int root)
{
    return kumi_rt_peer_status("kumi_broadcast", kumi_broadcast_run(team, buf, n, root));
}

/* Every member streams its block to every other (coll.h, streams), all
 * at once, block k of everyone before block k + 1 of anyone; each member
 * reads the others staggered (rank i starts with i + 1). */
static int kumi_coll_allgather_stream(const char *call, struct kumi_team *t,
                                      struct kumi_coll_team *st, void *dst, const void *src,
                                      size_t n_each)
{
    struct kumi_coll_stream s;
    size_t                  blk  = kumi_coll_stream_max_blk(st, KUMI_COLL_STREAM_BLOCK);
    uint64_t                desc = kumi_coll_desc(src, n_each);
    uint8_t                *mine = (uint8_t *)dst + (size_t)t->rank * n_each;
    int                     rc;

    kumi_coll_stream_begin(st, &s, blk, (n_each + blk - 1) / blk);
    rc = kumi_coll_stream_publish(t, st, &s, desc);
    for (size_t k = 0, w = 0; k < s.nb && rc == KUMI_OK; k++) {
        size_t o = k * blk, c = n_each - o < blk ? n_each - o : blk;
        /* through my ring: every block up to k, and ahead what fits (coll.h) */
        for (; desc == 0 && rc == KUMI_OK && kumi_coll_stream_ahead(&s, w, k); w++) {
            size_t wo = w * blk, wc = n_each - wo < blk ? n_each - wo : blk, slot;
            rc = kumi_coll_stream_slot(call, t, st, &s, w, &slot);
            if (rc == KUMI_OK) {
                memcpy(kumi_coll_heap(slot), (const uint8_t *)src + wo, wc);
                rc = kumi_coll_stream_signal(t, st, &s, w);
            }
        }
        /* src may be my block of dst already (then this moves nothing) */
        if (rc == KUMI_OK)
            memmove(mine + o, (const uint8_t *)src + o, c);
        for (int j = 1; j < t->size && rc == KUMI_OK; j++) {
            int      r = (t->rank + j) % t->size;
            uint64_t d;
            rc = kumi_coll_stream_wait(call, t, st, &s, r, k, &d);
            if (rc == KUMI_OK)
                rc = kumi_coll_stream_read(t, st, &s, r, d, k, o, 0,
                                           (uint8_t *)dst + (size_t)r * n_each + o, c);
            if (rc == KUMI_OK)
                rc = kumi_coll_stream_ack(t, st, &s, r, d, k);
        }
    }
    return rc == KUMI_OK ? kumi_coll_stream_end(call, t, st, &s) : rc;
}

static int kumi_allgather_run(kumi_team_t team, void *dst, const void *src, size_t n_each)
{
    static const char call[] = "kumi_allgather";
    struct kumi_coll_team *st;
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
    return kumi_coll_allgather_stream(call, team, st, dst, src, n_each);
}

/* a KUMI_ERR_PEER a transport operation returned is reported here */
int kumi_allgather(kumi_team_t team, void *dst, const void *src, size_t n_each)
{
    return kumi_rt_peer_status("kumi_allgather", kumi_allgather_run(team, dst, src, n_each));
}
