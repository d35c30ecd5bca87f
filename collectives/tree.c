/*
 * tree.c -- the trees that carry small data (<= KUMI_COLL_SMALL bytes) over
 * the team's LLCM lines: the DIMMnet global sum (partials up the barrier
 * tree's shape, folded at each node in a fixed order, the result down),
 * the eager broadcast down the same tree (a ring of lines per member),
 * recursive doubling on teams of 2 and 4, and the all-exchange on teams of
 * up to 8. A value and its 8-byte tag share one cache line, so each edge
 * costs one line transfer. The global sum's result lines alternate by tag
 * parity and children acknowledge what they took, so a parent runs at most
 * one call ahead of a child there.
 */
#include "coll.h"

/* Puts len bytes of data and then the tag into one line of pe's LLCM: the
 * tag's kick arrives after the data (kicks and puts keep order). */
static int kumi_coll_send_line(struct kumi_tp *tp, int pe, size_t line, const void *data,
                               size_t len, uint64_t tag)
{
    int rc = len == 0 ? KUMI_OK : kumi_tp_put(tp, pe, KUMI_SEG_LLCM, line, data, len);
    return rc != KUMI_OK ? rc : kumi_tp_kick(tp, pe, line + KUMI_COLL_TAG, tag, 8);
}

/* Sends the result line of tag to every child, once each child has
 * acknowledged what last came down in that line. */
static int kumi_coll_send_down(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                               const void *acc, size_t len, uint64_t tag)
{
    struct kumi_tp   *tp   = &kumi_rt.tp;
    const size_t      res  = kumi_coll_result_line(tag);
    const uint64_t    prev = st->result_tag[tag & 1];
    volatile uint8_t *ack  = kumi_coll_llcm(t, KUMI_COLL_ACK);
    int               rc;

    for (int c = 0; c < st->nchild; c++) {
        if (prev != 0) {
            rc = kumi_coll_wait(call, ack + 8 * (size_t)c, KUMI_CMP_GE, prev);
            if (rc != KUMI_OK)
                return rc;
        }
        rc = kumi_coll_send_line(tp, t->pes[st->child0 + c], t->llcm_off + res, acc, len, tag);
        if (rc != KUMI_OK)
            return rc;
    }
    st->result_tag[tag & 1] = tag;
    return KUMI_OK;
}

/* Takes the result of tag from my line into acc and acknowledges it. */
static int kumi_coll_take_result(const char *call, struct kumi_team *t, void *acc, size_t len,
                                 uint64_t tag, struct kumi_coll_team *st)
{
    volatile uint8_t *line = kumi_coll_llcm(t, kumi_coll_result_line(tag));
    int               rc   = kumi_coll_wait(call, line + KUMI_COLL_TAG, KUMI_CMP_GE, tag);

    if (rc != KUMI_OK)
        return rc;
    memcpy(acc, (const void *)line, len);
    return kumi_tp_kick(&kumi_rt.tp, t->pes[st->parent],
                        t->llcm_off + KUMI_COLL_ACK + 8 * (size_t)st->index, tag, 8);
}

int kumi_coll_tree_data(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                        void *acc, size_t len, kumi_coll_op_fn fn, size_t count)
{
    struct kumi_tp *tp   = &kumi_rt.tp;
    const size_t    base = t->llcm_off;
    const uint64_t  tag  = ++st->tag;
    int             rc;

    /* up: fold the children's partials in a fixed order (mine first, then
     * by index), so every run gives the same bits */
    for (int c = 0; c < st->nchild; c++) {
        volatile uint8_t *line = kumi_coll_llcm(t, KUMI_COLL_VALUES + 64 * (size_t)c);
        rc = kumi_coll_wait(call, line + KUMI_COLL_TAG, KUMI_CMP_GE, tag);
        if (rc != KUMI_OK)
            return rc;
        if (fn != NULL)
            fn(acc, (const void *)line, count);
    }
    if (st->parent >= 0) {
        rc = kumi_coll_send_line(tp, t->pes[st->parent],
                                 base + KUMI_COLL_VALUES + 64 * (size_t)st->index, acc, len, tag);
        if (rc != KUMI_OK)
            return rc;
        rc = kumi_coll_take_result(call, t, acc, len, tag, st);
        if (rc != KUMI_OK)
            return rc;
    }
    return kumi_coll_send_down(call, t, st, acc, len, tag);
}

