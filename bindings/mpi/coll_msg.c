/*
 * coll_msg.c -- the collectives' algorithms over collective-context
 * messages (coll_msg.h says when coll.c uses them and how tags work).
 *
 *   reduce          binomial tree; a non-commutative op on a tree rooted
 *                   at rank 0 (each node folds lower ranks before higher
 *                   ones), whose result then goes to the root
 *   allreduce       recursive doubling; with P not a power of two the
 *                   first 2 * (P - 2^k) ranks pair up first (even into odd)
 *                   so that every fold keeps rank order
 *   reduce_scatter  every rank sends each block to its owner, which folds
 *                   them from rank P-1 down to 0 (x_i op acc) holding two
 *                   blocks in flight: memory 4 blocks, whatever P
 *   scan, exscan    recursive doubling (Hillis-Steele) keeping the
 *                   inclusive and the exclusive prefix
 *   gatherv, scatterv, allgatherv, alltoallv
 *                   direct: every block goes straight to its destination,
 *                   all messages posted at once in a staggered order
 *                   (rank + 1, rank + 2, ...)
 * Non-contiguous datatypes travel packed (kmpi_pack/unpack).
 */
#include <stdlib.h>
#include <string.h>

#include "coll_msg.h"

#define KMPI_COLL_SEQ_MASK 0x3fffffu   /* tags below 1 << 30: nbc.c uses those above */
enum { KMPI_STEP_FOLD = 0, KMPI_STEP_FORWARD = 62, KMPI_STEP_UNFOLD = 63 };

void kmpi_coll_begin(struct kmpi_coll *k, const char *call, MPI_Comm comm, struct kmpi_comm *c)
{
    k->call = call;
    k->comm = comm;
    k->c    = c;
    k->seq  = c->coll_seq++;
}

static int coll_tag(const struct kmpi_coll *k, int step)
{
    return (int)(((k->seq & KMPI_COLL_SEQ_MASK) << 8) | (unsigned)step);
}

static int coll_nomem(const struct kmpi_coll *k)
{
    return kmpi_error(k->comm, MPI_ERR_NO_MEM, k->call, "out of memory for temporary buffers");
}

/* an error from kumi (krc < 0), or MPI_SUCCESS */
static int coll_kumi(const struct kmpi_coll *k, int krc)
{
    return krc == KUMI_OK ? MPI_SUCCESS
                          : kmpi_error_kumi(k->comm, krc, k->call, "a collective message failed");
}

static int coll_isend(const struct kmpi_coll *k, const void *buf, size_t bytes, int to, int step,
                      kumi_request_t *rq)
{
    return kmpi_coll_isend(buf, bytes, to, coll_tag(k, step), k->c, rq);
}

static int coll_irecv(const struct kmpi_coll *k, void *buf, size_t bytes, int from, int step,
                      kumi_request_t *rq)
{
    return kmpi_coll_irecv(buf, bytes, from, coll_tag(k, step), k->c, rq);
}

/* kumi_waitall, but while non-blocking collectives are outstanding they
 * move too (a peer may need one of ours to reach this call) */
static int coll_waitall(int n, kumi_request_t *rq)
{
    int rc = KUMI_OK;

    if (kmpi_nbc_active == 0)
        return kumi_waitall(n, rq, KUMI_STATUSES_IGNORE);
    for (;;) {
        int pending = 0;
        for (int i = 0; i < n; i++) {
            int flag = 1, e;
            if (rq[i] == KUMI_REQUEST_NULL)
                continue;
            e = kumi_test(&rq[i], &flag, KUMI_STATUS_IGNORE);
            if (e != KUMI_OK && rc == KUMI_OK)
                rc = e;
            if (!flag) {
                if (e != KUMI_OK)   /* the job is failing */
                    return rc;
                pending = 1;
            }
        }
        if (!pending)
            return rc;
        kmpi_nbc_progress();
    }
}

/* One exchange step: send sbytes to `to` and receive rbytes from `from`
 * (either may be -1: none), both complete on return. */
