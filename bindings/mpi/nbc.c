/*
 * nbc.c -- the schedule engine of the non-blocking collectives (nbc.h):
 * building schedules, running them a round at a time, the active list
 * that kmpi_nbc_progress advances from every MPI call that polls, and the
 * requests (req.c's generic kind) that complete them.
 *
 * A round is the steps up to a wait step: local steps run as they are
 * reached, message steps start kumi requests on the collective context;
 * the round ends when every one of them has completed. A failed message
 * (truncated, a dead peer) records the schedule's error but the schedule
 * still runs to its end, so that its peers are not left waiting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "nbc.h"
#include "rt.h"

enum nbc_kind {
    NBC_SEND,
    NBC_RECV,
    NBC_WAIT,
    NBC_COPY,      /* n bytes                                   */
    NBC_PACK,      /* n elements of t                           */
    NBC_UNPACK,
    NBC_RED_IN,    /* n elements of the reduction's datatype    */
    NBC_RED_OUT,
    NBC_APPLY,
    NBC_CALL       /* fn(s, arg): kmpi_sched_call                 */
};

struct nbc_step {
    enum nbc_kind     kind;
    int               peer, tag;
    const void       *src;
    void             *dst;
    size_t            n;
    struct kmpi_type *t;
    int             (*fn)(struct kmpi_sched *s, void *arg);
};

/* scratch memory: a list of blocks */
struct nbc_tmp {
    struct nbc_tmp *next;
    size_t          cap;    /* bytes of data */
    max_align_t     data[];
};

/* Large scratch blocks outlive their schedule: a few are kept for the
 * next one. Freshly allocated, every page of a block faults in once more
 * per call (glibc returns large blocks to the kernel when freed): a 1 MiB
 * MPI_Iallreduce at 2 PEs spent most of its time in page faults, and the
 * cross-memory-attach reads into a fresh buffer fault too (0.9-1.0 ms a
 * call against 50 us for MPI_Allreduce; bindings/mpi/README.md). Kept:
 * blocks of at least NBC_KEEP_MIN bytes, NBC_KEEP_N of them, at most
 * NBC_KEEP_MAX bytes together; the program's threads call MPI one at a
 * time (FUNNELED), so no lock. */
#define NBC_KEEP_MIN ((size_t)64 << 10)
#define NBC_KEEP_N   8
#define NBC_KEEP_MAX ((size_t)64 << 20)
static struct nbc_tmp *nbc_kept[NBC_KEEP_N];
static size_t          nbc_kept_bytes;

/* the smallest kept block of at least bytes, taken out; NULL: none */
static struct nbc_tmp *tmp_reuse(size_t bytes)
{
    int best = -1;

    for (int i = 0; i < NBC_KEEP_N; i++)
        if (nbc_kept[i] != NULL && nbc_kept[i]->cap >= bytes
            && (best < 0 || nbc_kept[i]->cap < nbc_kept[best]->cap))
            best = i;
    if (best < 0)
        return NULL;
    struct nbc_tmp *b = nbc_kept[best];
    nbc_kept[best] = NULL;
    nbc_kept_bytes -= b->cap;
    return b;
}

/* keeps b for a later schedule, or frees it (or a smaller kept one) */
static void tmp_release(struct nbc_tmp *b)
{
    int slot = -1;

    if (b->cap < NBC_KEEP_MIN || b->cap > NBC_KEEP_MAX) {
        free(b);
        return;
    }
    for (int i = 0; i < NBC_KEEP_N && slot < 0; i++)
        if (nbc_kept[i] == NULL)
            slot = i;
    if (slot < 0) {   /* full: the smallest goes, if smaller than b */
        slot = 0;
        for (int i = 1; i < NBC_KEEP_N; i++)
            if (nbc_kept[i]->cap < nbc_kept[slot]->cap)
                slot = i;
        if (nbc_kept[slot]->cap >= b->cap) {
            free(b);
            return;
        }
        nbc_kept_bytes -= nbc_kept[slot]->cap;
        free(nbc_kept[slot]);
        nbc_kept[slot] = NULL;
    }
    while (nbc_kept_bytes + b->cap > NBC_KEEP_MAX) {   /* drop the largest others */
        int big = -1;
        for (int i = 0; i < NBC_KEEP_N; i++)
            if (nbc_kept[i] != NULL && (big < 0 || nbc_kept[i]->cap > nbc_kept[big]->cap))
                big = i;
        if (big < 0)
            break;
        nbc_kept_bytes -= nbc_kept[big]->cap;
        free(nbc_kept[big]);
        nbc_kept[big] = NULL;
    }
    nbc_kept[slot] = b;
    nbc_kept_bytes += b->cap;
}