int kumi_coll_tree_bcast(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                         void *acc, size_t len, int root)
{
    struct kumi_tp   *tp   = &kumi_rt.tp;
    const uint64_t    tag  = ++st->btag;
    const size_t      line = KUMI_COLL_BRING + 64 * (size_t)(tag % KUMI_COLL_BRING_N);
    volatile uint8_t *ack  = kumi_coll_llcm(t, KUMI_COLL_BACK);
    int               rc;

    if (root != 0) {
        /* the hand-off line of this parity was last used two calls ago; its
         * root has since taken call tag - 1 from the ring, which rank 0
         * sends only after it has read that line */
        const size_t hand = KUMI_COLL_HAND + 64 * (size_t)(tag & 1);
        if (t->rank == root)
            rc = kumi_coll_send_line(tp, t->pes[0], t->llcm_off + hand, acc, len, tag);
        else if (t->rank == 0)
            rc = kumi_coll_wait(call, kumi_coll_llcm(t, hand) + KUMI_COLL_TAG, KUMI_CMP_GE, tag);
        else
            rc = KUMI_OK;
        if (rc != KUMI_OK)
            return rc;
        if (t->rank == 0)
            memcpy(acc, (const void *)kumi_coll_llcm(t, hand), len);
    }
    if (st->parent >= 0) {
        /* the parent cannot have written tag + N here: I have not
         * acknowledged tag yet */
        volatile uint8_t *mine = kumi_coll_llcm(t, line);
        rc = kumi_coll_wait(call, mine + KUMI_COLL_TAG, KUMI_CMP_GE, tag);
        if (rc != KUMI_OK)
            return rc;
        memcpy(acc, (const void *)mine, len);
        if (tag % (KUMI_COLL_BRING_N / 2) == 0) {
            rc = kumi_tp_kick(tp, t->pes[st->parent],
                              t->llcm_off + KUMI_COLL_BACK + 8 * (size_t)st->index, tag, 8);
            if (rc != KUMI_OK)
                return rc;
        }
    }
    for (int c = 0; c < st->nchild; c++) {
        /* the child has taken call tag - N out of this line (it acknowledges
         * every N/2 calls, so it has acknowledged at least tag - N once it
         * has taken everything sent before this call) */
        if (tag > KUMI_COLL_BRING_N) {
            rc = kumi_coll_wait(call, ack + 8 * (size_t)c, KUMI_CMP_GE, tag - KUMI_COLL_BRING_N);
            if (rc != KUMI_OK)
                return rc;
        }
        rc = kumi_coll_send_line(tp, t->pes[st->child0 + c], t->llcm_off + line, acc, len, tag);
        if (rc != KUMI_OK)
            return rc;
    }
    return KUMI_OK;
}

int kumi_coll_rd_data(const char *call, struct kumi_team *t, struct kumi_coll_team *st, void *acc,
                      size_t len, kumi_coll_op_fn fn, size_t count)
{
    struct kumi_tp *tp  = &kumi_rt.tp;
    const uint64_t  tag = ++st->rd_tag;
    uint64_t        tmp[KUMI_COLL_SMALL / 8];
    int             rc;

    for (int k = 0, bit = 1; bit < t->size; k++, bit <<= 1) {
        int               partner = t->rank ^ bit;
        size_t            line    = KUMI_COLL_RD + 64 * (size_t)(2 * k + (int)(tag & 1));
        volatile uint8_t *mine    = kumi_coll_llcm(t, line);

        rc = kumi_coll_send_line(tp, t->pes[partner], t->llcm_off + line, acc, len, tag);
        if (rc == KUMI_OK)
            rc = kumi_coll_wait(call, mine + KUMI_COLL_TAG, KUMI_CMP_GE, tag);
        if (rc != KUMI_OK)
            return rc;
        /* the lower half's partial always comes first: both partners
         * compute the same expression, bit for bit */
        if (t->rank < partner) {
            fn(acc, (const void *)mine, count);
        } else {
            memcpy(tmp, (const void *)mine, len);
            fn(tmp, acc, count);
            memcpy(acc, tmp, len);
        }
    }
    return KUMI_OK;
}