static int coll_step(const struct kmpi_coll *k, const void *sbuf, size_t sbytes, int to,
                     void *rbuf, size_t rbytes, int from, int step)
{
    kumi_request_t rq[2] = { KUMI_REQUEST_NULL, KUMI_REQUEST_NULL };
    int            krc   = KUMI_OK, w;

    if (from >= 0)
        krc = coll_irecv(k, rbuf, rbytes, from, step, &rq[0]);
    if (to >= 0 && krc == KUMI_OK)
        krc = coll_isend(k, sbuf, sbytes, to, step, &rq[1]);
    w = coll_waitall(2, rq);
    return coll_kumi(k, krc != KUMI_OK ? krc : w);
}

/* ------------------------------------------------------------ reduction operands */

void kmpi_red_init(struct kmpi_red *r, MPI_Op op, MPI_Datatype dt)
{
    r->op   = op;
    r->dt   = dt;
    r->t    = kmpi_type(dt);
    r->o    = kmpi_op(op);
    r->user = r->o->predefined == 0;
    r->unit = r->user ? (size_t)r->t->extent : r->t->nbasic * kmpi_basic_size(r->t->basic);
    r->lb   = r->user ? r->t->true_lb : 0;
}

static size_t red_span(const struct kmpi_red *r, size_t n)
{
    if (n == 0)
        return 0;
    return r->user ? (n - 1) * r->unit + (size_t)r->t->true_extent : n * r->unit;
}

static void *red_alloc(const struct kmpi_red *r, size_t n)
{
    size_t span = red_span(r, n);
    void  *p    = malloc(span != 0 ? span : 1);

    return p != NULL ? kmpi_at(p, -r->lb) : NULL;
}

static void red_free(const struct kmpi_red *r, void *p)
{
    if (p != NULL)
        free(kmpi_at(p, r->lb));
}

/* the bytes a buffer of n elements occupies (what travels) */
static void *red_raw(const struct kmpi_red *r, const void *p)
{
    return kmpi_at(p, r->lb);
}

static void *red_elem(const struct kmpi_red *r, const void *p, size_t i)
{
    return kmpi_at(p, (MPI_Aint)(i * r->unit));
}

/* inout = in op inout, n elements */
static int red_combine(const struct kmpi_red *r, const void *in, void *inout, size_t n)
{
    if (n == 0)
        return MPI_SUCCESS;
    if (r->user) {
        int          len = (int)n;
        MPI_Datatype d   = r->dt;
        r->o->fn((void *)in, inout, &len, &d);
        return MPI_SUCCESS;
    }
    return kmpi_op_apply_basic(r->o->predefined, r->t->basic, in, inout, n * r->t->nbasic);
}

/* the caller's buffer (dt's layout) into a work buffer and back */
static int red_in(const struct kmpi_red *r, const void *ubuf, size_t n, void *work)
{
    void *tmp;

    if (!r->user)
        return kmpi_work_in(ubuf, n, r->t, work);
    if (n == 0)
        return MPI_SUCCESS;
    if (r->t->contig) {
        memcpy(red_raw(r, work), kmpi_at(ubuf, r->lb), n * r->t->size);
        return MPI_SUCCESS;
    }
    tmp = malloc(n * r->t->size);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    kmpi_pack(ubuf, n, r->t, tmp);
    kmpi_unpack(tmp, n, r->t, work);
    free(tmp);
    return MPI_SUCCESS;
}

static int red_out(const struct kmpi_red *r, const void *work, size_t n, void *ubuf)
{
    void *tmp;

    if (!r->user)
        return kmpi_work_out(work, n, r->t, ubuf);
    if (n == 0)
        return MPI_SUCCESS;
    if (r->t->contig) {
        memcpy(kmpi_at(ubuf, r->lb), red_raw(r, work), n * r->t->size);
        return MPI_SUCCESS;
    }
    tmp = malloc(n * r->t->size);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    kmpi_pack(work, n, r->t, tmp);
    kmpi_unpack(tmp, n, r->t, ubuf);
    free(tmp);
    return MPI_SUCCESS;
}

/* an MPI error of the local steps (combine, in, out) */
static int red_local(const struct kmpi_coll *k, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    if (rc == MPI_ERR_NO_MEM)
        return coll_nomem(k);
    return kmpi_error(k->comm, rc, k->call, "combining the operands failed");
}

