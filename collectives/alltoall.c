/*
 * alltoall.c -- kumi_alltoall as streams (coll.h): every member makes a
 * piece of each of its n blocks available per round, in place where src
 * lies in memory the others reach (symmetric heap, static data), else
 * through the ring in its half A; member j copies piece j of every member
 * r into dst + r * n_each. The order members are read in is Cenju-4's
 * lesson: staggered
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

/* Every member streams, in block k, bytes [k c, (k + 1) c) of each of its
 * blocks for the others (coll.h, streams): in place, member j reads them
 * from my src at j n_each + k c; through my ring, the slot holds them in
 * the order j = me + 1, me + 2, ... Then my own piece k moves, then I read
 * mine from every other member, staggered (naive: from 0 up). */
static int kumi_alltoall_stream(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                                void *dst, const void *src, size_t n_each)
{
    struct kumi_coll_stream s;
    const int               n = t->size, me = t->rank;
    const int               naive = kumi_rt.cfg.alltoall == KUMI_ALLTOALL_NAIVE;
    size_t                  c = (kumi_coll_stream_max_blk(st, KUMI_COLL_STREAM_BLOCK)
                                 / (size_t)(n - 1)) & ~(size_t)63;
    uint64_t                desc = kumi_coll_desc(src, n_each * (size_t)n);
    int                     rc;

    c = c < 64 ? 64 : c;
    kumi_coll_stream_begin(st, &s, c * (size_t)(n - 1), (n_each + c - 1) / c);
    rc = kumi_coll_stream_publish(t, st, &s, desc);
    for (size_t k = 0, w = 0; k < s.nb && rc == KUMI_OK; k++) {
        size_t o = k * c, m = n_each - o < c ? n_each - o : c;
        /* through my ring: every block up to k, and ahead what fits (coll.h) */
        for (; desc == 0 && rc == KUMI_OK && kumi_coll_stream_ahead(&s, w, k); w++) {
            size_t wo = w * c, wm = n_each - wo < c ? n_each - wo : c, slot;
            rc = kumi_coll_stream_slot(call, t, st, &s, w, &slot);
            for (int i = 1; i < n && rc == KUMI_OK; i++)
                memcpy(kumi_coll_heap(slot + (size_t)(i - 1) * c),
                       (const uint8_t *)src + (size_t)((me + i) % n) * n_each + wo, wm);
            if (rc == KUMI_OK)
                rc = kumi_coll_stream_signal(t, st, &s, w);
        }
        /* dst == src is not allowed (api: distinct buffers) */
        if (rc == KUMI_OK)
            memcpy((uint8_t *)dst + (size_t)me * n_each + o,
                   (const uint8_t *)src + (size_t)me * n_each + o, m);
        for (int i = 0; i < n && rc == KUMI_OK; i++) {
            int      r = naive ? i : (me + i) % n;
            uint64_t d;
            if (r == me)
                continue;
            rc = kumi_coll_stream_wait(call, t, st, &s, r, k, &d);
            if (rc == KUMI_OK)
                rc = kumi_coll_stream_read(t, st, &s, r, d, k, (size_t)me * n_each + o,
                                           (size_t)((me - r + n) % n - 1) * c,
                                           (uint8_t *)dst + (size_t)r * n_each + o, m);
            if (rc == KUMI_OK)
                rc = kumi_coll_stream_ack(t, st, &s, r, d, k);
        }
    }
    return rc == KUMI_OK ? kumi_coll_stream_end(call, t, st, &s) : rc;
}

static int kumi_alltoall_run(kumi_team_t team, void *dst, const void *src, size_t n_each)
{
    static const char call[] = "kumi_alltoall";
    struct kumi_coll_team *st;
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
    return kumi_alltoall_stream(call, team, st, dst, src, n_each);
}

/* a KUMI_ERR_PEER a transport operation returned is reported here */
int kumi_alltoall(kumi_team_t team, void *dst, const void *src, size_t n_each)
{
    return kumi_rt_peer_status("kumi_alltoall", kumi_alltoall_run(team, dst, src, n_each));
}