/* The all-exchange's first half: sends my line of call tag to every other
 * member (staggered: member r sends to r+1, r+2, ...): src, or with
 * per_dest src + to * len, block "to" of an array of blocks. In the
 * receiver's lines a sender's slot is its rank, less one above the
 * receiver's own. Sets *parity to the offset of this call's lines. */
static int kumi_coll_xchg_send(struct kumi_team *t, uint64_t tag, const void *src, size_t len,
                               int per_dest, size_t *parity)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    const int       me = t->rank;

    *parity = KUMI_COLL_XCHG + (size_t)(tag & 1) * (KUMI_COLL_XCHG_MAX - 1) * 64;
    for (int k = 1; k < t->size; k++) {
        int         to   = (me + k) % t->size;
        const void *data = per_dest ? (const uint8_t *)src + (size_t)to * len : src;
        int         rc   = kumi_coll_send_line(tp, t->pes[to],
                                               t->llcm_off + *parity + 64 * (size_t)(me - (me > to)),
                                               data, len, tag);
        if (rc != KUMI_OK)
            return rc;
    }
    return KUMI_OK;
}

/* Waits for member r's line of call tag (r is not me). */
static int kumi_coll_xchg_line(const char *call, struct kumi_team *t, size_t parity, int r,
                               uint64_t tag, const volatile uint8_t **line)
{
    *line = kumi_coll_llcm(t, parity + 64 * (size_t)(r - (r > t->rank)));
    return kumi_coll_wait(call, (volatile void *)(*line + KUMI_COLL_TAG), KUMI_CMP_GE, tag);
}

int kumi_coll_xchg_data(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                        void *acc, size_t len, kumi_coll_op_fn fn, size_t count)
{
    const uint64_t tag = ++st->xchg_tag;
    uint64_t       res[KUMI_COLL_SMALL / 8];
    size_t         parity;
    int            rc = kumi_coll_xchg_send(t, tag, acc, len, 0, &parity);

    /* fold in rank order: res = v0 op v1 op ... (mine at my rank) */
    for (int r = 0; r < t->size && rc == KUMI_OK; r++) {
        const volatile uint8_t *line = acc;
        if (r != t->rank && (rc = kumi_coll_xchg_line(call, t, parity, r, tag, &line)) != KUMI_OK)
            break;
        kumi_coll_fold(res, line, r, len, fn, count);
    }
    if (rc == KUMI_OK)
        memcpy(acc, res, len);
    return rc;
}

int kumi_coll_xchg_copy(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                        void *dst, const void *src, size_t len, int per_dest)
{
    const uint64_t tag = ++st->xchg_tag;
    size_t         parity;
    int            rc = kumi_coll_xchg_send(t, tag, src, len, per_dest, &parity);

    if (rc != KUMI_OK)
        return rc;
    /* mine first: src is sent, so other blocks may then overwrite it */
    memmove((uint8_t *)dst + (size_t)t->rank * len,
            per_dest ? (const uint8_t *)src + (size_t)t->rank * len : src, len);
    for (int r = 0; r < t->size && rc == KUMI_OK; r++) {
        const volatile uint8_t *line;
        if (r != t->rank && (rc = kumi_coll_xchg_line(call, t, parity, r, tag, &line)) == KUMI_OK)
            memcpy((uint8_t *)dst + (size_t)r * len, (const void *)line, len);
    }
    return rc;
}