/* ------------------------------------------------------------ reductions */

int kmpi_coll_reduce(struct kmpi_coll *k, const struct kmpi_red *r, const void *in, void *out,
                     size_t count, int root)
{
    const int P = k->c->size, me = k->c->rank;
    const int top = r->o->commute ? root : 0;   /* the tree's root */
    const int vr  = (me - top + P) % P;
    size_t    bytes = red_span(r, count);
    void     *acc   = red_alloc(r, count), *tmp = red_alloc(r, count), *swap;
    int       rc    = acc == NULL || tmp == NULL ? coll_nomem(k) : MPI_SUCCESS;

    if (rc == MPI_SUCCESS)
        rc = red_local(k, red_in(r, in, count, acc));
    /* acc holds ranks [vr, vr + mask) of the tree, in order */
    for (int mask = 1; mask < P && rc == MPI_SUCCESS; mask <<= 1) {
        if (vr & mask) {
            rc = coll_step(k, red_raw(r, acc), bytes, (vr - mask + top) % P, NULL, 0, -1,
                           KMPI_STEP_FOLD);
            break;
        }
        if (vr + mask < P) {
            rc = coll_step(k, NULL, 0, -1, red_raw(r, tmp), bytes, (vr + mask + top) % P,
                           KMPI_STEP_FOLD);
            if (rc == MPI_SUCCESS)
                rc = red_local(k, red_combine(r, acc, tmp, count));
            swap = acc, acc = tmp, tmp = swap;
        }
    }
    if (rc == MPI_SUCCESS && top != root) {
        if (vr == 0)
            rc = coll_step(k, red_raw(r, acc), bytes, root, NULL, 0, -1, KMPI_STEP_FORWARD);
        else if (me == root)
            rc = coll_step(k, NULL, 0, -1, red_raw(r, acc), bytes, top, KMPI_STEP_FORWARD);
    }
    if (rc == MPI_SUCCESS && me == root)
        rc = red_local(k, red_out(r, acc, count, out));
    red_free(r, tmp);
    red_free(r, acc);
    return rc;
}

int kmpi_coll_allreduce(struct kmpi_coll *k, const struct kmpi_red *r, const void *in,
                        void *out, size_t count)
{
    const int P = k->c->size, me = k->c->rank;
    size_t    bytes = red_span(r, count);
    void     *acc   = red_alloc(r, count), *tmp = red_alloc(r, count), *swap;
    int       rc    = acc == NULL || tmp == NULL ? coll_nomem(k) : MPI_SUCCESS;
    int       p2 = 1, rem, nr;

    while (2 * p2 <= P)
        p2 *= 2;
    rem = P - p2;
    if (rc == MPI_SUCCESS)
        rc = red_local(k, red_in(r, in, count, acc));
    /* fold ranks 2i into 2i + 1 for i < rem: p2 ranks remain, in order */
    nr = me < 2 * rem ? (me % 2 ? me / 2 : -1) : me - rem;
    if (rc == MPI_SUCCESS && me < 2 * rem) {
        if (me % 2 == 0)
            rc = coll_step(k, red_raw(r, acc), bytes, me + 1, NULL, 0, -1, KMPI_STEP_FOLD);
        else {
            rc = coll_step(k, NULL, 0, -1, red_raw(r, tmp), bytes, me - 1, KMPI_STEP_FOLD);
            if (rc == MPI_SUCCESS)
                rc = red_local(k, red_combine(r, tmp, acc, count));
        }
    }
    for (int mask = 1, step = 1; nr >= 0 && mask < p2 && rc == MPI_SUCCESS; mask <<= 1, step++) {
        int pn   = nr ^ mask;
        int peer = pn < rem ? 2 * pn + 1 : pn + rem;
        rc = coll_step(k, red_raw(r, acc), bytes, peer, red_raw(r, tmp), bytes, peer, step);
        if (rc != MPI_SUCCESS)
            break;
        if (pn < nr)   /* the peer's ranks come first */
            rc = red_local(k, red_combine(r, tmp, acc, count));
        else {
            rc = red_local(k, red_combine(r, acc, tmp, count));
            swap = acc, acc = tmp, tmp = swap;
        }
    }
    if (rc == MPI_SUCCESS && me < 2 * rem) {
        if (me % 2 == 0)
            rc = coll_step(k, NULL, 0, -1, red_raw(r, acc), bytes, me + 1, KMPI_STEP_UNFOLD);
        else
            rc = coll_step(k, red_raw(r, acc), bytes, me - 1, NULL, 0, -1, KMPI_STEP_UNFOLD);
    }
    if (rc == MPI_SUCCESS)
        rc = red_local(k, red_out(r, acc, count, out));
    red_free(r, tmp);
    red_free(r, acc);
    return rc;
}