/* the schedule's reduction (kmpi_sched_red) */
struct nbc_red {
    MPI_Datatype       dt;
    struct kmpi_type  *t;
    int                pre;       /* the predefined op, 0: a user op          */
    MPI_User_function *fn;        /* a user op's function (taken at the start:
                                     MPI_Op_free may come before the end)     */
    int                commute;
    size_t             unit;      /* bytes of an element in a work buffer     */
    void              *in, *io;   /* user op, non-contiguous dt: the operands
                                     in dt's layout (element pointers)        */
};

struct kmpi_sched {
    const char        *call;
    MPI_Comm           comm;
    struct kmpi_comm  *c;
    int                tagbase;
    struct nbc_step   *steps;
    size_t             nsteps, cap, pos;
    int                round_msgs, max_msgs;   /* building: messages a round */
    kumi_request_t    *reqs;                   /* the running round's        */
    int                nreq;
    struct nbc_tmp    *tmps;
    struct kmpi_type **held;                   /* types kept alive           */
    size_t             nheld, heldcap;
    struct nbc_red     red;
    int                nomem;
    int                err;                    /* first MPI error class      */
    int                stopped, done, orphan;
    struct kmpi_sched *prev, *next;            /* the active list            */
};

int kmpi_nbc_active;
int kmpi_nbc_in_kumi;
static struct kmpi_sched *nbc_head;
static int                nbc_busy;   /* a step is running: no re-entry */

/* ------------------------------------------------------------ building */

struct kmpi_sched *kmpi_sched_new(const char *call, MPI_Comm comm, struct kmpi_comm *c)
{
    struct kmpi_sched *s = calloc(1, sizeof(*s));

    if (s == NULL) {
        kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a collective's schedule");
        return NULL;
    }
    s->call    = call;
    s->comm    = comm;
    s->c       = c;
    s->tagbase = KMPI_NBC_TAG | (int)((c->nbc_seq++ & KMPI_NBC_SEQ_MASK) << 8);
    return s;
}

static void sched_free(struct kmpi_sched *s);

void kmpi_sched_discard(struct kmpi_sched *s)
{
    s->c->nbc_seq--;
    sched_free(s);
}

void *kmpi_sched_tmp(struct kmpi_sched *s, size_t bytes)
{
    struct nbc_tmp *b = bytes >= NBC_KEEP_MIN ? tmp_reuse(bytes) : NULL;

    if (b == NULL && (b = malloc(sizeof(*b) + (bytes ? bytes : 1))) != NULL)
        b->cap = bytes ? bytes : 1;
    if (b == NULL) {
        s->nomem = 1;
        return NULL;
    }
    b->next = s->tmps;
    s->tmps = b;
    return b->data;
}

static struct nbc_step *step_add(struct kmpi_sched *s, enum nbc_kind kind)
{
    if (s->nsteps == s->cap) {
        size_t           n = s->cap ? 2 * s->cap : 32;
        struct nbc_step *t = realloc(s->steps, n * sizeof(*t));
        if (t == NULL) {
            s->nomem = 1;
            return NULL;
        }
        s->steps = t;
        s->cap   = n;
    }
    struct nbc_step *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof(*st));
    st->kind = kind;
    return st;
}

static void hold(struct kmpi_sched *s, struct kmpi_type *t)
{
    if (t->predefined)
        return;
    if (s->nheld == s->heldcap) {
        size_t             n = s->heldcap ? 2 * s->heldcap : 8;
        struct kmpi_type **h = realloc(s->held, n * sizeof(*h));
        if (h == NULL) {
            s->nomem = 1;
            return;
        }
        s->held    = h;
        s->heldcap = n;
    }
    kmpi_type_hold(t);
    s->held[s->nheld++] = t;
}