int kumi_coll_line_data(const char *call, struct kumi_team *t, struct kumi_coll_team *st,
                        void *acc, size_t len, kumi_coll_op_fn fn, size_t count)
{
    struct kumi_tp         *tp   = &kumi_rt.tp;
    const uint64_t          tag  = ++st->line_tag;
    const size_t            vlen = kumi_coll_line_vlen(len);
    const size_t            base = kumi_coll_line_base(t, len, tag);
    const size_t            vofs = 8 * (size_t)t->size;   /* the values, after the tags */
    const volatile uint8_t *tags = st->root_llcm + base;
    const volatile uint8_t *vals = tags + vofs;
    uint64_t                res[KUMI_COLL_SMALL / 8];
    int                     rc   = KUMI_OK;

    if (t->rank == 0) {   /* my own lines: tag 0 and value 0 */
        volatile uint8_t *l = kumi_coll_llcm(t, base);
        kumi_coll_copy((void *)(uintptr_t)(l + vofs), acc, len);
        __atomic_store_n((volatile uint64_t *)l, tag, __ATOMIC_RELEASE);
    } else {
        size_t off = t->llcm_off + base;
        rc = kumi_tp_put(tp, t->pes[0], KUMI_SEG_LLCM, off + vofs + (size_t)t->rank * vlen,
                         acc, len);
        if (rc == KUMI_OK)
            rc = kumi_tp_kick(tp, t->pes[0], off + 8 * (size_t)t->rank, tag, 8);
    }
    for (int r = 0; r < t->size && rc == KUMI_OK; r++) {
        if (r != t->rank)
            rc = kumi_rt_wait_fast(call, (volatile void *)(uintptr_t)(tags + 8 * (size_t)r), 8,
                                   KUMI_CMP_GE, tag, 1);
        if (rc != KUMI_OK)
            break;
        kumi_coll_fold(res, vals + (size_t)r * vlen, r, len, fn, count);
    }
    if (rc == KUMI_OK)
        kumi_coll_copy(acc, res, len);
    return rc;
}

/* auto: one line where PEs spin (the 2-PE latency path: 1 line moves);
 * where they take turns, up to KUMI_COLL_SLINE_MAX (faster than the
 * all-exchange at 8 PEs on 2 cores: bench/README.md, "Measurements behind choices in the code") */
size_t kumi_coll_line_wanted(const struct kumi_coll_team *st)
{
    int algo = kumi_rt.cfg.reduce_small;

    if (st->root_llcm == NULL)
        return 0;
    if (algo == KUMI_REDUCE_SMALL_LINE)
        return KUMI_COLL_SLINE_MAX;
    if (algo == KUMI_REDUCE_SMALL_AUTO)
        return kumi_rt.wait_policy == KUMI_WAIT_SPIN ? 64 : KUMI_COLL_SLINE_MAX;
    return 0;
}

int kumi_coll_small_algo(const struct kumi_team *t)
{
    int algo = kumi_rt.cfg.reduce_small;

    if (algo == KUMI_REDUCE_SMALL_AUTO)
        algo = kumi_rt.wait_policy != KUMI_WAIT_SPIN && t->size <= KUMI_COLL_XCHG_MAX
                   ? KUMI_REDUCE_SMALL_XCHG
                   : KUMI_REDUCE_SMALL_RD;
    /* what a team's size does not allow falls back to the tree */
    if (algo == KUMI_REDUCE_SMALL_LINE
        || (algo == KUMI_REDUCE_SMALL_RD && !kumi_coll_rd_ok(t))
        || (algo == KUMI_REDUCE_SMALL_XCHG && t->size > KUMI_COLL_XCHG_MAX))
        algo = KUMI_REDUCE_SMALL_TREE;
    return algo;
}