int kmpi_coll_reduce_scatter(struct kmpi_coll *k, const struct kmpi_red *r, const void *in,
                             void *out, const int *counts, int count)
{
    const int      P = k->c->size, me = k->c->rank;
    size_t        *off = malloc(((size_t)P + 1) * sizeof(*off)), mine;
    void          *work = NULL, *acc = NULL, *buf[2] = { NULL, NULL };
    kumi_request_t rb[2] = { KUMI_REQUEST_NULL, KUMI_REQUEST_NULL }, *rs;
    int            src_of[2] = { -1, -1 }, next = P - 1, rc = MPI_SUCCESS, krc = KUMI_OK, w;
    int            first = 1;

    rs = calloc((size_t)P, sizeof(*rs));
    if (off == NULL || rs == NULL) {
        free(rs);
        free(off);
        return coll_nomem(k);
    }
    off[0] = 0;   /* rank i's block: elements [off[i], off[i + 1]) */
    for (int i = 0; i < P; i++)
        off[i + 1] = off[i] + (counts != NULL ? (size_t)counts[i] : (size_t)count);
    mine   = off[me + 1] - off[me];
    work   = red_alloc(r, off[P]);
    acc    = red_alloc(r, mine);
    buf[0] = red_alloc(r, mine);
    buf[1] = red_alloc(r, mine);
    if (work == NULL || acc == NULL || buf[0] == NULL || buf[1] == NULL)
        rc = coll_nomem(k);
    if (rc == MPI_SUCCESS)
        rc = red_local(k, red_in(r, in, off[P], work));
    /* my blocks to their owners, all at once (they complete as owners fold) */
    for (int j = 1; j < P && rc == MPI_SUCCESS && krc == KUMI_OK; j++) {
        int    to = (me + j) % P;
        size_t n  = off[to + 1] - off[to];
        if (n > 0)
            krc = coll_isend(k, red_raw(r, red_elem(r, work, off[to])), red_span(r, n), to,
                             KMPI_STEP_FOLD, &rs[to]);
    }
    /* fold x_{P-1}, ..., x_0 into acc as acc = x_i op acc, two receives in
     * flight: buf[b] holds the block of rank src_of[b] */
    for (int i = P - 1; i >= 0 && mine > 0 && rc == MPI_SUCCESS && krc == KUMI_OK; i--) {
        const void *x;
        int         b = -1;
        for (int s = 0; s < 2; s++) {   /* keep both buffers busy */
            while (src_of[s] < 0 && next >= 0 && krc == KUMI_OK) {
                if (next != me) {
                    src_of[s] = next;
                    krc = coll_irecv(k, red_raw(r, buf[s]), red_span(r, mine), next,
                                     KMPI_STEP_FOLD, &rb[s]);
                }
                next--;
            }
        }
        if (krc != KUMI_OK)
            break;
        if (i == me)
            x = red_elem(r, work, off[me]);
        else {
            b   = src_of[0] == i ? 0 : 1;
            krc = coll_waitall(1, &rb[b]);
            if (krc != KUMI_OK)
                break;
            x = buf[b];
        }
        if (first) {
            memcpy(red_raw(r, acc), red_raw(r, x), red_span(r, mine));
            first = 0;
        } else
            rc = red_local(k, red_combine(r, x, acc, mine));
        if (b >= 0)
            src_of[b] = -1;
    }
    w = coll_waitall(2, rb);
    if (krc == KUMI_OK)
        krc = w;
    w = coll_waitall(P, rs);
    if (krc == KUMI_OK)
        krc = w;
    if (rc == MPI_SUCCESS)
        rc = coll_kumi(k, krc);
    if (rc == MPI_SUCCESS)
        rc = red_local(k, red_out(r, acc, mine, out));
    red_free(r, buf[1]);
    red_free(r, buf[0]);
    red_free(r, acc);
    red_free(r, work);
    free(rs);
    free(off);
    return rc;
}