static void msg_add(struct kmpi_sched *s, enum nbc_kind kind, const void *buf, size_t bytes,
                    int peer, int sub)
{
    struct nbc_step *st = step_add(s, kind);

    if (st == NULL)
        return;
    st->peer = peer;
    st->tag  = s->tagbase | (sub & 0xff);
    st->src  = buf;
    st->dst  = (void *)buf;
    st->n    = bytes;
    if (++s->round_msgs > s->max_msgs)
        s->max_msgs = s->round_msgs;
}

void kmpi_sched_send(struct kmpi_sched *s, const void *buf, size_t bytes, int peer, int sub)
{
    msg_add(s, NBC_SEND, buf, bytes, peer, sub);
}

void kmpi_sched_recv(struct kmpi_sched *s, void *buf, size_t bytes, int peer, int sub)
{
    msg_add(s, NBC_RECV, buf, bytes, peer, sub);
}

void kmpi_sched_wait(struct kmpi_sched *s)
{
    if (s->round_msgs == 0)
        return;   /* nothing to wait for: the next local steps may run now */
    step_add(s, NBC_WAIT);
    s->round_msgs = 0;
}

static void local_add(struct kmpi_sched *s, enum nbc_kind kind, const void *src, void *dst,
                      size_t n, struct kmpi_type *t)
{
    struct nbc_step *st = step_add(s, kind);

    if (st == NULL)
        return;
    st->src = src;
    st->dst = dst;
    st->n   = n;
    st->t   = t;
    if (t != NULL)
        hold(s, t);
}

void kmpi_sched_call(struct kmpi_sched *s, int (*fn)(struct kmpi_sched *s, void *arg),
                     void *arg)
{
    struct nbc_step *st = step_add(s, NBC_CALL);

    if (st == NULL)
        return;
    st->fn  = fn;
    st->dst = arg;
}

size_t kmpi_sched_mark(const struct kmpi_sched *s)
{
    return s->nsteps;
}

void kmpi_sched_fail(struct kmpi_sched *s, int err)
{
    if (s->err == MPI_SUCCESS)
        s->err = err;
}

void kmpi_sched_copy(struct kmpi_sched *s, const void *src, void *dst, size_t bytes)
{
    if (bytes > 0 && src != dst)
        local_add(s, NBC_COPY, src, dst, bytes, NULL);
}

void kmpi_sched_pack(struct kmpi_sched *s, const void *buf, size_t count, struct kmpi_type *t,
                     void *packed)
{
    if (count > 0 && t->size > 0)
        local_add(s, NBC_PACK, buf, packed, count, t);
}

void kmpi_sched_unpack(struct kmpi_sched *s, const void *packed, size_t count,
                       struct kmpi_type *t, void *buf)
{
    if (count > 0 && t->size > 0)
        local_add(s, NBC_UNPACK, packed, buf, count, t);
}

const void *kmpi_sched_send_image(struct kmpi_sched *s, const void *buf, size_t count,
                                  struct kmpi_type *t)
{
    void *img;

    if (t->contig || count == 0 || t->size == 0)
        return buf;
    if ((img = kmpi_sched_tmp(s, count * t->size)) != NULL)
        kmpi_sched_pack(s, buf, count, t, img);
    return img;
}

void *kmpi_sched_recv_image(struct kmpi_sched *s, void *buf, size_t count, struct kmpi_type *t)
{
    if (t->contig || count == 0 || t->size == 0)
        return buf;
    return kmpi_sched_tmp(s, count * t->size);
}

void kmpi_sched_recv_finish(struct kmpi_sched *s, const void *image, void *buf, size_t count,
                            struct kmpi_type *t)
{
    if (image != buf)
        kmpi_sched_unpack(s, image, count, t, buf);
}

void kmpi_sched_typed_copy(struct kmpi_sched *s, const void *sbuf, size_t scount,
                           struct kmpi_type *st, void *rbuf, struct kmpi_type *rt)
{
    size_t bytes = scount * st->size;