int kmpi_coll_scan(struct kmpi_coll *k, const struct kmpi_red *r, const void *in, void *out,
                   size_t count, int exclusive)
{
    const int P = k->c->size, me = k->c->rank;
    size_t    bytes = red_span(r, count);
    void     *incl = red_alloc(r, count), *tmp = red_alloc(r, count);
    void     *excl = exclusive ? red_alloc(r, count) : NULL;
    int       rc   = incl == NULL || tmp == NULL || (exclusive && excl == NULL) ? coll_nomem(k)
                                                                                 : MPI_SUCCESS;
    int       has_excl = 0;

    if (rc == MPI_SUCCESS)
        rc = red_local(k, red_in(r, in, count, incl));
    /* incl: ranks (me - 2d, me]; excl: (me - 2d, me) */
    for (int d = 1, step = 0; d < P && rc == MPI_SUCCESS; d <<= 1, step++) {
        int to = me + d < P ? me + d : -1, from = me - d >= 0 ? me - d : -1;
        rc = coll_step(k, red_raw(r, incl), bytes, to, red_raw(r, tmp), bytes, from, step);
        if (rc != MPI_SUCCESS || from < 0)
            continue;
        if (exclusive && has_excl)
            rc = red_local(k, red_combine(r, tmp, excl, count));
        else if (exclusive) {
            memcpy(red_raw(r, excl), red_raw(r, tmp), bytes);
            has_excl = 1;
        }
        if (rc == MPI_SUCCESS)
            rc = red_local(k, red_combine(r, tmp, incl, count));
    }
    if (rc == MPI_SUCCESS && (!exclusive || has_excl))
        rc = red_local(k, red_out(r, exclusive ? excl : incl, count, out));
    red_free(r, excl);
    red_free(r, tmp);
    red_free(r, incl);
    return rc;
}

/* ------------------------------------------------------------ data movement */

int kmpi_coll_copy(const void *sbuf, size_t scount, const struct kmpi_type *st, void *rbuf,
                   size_t rcount, const struct kmpi_type *rt)
{
    size_t bytes = scount * st->size;
    void  *tmp;

    if (bytes > rcount * rt->size)
        return MPI_ERR_TRUNCATE;
    if (bytes == 0)
        return MPI_SUCCESS;
    if (st->contig && rt->contig)
        memcpy(kmpi_at(rbuf, rt->true_lb), kmpi_at(sbuf, st->true_lb), bytes);
    else if (st->contig)
        kmpi_unpack(kmpi_at(sbuf, st->true_lb), bytes / rt->size, rt, rbuf);
    else if (rt->contig)
        kmpi_pack(sbuf, scount, st, kmpi_at(rbuf, rt->true_lb));
    else {
        tmp = malloc(bytes);
        if (tmp == NULL)
            return MPI_ERR_NO_MEM;
        kmpi_pack(sbuf, scount, st, tmp);
        kmpi_unpack(tmp, bytes / rt->size, rt, rbuf);
        free(tmp);
    }
    return MPI_SUCCESS;
}

static int coll_copy_rc(const struct kmpi_coll *k, int rc, size_t sbytes, size_t rbytes)
{
    if (rc == MPI_ERR_TRUNCATE)
        return kmpi_error(k->comm, rc, k->call, "%zu bytes sent do not fit the %zu received",
                          sbytes, rbytes);
    return rc == MPI_ERR_NO_MEM ? coll_nomem(k) : rc;
}

static size_t side_count(const struct kmpi_side *s, int i)
{
    return s->counts != NULL ? (size_t)s->counts[i] : (size_t)s->count;
}