    if (bytes == 0 || rt->size == 0)
        return;
    if (st->contig && rt->contig) {
        kmpi_sched_copy(s, sbuf, rbuf, bytes);
        return;
    }
    if (rt->contig) {
        kmpi_sched_pack(s, sbuf, scount, st, rbuf);
        return;
    }
    if (st->contig) {
        kmpi_sched_unpack(s, sbuf, bytes / rt->size, rt, rbuf);
        return;
    }
    void *tmp = kmpi_sched_tmp(s, bytes);
    if (tmp == NULL)
        return;
    kmpi_sched_pack(s, sbuf, scount, st, tmp);
    kmpi_sched_unpack(s, tmp, bytes / rt->size, rt, rbuf);
}

/* ------------------------------------------------------------ reductions */

/* the element pointer of a buffer in dt's layout holding count elements:
 * mem must hold red_span(t, count) bytes */
static MPI_Aint red_lo(const struct kmpi_type *t, size_t count)
{
    return t->extent >= 0 ? t->true_lb : (MPI_Aint)(count - 1) * t->extent + t->true_lb;
}

static size_t red_span(const struct kmpi_type *t, size_t count)
{
    MPI_Aint e = t->extent >= 0 ? t->extent : -t->extent;
    return (size_t)((MPI_Aint)(count - 1) * e + t->true_extent);
}

void kmpi_sched_red(struct kmpi_sched *s, MPI_Op op, MPI_Datatype dt, struct kmpi_type *t,
                    size_t maxcount)
{
    const struct kmpi_op *o = kmpi_op(op);
    struct nbc_red       *r = &s->red;

    r->dt      = dt;
    r->t       = t;
    r->pre     = o->predefined;
    r->fn      = o->fn;
    r->commute = o->commute;
    r->unit    = r->pre ? kmpi_work_bytes(t, 1) : t->size;
    hold(s, t);
    if (!r->pre && !t->contig && maxcount > 0 && t->size > 0) {
        size_t span = red_span(t, maxcount);
        void  *a = kmpi_sched_tmp(s, span), *b = kmpi_sched_tmp(s, span);
        if (a != NULL && b != NULL) {
            r->in = kmpi_at(a, -red_lo(t, maxcount));
            r->io = kmpi_at(b, -red_lo(t, maxcount));
        }
    }
}

size_t kmpi_sched_unit(const struct kmpi_sched *s)
{
    return s->red.unit;
}

int kmpi_sched_commutes(const struct kmpi_sched *s)
{
    return s->red.commute;
}

int kmpi_sched_predefined(const struct kmpi_sched *s)
{
    return s->red.pre != 0;
}

void kmpi_sched_red_in(struct kmpi_sched *s, const void *buf, size_t count, void *work)
{
    if (count > 0 && s->red.unit > 0)
        local_add(s, NBC_RED_IN, buf, work, count, NULL);
}

void kmpi_sched_red_out(struct kmpi_sched *s, const void *work, size_t count, void *buf)
{
    if (count > 0 && s->red.unit > 0)
        local_add(s, NBC_RED_OUT, work, buf, count, NULL);
}

void kmpi_sched_apply(struct kmpi_sched *s, const void *in, void *inout, size_t count)
{
    if (count > 0 && s->red.unit > 0)
        local_add(s, NBC_APPLY, in, inout, count, NULL);
}

/* inout = in op inout on work buffers */
static int red_apply(const struct nbc_red *r, const void *in, void *inout, size_t n)
{
    const struct kmpi_type *t = r->t;
    MPI_Datatype            dt = r->dt;
    int                     len = (int)n;

    if (r->pre)
        return kmpi_op_apply_basic(r->pre, t->basic, in, inout, n * t->nbasic);
    if (t->contig) {   /* packed elements are dt's layout (lb 0) */
        r->fn((void *)in, inout, &len, &dt);
        return MPI_SUCCESS;
    }
    if (r->in == NULL)
        return MPI_ERR_NO_MEM;
    kmpi_unpack(in, n, t, r->in);
    kmpi_unpack(inout, n, t, r->io);
    r->fn(r->in, r->io, &len, &dt);
    kmpi_pack(r->io, n, t, inout);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ argument checks */

struct kmpi_comm *kmpi_nbc_comm(const char *call, MPI_Comm comm, MPI_Request *request,
                                int blocking, int *rc)
{
    struct kmpi_comm *c;

    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((c = kmpi_comm_fast(comm)) == NULL) {
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator%s", comm,
                         comm == MPI_COMM_NULL ? " (MPI_COMM_NULL)" : "");
        return NULL;
    }
    if (!blocking && request == NULL) {
        *rc = kmpi_error(comm, MPI_ERR_ARG, call, "request is NULL");
        return NULL;
    }
    return c;
}