static size_t side_bytes(const struct kmpi_side *s, int i)
{
    return side_count(s, i) * s->t->size;
}

/* where rank i's elements start (before true_lb) */
static void *side_block(const struct kmpi_side *s, int i)
{
    MPI_Aint d = s->counts != NULL ? (MPI_Aint)s->displs[i] : (MPI_Aint)i * s->count;
    return kmpi_at(s->buf, d * s->t->extent);
}

/* Staging of a side's blocks for messages: a contiguous type's block
 * travels from/to the buffer itself, unless forced; other blocks are
 * packed at their offset in one temporary area (skip_me: without mine). */
struct coll_stage {
    unsigned char *tmp;
    size_t        *off;   /* per rank, when tmp is used */
};

static int stage_init(struct coll_stage *g, const struct kmpi_side *s, int P, int me,
                      int skip_me, int force)
{
    size_t total = 0;

    g->tmp = NULL;
    g->off = NULL;
    if (s->t->contig && !force)
        return MPI_SUCCESS;
    g->off = malloc((size_t)P * sizeof(*g->off));
    if (g->off == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < P; i++) {
        g->off[i] = total;
        if (!(skip_me && i == me))
            total += side_bytes(s, i);
    }
    g->tmp = malloc(total != 0 ? total : 1);
    return g->tmp != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* the bytes of rank i's block as they travel */
static void *stage_at(const struct coll_stage *g, const struct kmpi_side *s, int i)
{
    if (g->tmp == NULL)
        return kmpi_at(side_block(s, i), s->t->true_lb);
    return g->tmp + g->off[i];
}

static void stage_pack(const struct coll_stage *g, const struct kmpi_side *s, int i)
{
    if (g->tmp != NULL)
        kmpi_pack(side_block(s, i), side_count(s, i), s->t, g->tmp + g->off[i]);
}

static void stage_unpack(const struct coll_stage *g, const struct kmpi_side *s, int i)
{
    if (g->tmp != NULL)
        kmpi_unpack(g->tmp + g->off[i], side_count(s, i), s->t, side_block(s, i));
}

static void stage_free(struct coll_stage *g)
{
    free(g->tmp);
    free(g->off);
}

/* my own contribution as one block (send side of gather/allgather) */
static struct kmpi_side side_one(const void *buf, int count, const struct kmpi_type *t)
{
    return (struct kmpi_side){ .buf = buf, .count = count, .counts = NULL, .displs = NULL,
                               .t = t };
}

int kmpi_coll_gatherv(struct kmpi_coll *k, const struct kmpi_side *send,
                      const struct kmpi_side *recv, int root)
{
    const int         P = k->c->size, me = k->c->rank;
    struct coll_stage g = { NULL, NULL };
    kumi_request_t   *rq;
    int               rc, krc = KUMI_OK, w;

    if (me != root) {   /* one block to the root; zero bytes: no message */
        struct kmpi_side one = side_one(send->buf, send->count, send->t);
        if (side_bytes(&one, 0) == 0)
            return MPI_SUCCESS;
        rc = stage_init(&g, &one, 1, 0, 0, 0);
        if (rc == MPI_SUCCESS) {
            kumi_request_t q = KUMI_REQUEST_NULL;
            stage_pack(&g, &one, 0);
            krc = coll_isend(k, stage_at(&g, &one, 0), side_bytes(&one, 0), root, 0, &q);
            w   = coll_waitall(1, &q);
            rc  = coll_kumi(k, krc != KUMI_OK ? krc : w);
        } else
            rc = coll_nomem(k);
        stage_free(&g);
        return rc;
    }
    rq = calloc((size_t)P, sizeof(*rq));
    rc = rq == NULL ? MPI_ERR_NO_MEM : stage_init(&g, recv, P, me, 1, 0);
    if (rc != MPI_SUCCESS) {
        stage_free(&g);
        free(rq);
        return coll_nomem(k);
    }
    for (int j = 1; j < P && krc == KUMI_OK; j++) {
        int i = (me + j) % P;
        if (side_bytes(recv, i) > 0)
            krc = coll_irecv(k, stage_at(&g, recv, i), side_bytes(recv, i), i, 0, &rq[i]);
    }
    if (send->buf != MPI_IN_PLACE) {
        rc = kmpi_coll_copy(send->buf, (size_t)send->count, send->t, side_block(recv, me),
                            side_count(recv, me), recv->t);
        rc = coll_copy_rc(k, rc, (size_t)send->count * send->t->size, side_bytes(recv, me));
    }
    w = coll_waitall(P, rq);
    if (rc == MPI_SUCCESS)
        rc = coll_kumi(k, krc != KUMI_OK ? krc : w);
    for (int i = 0; i < P && rc == MPI_SUCCESS; i++)
        if (i != me)
            stage_unpack(&g, recv, i);
    stage_free(&g);
    free(rq);
    return rc;
}

int kmpi_coll_scatterv(struct kmpi_coll *k, const struct kmpi_side *send,
                       const struct kmpi_side *recv, int root)
{
    const int         P = k->c->size, me = k->c->rank;
    struct coll_stage g = { NULL, NULL };
    kumi_request_t   *rq;
    int               rc, krc = KUMI_OK, w;

    if (me != root) {   /* one block from the root */
        struct kmpi_side one = side_one(recv->buf, recv->count, recv->t);
        if (side_bytes(&one, 0) == 0)
            return MPI_SUCCESS;
        rc = stage_init(&g, &one, 1, 0, 0, 0);
        if (rc == MPI_SUCCESS) {
            kumi_request_t q = KUMI_REQUEST_NULL;
            krc = coll_irecv(k, stage_at(&g, &one, 0), side_bytes(&one, 0), root, 0, &q);
            w   = coll_waitall(1, &q);
            rc  = coll_kumi(k, krc != KUMI_OK ? krc : w);
            if (rc == MPI_SUCCESS)
                stage_unpack(&g, &one, 0);
        } else
            rc = coll_nomem(k);
        stage_free(&g);
        return rc;
    }
    rq = calloc((size_t)P, sizeof(*rq));
    rc = rq == NULL ? MPI_ERR_NO_MEM : stage_init(&g, send, P, me, 1, 0);
    if (rc != MPI_SUCCESS) {
        stage_free(&g);
        free(rq);
        return coll_nomem(k);
    }
    for (int j = 1; j < P && krc == KUMI_OK; j++) {
        int i = (me + j) % P;
        if (side_bytes(send, i) > 0) {
            stage_pack(&g, send, i);
            krc = coll_isend(k, stage_at(&g, send, i), side_bytes(send, i), i, 0, &rq[i]);
        }
    }
    if (recv->buf != MPI_IN_PLACE) {
        rc = kmpi_coll_copy(side_block(send, me), side_count(send, me), send->t,
                            (void *)recv->buf, (size_t)recv->count, recv->t);
        rc = coll_copy_rc(k, rc, side_bytes(send, me), (size_t)recv->count * recv->t->size);
    }
    w = coll_waitall(P, rq);
    if (rc == MPI_SUCCESS)
        rc = coll_kumi(k, krc != KUMI_OK ? krc : w);
    stage_free(&g);
    free(rq);
    return rc;
}

int kmpi_coll_allgatherv(struct kmpi_coll *k, const struct kmpi_side *send,
                         const struct kmpi_side *recv)
{
    const int         P = k->c->size, me = k->c->rank;
    const size_t      mine = side_bytes(recv, me);
    struct coll_stage gr = { NULL, NULL }, gs = { NULL, NULL };
    struct kmpi_side  one;
    kumi_request_t   *rq;
    const void       *src;
    int               rc, krc = KUMI_OK, w;

    /* my block as it travels: from the send buffer or my block of recv */
    one = send->buf == MPI_IN_PLACE ? side_one(side_block(recv, me), (int)side_count(recv, me),
                                               recv->t)
                                    : side_one(send->buf, send->count, send->t);
    if (side_bytes(&one, 0) != mine)
        return kmpi_error(k->comm, MPI_ERR_TRUNCATE, k->call,
                          "rank %d sends %zu bytes but its receive block holds %zu", me,
                          side_bytes(&one, 0), mine);
    rq = calloc(2 * (size_t)P, sizeof(*rq));
    rc = rq == NULL ? MPI_ERR_NO_MEM : stage_init(&gr, recv, P, me, 1, 0);
    if (rc == MPI_SUCCESS)
        rc = stage_init(&gs, &one, 1, 0, 0, 0);
    if (rc != MPI_SUCCESS) {
        stage_free(&gs);
        stage_free(&gr);
        free(rq);
        return coll_nomem(k);
    }
    stage_pack(&gs, &one, 0);
    src = stage_at(&gs, &one, 0);
    for (int j = 1; j < P && krc == KUMI_OK; j++) {
        int from = (me - j + P) % P, to = (me + j) % P;
        if (side_bytes(recv, from) > 0)
            krc = coll_irecv(k, stage_at(&gr, recv, from), side_bytes(recv, from), from, 0,
                             &rq[from]);
        if (mine > 0 && krc == KUMI_OK)
            krc = coll_isend(k, src, mine, to, 0, &rq[P + to]);
    }
    if (send->buf != MPI_IN_PLACE) {
        rc = kmpi_coll_copy(send->buf, (size_t)send->count, send->t, side_block(recv, me),
                            side_count(recv, me), recv->t);
        rc = coll_copy_rc(k, rc, mine, mine);
    }
    w = coll_waitall(2 * P, rq);
    if (rc == MPI_SUCCESS)
        rc = coll_kumi(k, krc != KUMI_OK ? krc : w);
    for (int i = 0; i < P && rc == MPI_SUCCESS; i++)
        if (i != me)
            stage_unpack(&gr, recv, i);
    stage_free(&gs);
    stage_free(&gr);
    free(rq);
    return rc;
}

int kmpi_coll_alltoallv(struct kmpi_coll *k, const struct kmpi_side *send,
                        const struct kmpi_side *recv)
{
    const int               P = k->c->size, me = k->c->rank;
    const int               inplace = send->buf == MPI_IN_PLACE;
    /* in place, what is sent is recv's blocks, copied aside first */
    const struct kmpi_side *out = inplace ? recv : send;
    struct coll_stage       gs = { NULL, NULL }, gr = { NULL, NULL };
    kumi_request_t         *rq;
    int                     rc, krc = KUMI_OK, w;

    rq = calloc(2 * (size_t)P, sizeof(*rq));
    rc = rq == NULL ? MPI_ERR_NO_MEM : stage_init(&gr, recv, P, me, 1, 0);
    if (rc == MPI_SUCCESS)
        rc = stage_init(&gs, out, P, me, 1, inplace);
    if (rc != MPI_SUCCESS) {
        stage_free(&gs);
        stage_free(&gr);
        free(rq);
        return coll_nomem(k);
    }
    for (int i = 0; i < P; i++)   /* in place: before any receive lands */
        if (i != me && side_bytes(out, i) > 0)
            stage_pack(&gs, out, i);
    for (int j = 1; j < P && krc == KUMI_OK; j++) {
        int from = (me - j + P) % P;
        if (side_bytes(recv, from) > 0)
            krc = coll_irecv(k, stage_at(&gr, recv, from), side_bytes(recv, from), from, 0,
                             &rq[from]);
    }
    for (int j = 1; j < P && krc == KUMI_OK; j++) {
        int to = (me + j) % P;
        if (side_bytes(out, to) > 0)
            krc = coll_isend(k, stage_at(&gs, out, to), side_bytes(out, to), to, 0, &rq[P + to]);
    }
    if (!inplace) {
        rc = kmpi_coll_copy(side_block(send, me), side_count(send, me), send->t,
                            side_block(recv, me), side_count(recv, me), recv->t);
        rc = coll_copy_rc(k, rc, side_bytes(send, me), side_bytes(recv, me));
    }
    w = coll_waitall(2 * P, rq);
    if (rc == MPI_SUCCESS)
        rc = coll_kumi(k, krc != KUMI_OK ? krc : w);
    for (int i = 0; i < P && rc == MPI_SUCCESS; i++)
        if (i != me)
            stage_unpack(&gr, recv, i);
    stage_free(&gs);
    stage_free(&gr);
    free(rq);
    return rc;
}