const char *kmpi_nbc_type_name(const struct kmpi_type *t)
{
    return t->name[0] != '\0' ? t->name : "a derived datatype";
}

int kmpi_nbc_type(const char *call, MPI_Comm comm, MPI_Datatype dt, const char *what,
                  struct kmpi_type **out)
{
    struct kmpi_type *t = kmpi_type(dt);

    if (t == NULL)
        return kmpi_error(comm, MPI_ERR_TYPE, call, "%s %d is not a datatype%s", what, dt,
                          dt == MPI_DATATYPE_NULL ? " (MPI_DATATYPE_NULL)" : " (freed?)");
    if (!t->committed)
        return kmpi_error(comm, MPI_ERR_TYPE, call, "%s (%s) is not committed: call "
                          "MPI_Type_commit first", what, kmpi_nbc_type_name(t));
    *out = t;
    return MPI_SUCCESS;
}

int kmpi_nbc_count(const char *call, MPI_Comm comm, int count, const char *what)
{
    if (count < 0)
        return kmpi_error(comm, MPI_ERR_COUNT, call, "%s %d is negative", what, count);
    return MPI_SUCCESS;
}

int kmpi_nbc_root(const char *call, MPI_Comm comm, const struct kmpi_comm *c, int root)
{
    if (root < 0 || root >= c->size)
        return kmpi_error(comm, MPI_ERR_ROOT, call, "root %d is not a rank of the "
                          "communicator (size %d)", root, c->size);
    return MPI_SUCCESS;
}

int kmpi_nbc_in_place(const char *call, MPI_Comm comm, const char *what)
{
    return kmpi_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed %s", what);
}

int kmpi_nbc_side_check(const char *call, MPI_Comm comm, struct kmpi_sched *s,
                        struct kmpi_nbc_side *d, int n, const MPI_Datatype *handles,
                        const char *what)
{
    char name[48];
    int  rc;

    if (d->counts == NULL && (rc = kmpi_nbc_count(call, comm, d->count, what)) != MPI_SUCCESS)
        return rc;
    if (handles != NULL && n > 0) {
        if ((d->types = kmpi_sched_tmp(s, (size_t)n * sizeof(*d->types))) == NULL)
            return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for %d datatypes", n);
        for (int i = 0; i < n; i++) {
            snprintf(name, sizeof name, "%stypes[%d]", what, i);
            if ((rc = kmpi_nbc_type(call, comm, handles[i], name, &d->types[i])) != MPI_SUCCESS)
                return rc;
        }
    }
    for (int i = 0; d->counts != NULL && i < n; i++)
        if (d->counts[i] < 0)
            return kmpi_error(comm, MPI_ERR_COUNT, call, "%scounts[%d] = %d is negative", what,
                              i, d->counts[i]);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ running */

static void sched_fail(struct kmpi_sched *s, int err)
{
    if (s->err == MPI_SUCCESS)
        s->err = err;
}

/* Runs local steps and starts message steps up to the next wait (or the
 * end). 0: the round's messages are out; -1: a message could not start;
 * 1: a call step asked to be called again later. */
static int sched_round(struct kmpi_sched *s)
{
    while (s->pos < s->nsteps) {
        struct nbc_step *st = &s->steps[s->pos++];
        int              rc = MPI_SUCCESS, krc;
        switch (st->kind) {
        case NBC_WAIT:
            return 0;
        case NBC_SEND:
            krc = kmpi_coll_isend(st->src, st->n, st->peer, st->tag, s->c, &s->reqs[s->nreq]);
            if (krc != KUMI_OK) {
                sched_fail(s, kmpi_from_kumi(krc));
                return -1;
            }
            s->nreq++;
            break;
        case NBC_RECV:
            krc = kmpi_coll_irecv(st->dst, st->n, st->peer, st->tag, s->c, &s->reqs[s->nreq]);
            if (krc != KUMI_OK) {
                sched_fail(s, kmpi_from_kumi(krc));
                return -1;
            }
            s->nreq++;
            break;
        case NBC_COPY:
            memmove(st->dst, st->src, st->n);
            break;
        case NBC_PACK:
            kmpi_pack(st->src, st->n, st->t, st->dst);
            break;
        case NBC_UNPACK:
            kmpi_unpack(st->src, st->n, st->t, st->dst);
            break;
        case NBC_RED_IN:
            if (s->red.pre)
                rc = kmpi_work_in(st->src, st->n, s->red.t, st->dst);
            else
                kmpi_pack(st->src, st->n, s->red.t, st->dst);
            break;
        case NBC_RED_OUT:
            if (s->red.pre)
                rc = kmpi_work_out(st->src, st->n, s->red.t, st->dst);
            else
                kmpi_unpack(st->src, st->n, s->red.t, st->dst);
            break;
        case NBC_APPLY:
            rc = red_apply(&s->red, st->src, st->dst, st->n);
            break;
        case NBC_CALL:
            krc = st->fn(s, st->dst);
            if (krc == KMPI_SCHED_LATER) {
                s->pos--;
                return 1;
            }
            if (krc >= 0)
                s->pos = (size_t)krc;
            break;
        }
        if (rc != MPI_SUCCESS)
            sched_fail(s, rc);
    }
    return 0;
}

/* Collects the running round's completed messages; 1 when none is left. */
static int round_done(struct kmpi_sched *s)
{
    int left = 0;

    for (int i = 0; i < s->nreq; i++) {
        if (s->reqs[i] == KUMI_REQUEST_NULL)
            continue;
        if (!kumi_msg_req_done(s->reqs[i])) {
            left = 1;
            continue;
        }
        int krc = kumi_msg_req_finish(s->reqs[i], NULL);
        s->reqs[i] = KUMI_REQUEST_NULL;
        if (krc != KUMI_OK)
            sched_fail(s, kmpi_from_kumi(krc));
    }
    if (!left)
        s->nreq = 0;
    return !left;
}

static void nbc_hook_set(int on);

static void active_remove(struct kmpi_sched *s)
{
    if (s->prev != NULL)
        s->prev->next = s->next;
    else
        nbc_head = s->next;
    if (s->next != NULL)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
    if (--kmpi_nbc_active == 0)
        nbc_hook_set(0);
}

static void sched_free(struct kmpi_sched *s)
{
    for (size_t i = 0; i < s->nheld; i++)
        kmpi_type_release(s->held[i]);
    while (s->tmps != NULL) {
        struct nbc_tmp *b = s->tmps;
        s->tmps = b->next;
        tmp_release(b);
    }
    free(s->held);
    free(s->reqs);
    free(s->steps);
    free(s);
}

/* Moves s as far as it can without waiting: a round whose messages have
 * completed gives way to the next. After a message failed to start, no
 * further step runs; s ends once the messages already out complete. */
static void sched_advance(struct kmpi_sched *s)
{
    if (s->done || nbc_busy)
        return;
    nbc_busy = 1;
    while (round_done(s)) {
        if (s->stopped || s->pos == s->nsteps) {
            s->done = 1;
            active_remove(s);
            break;
        }
        int r = sched_round(s);
        if (r < 0)
            s->stopped = 1;
        else if (r > 0)
            break;   /* a call step waits for a later progress */
    }
    nbc_busy = 0;
    if (s->done && s->orphan)
        sched_free(s);
}

/* kumi's own waits (its native collectives under MPI_Barrier,
 * MPI_Allreduce..., the team calls under MPI_Comm_dup...) move the
 * schedules too, through the runtime's poll hooks: a rank blocked in a
 * blocking collective may owe a round of a non-blocking one to a peer
 * that waits for it before joining. The hook is in the runtime's table
 * only while a schedule is active (added when one starts and none was,
 * removed when the last ends, perhaps from inside the hook: the walk
 * allows it), so the waits of a program without one do not call it. */
static int nbc_hook(void)
{
    if (kmpi_nbc_active > 0 && kmpi_state == 1) {   /* not inside MPI_Finalize */
        kmpi_nbc_in_kumi++;
        kmpi_nbc_progress();
        kmpi_nbc_in_kumi--;
    }
    return 0;
}

static int nbc_hooked;   /* nbc_hook is in the runtime's table */

static void nbc_hook_set(int on)
{
    if (on == nbc_hooked)
        return;
    if (!on)
        kumi_rt_poll_hook_remove(nbc_hook);
    else if (kumi_rt_poll_hook_add(nbc_hook) != KUMI_OK)
        kumi_rt_abort("MPI: no room for the non-blocking collectives' poll hook");
    nbc_hooked = on;
}

void kmpi_nbc_progress(void)
{
    for (struct kmpi_sched *s = nbc_head, *next; s != NULL; s = next) {
        next = s->next;
        sched_advance(s);
    }
}

/* Checks the build, puts s on the active list and runs its first round. */
static int sched_begin(struct kmpi_sched *s)
{
    if (!s->nomem && s->max_msgs > 0
        && (s->reqs = calloc((size_t)s->max_msgs, sizeof(*s->reqs))) == NULL)
        s->nomem = 1;
    if (s->nomem) {
        int rc = kmpi_error(s->comm, MPI_ERR_NO_MEM, s->call,
                            "no memory for the collective's schedule and buffers");
        sched_free(s);
        return rc;
    }
    nbc_hook_set(1);
    s->next    = nbc_head;
    if (nbc_head != NULL)
        nbc_head->prev = s;
    nbc_head = s;
    kmpi_nbc_active++;
    sched_advance(s);
    return MPI_SUCCESS;
}

static int req_progress(void *state, MPI_Status *status)
{
    struct kmpi_sched *s = state;

    sched_advance(s);
    if (!s->done)
        return 0;
    if (status != NULL) {
        kmpi_status_empty(status);
        status->MPI_ERROR = s->err;
    }
    return s->err != MPI_SUCCESS ? -s->err : 1;
}

static void req_release(void *state)
{
    struct kmpi_sched *s = state;

    if (s->done)
        sched_free(s);
    else
        s->orphan = 1;   /* goes when it ends (kmpi_nbc_progress) */
}

static const struct kmpi_req_ops nbc_req_ops = {
    .progress = req_progress,
    .release  = req_release,
    .cancel   = NULL,   /* a collective cannot be cancelled (MPI-3.1 5.12) */
};

int kmpi_sched_start(struct kmpi_sched *s, MPI_Request *request)
{
    MPI_Comm comm = s->comm;
    int      rc   = sched_begin(s);

    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = kmpi_req_generic(&nbc_req_ops, s, request)) != MPI_SUCCESS) {
        s->orphan = 1;   /* it runs to its end so its peers are not left waiting */
        if (s->done)
            sched_free(s);
        return rc;
    }
    struct kmpi_req *q = kmpi_req_get(*request);
    if (q != NULL)
        q->comm = comm;   /* its errors go to the communicator's handler */
    return MPI_SUCCESS;
}

static int sched_ready(void *arg)
{
    struct kmpi_sched *s = arg;

    sched_advance(s);
    return s->done;
}

int kmpi_sched_run(struct kmpi_sched *s)
{
    MPI_Comm    comm = s->comm;
    const char *call = s->call;
    int         rc   = sched_begin(s), krc;

    if (rc != MPI_SUCCESS)
        return rc;
    if (!s->done && (krc = kmpi_wait_until(call, sched_ready, s)) != KUMI_OK) {
        s->orphan = 1;
        return kmpi_error_kumi(comm, krc, call, "waiting for the collective's messages");
    }
    int err = s->err;
    sched_free(s);
    if (err != MPI_SUCCESS)
        return kmpi_error(comm, err, call, "%s",
                          err == MPI_ERR_TRUNCATE
                              ? "a message was longer than its receive buffer (the ranks "
                                "passed counts or datatypes that do not match)"
                              : "the collective's messages failed");
    return MPI_SUCCESS;
}

int kmpi_sched_go(struct kmpi_sched *s, MPI_Request *request)
{
    return request != NULL ? kmpi_sched_start(s, request) : kmpi_sched_run(s);
}
