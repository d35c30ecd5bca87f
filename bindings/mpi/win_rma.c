/*
 * win_rma.c -- the communication calls (MPI-3.1 11.3): MPI_Put, MPI_Get,
 * MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
 * MPI_Compare_and_swap and the request forms, done in place on windows
 * in shared memory, by cross-memory attach, or as messages; the origin's
 * bookkeeping of the messages in flight (win_int.h: the protocol;
 * win_target.c executes the messages).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "msg.h"
#include "rt.h"
#include "win_int.h"

/* ------------------------------------------------------------ the origin */
static int tag_seq;

int kmpi_win_tag(void)
{
    tag_seq = (tag_seq + 1) & 0x3fffffff;
    return tag_seq;
}

static void pend_finish(struct kmpi_win_pend *p)
{
    kumi_status_t st;

    kumi_msg_req_finish(p->kr, &st);
    p->kr = KUMI_REQUEST_NULL;
    if (p->reply && p->ubuf != NULL && p->dt != NULL)
        kmpi_unpack(p->buf, p->count, p->dt, p->ubuf);
    if (p->status && st.bytes == sizeof(int32_t)) {
        int32_t s;
        memcpy(&s, p->buf, sizeof s);
        p->err = s;
    }
    if (p->dt != NULL)
        kmpi_type_release(p->dt);
    p->dt = NULL;
    free(p->buf);
    p->buf  = NULL;
    p->done = 1;
}

static int pend_try(struct kmpi_win_pend *p)
{
    if (!p->done && kumi_msg_req_done(p->kr))
        pend_finish(p);
    return p->done;
}

/* unlinks the done ones of w (those an MPI request holds stay alive) */
static void pend_sweep(struct kmpi_win *w)
{
    for (struct kmpi_win_pend **pp = &w->pend, *p; (p = *pp) != NULL;)
        if (pend_try(p)) {
            *pp        = p->next;
            p->in_list = 0;
            if (!p->held)
                free(p);
        } else
            pp = &p->next;
}

void kmpi_win_pend_drop(struct kmpi_win *w)
{
    pend_sweep(w);   /* all are done by now (MPI_Win_free waited) */
}

static struct kmpi_win_pend *pend_new(struct kmpi_win *w, int target)
{
    struct kmpi_win_pend *p = calloc(1, sizeof *p);

    if (p == NULL)
        return NULL;
    p->target  = target;
    p->in_list = 1;
    p->next    = w->pend;
    w->pend    = p;
    return p;
}

int kmpi_win_expect(const char *call, struct kmpi_win *w, int target, int tag, void *buf,
                    size_t bytes, struct kmpi_win_pend **out)
{
    struct kmpi_win_pend *p = pend_new(w, target);
    int                   krc;

    if (p == NULL) {
        free(buf);
        return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
    }
    p->reply = 1;
    p->buf   = buf;
    krc = kumi_msg_irecv_ctx(call, buf, bytes, w->pes[target], tag, kumi_team_world(),
                             KMPI_CTX_RMA_REPLY, &p->kr);
    if (krc != KUMI_OK) {
        p->done = 1;
        return kmpi_win_error_kumi(w, krc, call, "posting the receive of an answer");
    }
    *out = p;
    return MPI_SUCCESS;
}

int kmpi_win_send(const char *call, struct kmpi_win *w, int target, struct kmpi_win_hdr *h,
                  const void *extra, size_t nextra, const void *data, size_t ndata)
{
    size_t                len = sizeof *h + nextra + ndata;
    char                 *m   = malloc(len);
    struct kmpi_win_pend *p;
    int                   krc;

    if (m == NULL || (p = pend_new(w, target)) == NULL) {
        free(m);
        return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory for a message of %zu bytes",
                              len);
    }
    h->win    = w->id;
    h->origin = w->rank;
    memcpy(m, h, sizeof *h);
    if (nextra > 0)
        memcpy(m + sizeof *h, extra, nextra);
    if (ndata > 0)
        memcpy(m + sizeof *h + nextra, data, ndata);
    p->buf = m;
    krc = kumi_msg_isend_ctx(call, m, len, w->pes[target], 0, kumi_team_world(), KMPI_CTX_RMA,
                             0, &p->kr);
    if (krc != KUMI_OK) {
        p->done = 1;
        return kmpi_win_error_kumi(w, krc, call, "sending a one-sided request");
    }
    return MPI_SUCCESS;
}

struct local_arg {
    struct kmpi_win *w;
    int              target;
    struct kmpi_win_pend *only;
};

static int local_ready(void *arg)
{
    struct local_arg *a = arg;

    kmpi_win_progress();
    if (a->only != NULL)
        return pend_try(a->only);
    for (struct kmpi_win_pend *p = a->w->pend; p != NULL; p = p->next)
        if ((a->target < 0 || p->target == a->target) && !pend_try(p))
            return 0;
    return 1;
}

int kmpi_win_wait_local(const char *call, struct kmpi_win *w, int target)
{
    struct local_arg a = { w, target, NULL };
    int              krc = kmpi_wait_until(call, local_ready, &a);

    if (krc != KUMI_OK)
        return kmpi_win_error_kumi(w, krc, call, "waiting for one-sided operations");
    pend_sweep(w);
    return MPI_SUCCESS;
}

/* Every request sent, then one wait for all answers. A failure part-way
 * (no memory, the transport refusing a send) stops the sending but not the
 * wait: what was sent is answered (a lock may be granted, which the caller
 * gives back, ok[] says where), and the error reaches the handler only
 * after the wait. */
int kmpi_win_roundtrips(const char *call, struct kmpi_win *w, const int *targets, int n,
                        int kind, int aux, uint8_t *ok)
{
    struct kmpi_win_pend **ps = calloc((size_t)(n > 0 ? n : 1), sizeof *ps);
    int                    rc = MPI_SUCCESS, err = MPI_SUCCESS, bad = -1;

    if (ps == NULL)
        return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
    kmpi_win_defer(w);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        struct kmpi_win_hdr h   = { 0 };
        int32_t            *ans = malloc(sizeof *ans);
        if (ans == NULL) {
            rc = kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
            break;
        }
        h.kind = (uint8_t)kind;
        h.aux  = (uint8_t)aux;
        h.tag  = kmpi_win_tag();
        if ((rc = kmpi_win_expect(call, w, targets[i], h.tag, ans, sizeof *ans, &ps[i]))
            != MPI_SUCCESS)
            break;
        ps[i]->held   = 1;
        ps[i]->status = 1;
        if ((rc = kmpi_win_send(call, w, targets[i], &h, NULL, 0, NULL, 0)) != MPI_SUCCESS) {
            /* never sent: no answer comes; the receive is taken back */
            struct kmpi_win_pend *p = ps[i];
            ps[i]     = NULL;
            p->status = 0;
            p->held   = 0;
            if (kumi_msg_req_cancel(p->kr))
                pend_try(p);
        }
    }
    /* every answer to what was sent, after a failure too */
    struct local_arg a   = { w, -1, NULL };
    int              krc = kmpi_wait_until(call, local_ready, &a);
    if (krc != KUMI_OK) {
        int wrc = kmpi_win_error_kumi(w, krc, call, "waiting for answers");
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    for (int i = 0; i < n; i++) {
        if (ok != NULL)
            ok[i] = ps[i] != NULL && ps[i]->done && ps[i]->err == MPI_SUCCESS;
        if (ps[i] != NULL) {
            if (ps[i]->done && ps[i]->err != MPI_SUCCESS && err == MPI_SUCCESS) {
                err = ps[i]->err;
                bad = targets[i];
            }
            ps[i]->held = 0;
        }
    }
    free(ps);
    pend_sweep(w);
    if (rc == MPI_SUCCESS && err != MPI_SUCCESS)
        rc = kmpi_win_error(w, err, call, "an operation at rank %d failed there (%s)", bad,
                            err == MPI_ERR_RMA_RANGE ? "its target memory is not attached to "
                                                       "the window" : "see its class");
    int drc = kmpi_win_undefer(w);
    return rc != MPI_SUCCESS ? rc : drc;
}

int kmpi_win_roundtrip(const char *call, struct kmpi_win *w, int target, int kind, int aux)
{
    return kmpi_win_roundtrips(call, w, &target, 1, kind, aux, NULL);
}

/* ------------------------------------------------------------ MPI requests */
static int rreq_progress(void *state, MPI_Status *status)
{
    struct kmpi_win_pend *p = state;

    if (!pend_try(p))
        return 0;
    if (status != NULL) {
        kmpi_status_empty(status);
        status->MPI_ERROR = MPI_SUCCESS;
    }
    return 1;
}

static void rreq_release(void *state)
{
    struct kmpi_win_pend *p = state;

    p->held = 0;
    if (!p->in_list)
        free(p);
}

static const struct kmpi_req_ops rreq_ops = {
    .progress = rreq_progress,
    .release  = rreq_release,
    .cancel   = NULL,   /* MPI-3.1 11.3.5: an RMA request cannot be cancelled */
};

/* ------------------------------------------------------------ the calls */

/* a committed datatype or the error raised on w */
static struct kmpi_type *type_arg(const char *call, struct kmpi_win *w, MPI_Datatype dt,
                                  const char *what, int *rc)
{
    struct kmpi_type *t = kmpi_type(dt);

    if (t == NULL)
        *rc = kmpi_win_error(w, MPI_ERR_TYPE, call, "%s %d is no datatype", what, dt);
    else if (!t->committed)
        *rc = kmpi_win_error(w, MPI_ERR_TYPE, call, "%s is not committed", what);
    return t;
}

struct rma_args {
    int kind;
    const void *oaddr;  int ocount; MPI_Datatype otype;
    void *raddr;        int rcount; MPI_Datatype rtype;
    const void *caddr;  /* compare (CAS) */
    int target; MPI_Aint tdisp; int tcount; MPI_Datatype ttype;
    MPI_Op op;
    MPI_Request *req;
};

/* 1 when predefined op is defined on basic type id basic: op.c's answer,
 * asked once per pair (an apply to one zero element) and remembered */
static int op_defined(int op, int basic)
{
    static int8_t known[MPI_NO_OP + 1][KMPI_BASIC_MAX];   /* 0 unknown, 1 yes, 2 no */

    if (op < 0 || op > MPI_NO_OP || basic <= 0 || basic >= KMPI_BASIC_MAX)
        return 0;
    if (known[op][basic] == 0) {
        struct kmpi_type *b = kmpi_type(basic);
        _Alignas(16) char x[64] = { 0 }, y[64] = { 0 };
        known[op][basic] = b != NULL && b->size <= 32
                                   && kmpi_op_apply_basic(op, basic, x, y, 1) == MPI_SUCCESS
                               ? 1 : 2;
    }
    return known[op][basic] == 1;
}

static int rma_done(const char *call, struct kmpi_win *w, const struct rma_args *a);

/* A window in shared memory: the origin does the operation itself, at
 * once (complete locally and at the target when it returns);
 * accumulates under the target's accumulate lock, so they are atomic
 * with respect to each other. */
static void acc_lock(struct kmpi_win *w, int target)
{
    uint64_t *l = &w->locks[(size_t)target * KMPI_WIN_SHM_HDR + 1];

    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) != 0)
        while (__atomic_load_n(l, __ATOMIC_RELAXED) != 0)
            kumi_rt_relax();
}

static void acc_unlock(struct kmpi_win *w, int target)
{
    __atomic_store_n(&w->locks[(size_t)target * KMPI_WIN_SHM_HDR + 1], 0, __ATOMIC_RELEASE);
}

static int direct(const char *call, struct kmpi_win *w, struct rma_args *a,
                  const struct kmpi_type *ot, const struct kmpi_type *rt,
                  const struct kmpi_type *tt, char *addr, size_t tbytes)
{
    void *tmp = NULL;
    int   rc  = MPI_SUCCESS;

    if (a->kind == KW_PUT && ot->contig && tt->contig) {
        memcpy(addr, a->oaddr, tbytes);
    } else if (a->kind == KW_GET && rt->contig && tt->contig) {
        memcpy((void *)a->oaddr, addr, tbytes);
    } else if (tt->predefined && tt->contig && tbytes <= 64 && a->kind >= KW_ACC
               && (ot == NULL || ot == tt) && (rt == NULL || rt->contig)) {
        /* the atomics' path (MPI_Fetch_and_op, MPI_Compare_and_swap, small
         * accumulates of one predefined type): in place, no copies */
        char old[64];
        acc_lock(w, a->target);
        if (a->kind != KW_ACC)
            memcpy(old, addr, tbytes);
        if (a->kind == KW_CAS) {
            if (memcmp(addr, a->caddr, tbytes) == 0)
                memcpy(addr, a->oaddr, tbytes);
        } else if (a->op == MPI_REPLACE) {
            memcpy(addr, a->oaddr, tbytes);
        } else if (a->op != MPI_NO_OP) {
            rc = kmpi_op_apply_basic(a->op, tt->basic, a->oaddr, addr,
                                     (size_t)a->tcount * tt->nbasic);
        }
        acc_unlock(w, a->target);
        if (a->kind != KW_ACC)
            memcpy(a->raddr, old, tbytes);
        if (rc != MPI_SUCCESS)
            return kmpi_win_error(w, rc, call, "the accumulate failed");
    } else if ((tmp = malloc(2 * tbytes + 1)) == NULL) {
        return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
    } else {
        char *old = (char *)tmp + tbytes;
        if (ot != NULL && a->kind != KW_CAS)
            kmpi_pack(a->oaddr, (size_t)a->ocount, ot, tmp);
        if (a->kind >= KW_ACC)
            acc_lock(w, a->target);
        switch (a->kind) {
        case KW_PUT:
            kmpi_unpack(tmp, (size_t)a->tcount, tt, addr);
            break;
        case KW_GET:
            kmpi_pack(addr, (size_t)a->tcount, tt, old);
            break;
        case KW_ACC:
            rc = kmpi_win_acc_apply(a->op, tmp, (size_t)a->tcount, tt, addr);
            break;
        case KW_GACC:
            kmpi_pack(addr, (size_t)a->tcount, tt, old);
            rc = kmpi_win_acc_apply(a->op, tmp, (size_t)a->tcount, tt, addr);
            break;
        case KW_CAS:
            memcpy(old, addr, tt->size);
            if (memcmp(addr, a->caddr, tt->size) == 0)
                memcpy(addr, a->oaddr, tt->size);
            break;
        }
        if (a->kind >= KW_ACC)
            acc_unlock(w, a->target);
        if (a->kind == KW_GET)
            kmpi_unpack(old, (size_t)a->ocount, rt, (void *)a->oaddr);
        else if (a->kind == KW_GACC || a->kind == KW_CAS)
            kmpi_unpack(old, (size_t)a->rcount, rt, a->raddr);
        free(tmp);
        if (rc != MPI_SUCCESS)
            return kmpi_win_error(w, rc, call, "the accumulate failed");
    }
    return rma_done(call, w, a);
}

/* A contiguous put or get on MPI_Win_create's memory on this host:
 * straight between the two processes' memories (process_vm_writev/readv),
 * done when it returns. 0 when it cannot (then the window stops trying
 * and the operation goes as a message), -1 when it failed half way. */
static int cma_move(struct kmpi_win *w, const struct rma_args *a, uint64_t off, size_t bytes)
{
    char   *local  = (char *)a->oaddr;
    uint64_t remote = w->bases[a->target] + off;

    if (a->target == w->rank) {
        if (a->kind == KW_PUT)
            memmove((void *)(uintptr_t)remote, local, bytes);
        else
            memmove(local, (void *)(uintptr_t)remote, bytes);
        return 1;
    }
    while (bytes > 0) {
        struct iovec l = { local, bytes }, r = { (void *)(uintptr_t)remote, bytes };
        ssize_t      k = a->kind == KW_PUT ? process_vm_writev(w->pids[a->target], &l, 1, &r, 1, 0)
                                           : process_vm_readv(w->pids[a->target], &l, 1, &r, 1, 0);
        if (k <= 0) {
            if (k < 0 && errno == EINTR)
                continue;
            if (local != (char *)a->oaddr)   /* part moved: the rest must follow */
                return -1;
            w->cma = 0;
            return 0;
        }
        local += k;
        remote += (uint64_t)k;
        bytes -= (size_t)k;
    }
    return 1;
}

/* an operation complete at once: its request, if any, too */
static int rma_done(const char *call, struct kmpi_win *w, const struct rma_args *a)
{
    if (a->req != NULL) {
        struct kmpi_win_pend *p = calloc(1, sizeof *p);
        if (p == NULL)
            return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
        p->done = p->held = 1;
        return kmpi_req_generic(&rreq_ops, p, a->req);
    }
    return MPI_SUCCESS;
}

static int rma(const char *call, MPI_Win win, struct rma_args *a)
{
    int               rc;
    struct kmpi_win  *w = kmpi_win_check(call, win, &rc);
    struct kmpi_type *ot = NULL, *rt = NULL, *tt;
    int               has_o = a->kind != KW_GET, has_r = a->kind == KW_GET || a->kind == KW_GACC
                                                          || a->kind == KW_CAS;

    if (w == NULL)
        return rc;
    if (a->req != NULL)
        *a->req = MPI_REQUEST_NULL;
    if (a->target == MPI_PROC_NULL)
        return rma_done(call, w, a);
    if (a->target < 0 || a->target >= w->size)
        return kmpi_win_error(w, MPI_ERR_RANK, call, "target_rank %d is not in 0..%d",
                              a->target, w->size - 1);
    if (a->ocount < 0 || a->tcount < 0 || a->rcount < 0)
        return kmpi_win_error(w, MPI_ERR_COUNT, call, "a count is negative");
    if ((tt = type_arg(call, w, a->ttype, "target_datatype", &rc)) == NULL || !tt->committed)
        return rc;
    if (has_o && ((ot = type_arg(call, w, a->otype, "origin_datatype", &rc)) == NULL
                  || !ot->committed))
        return rc;
    if (has_r && a->kind != KW_GET
        && ((rt = type_arg(call, w, a->rtype, "result_datatype", &rc)) == NULL
                  || !rt->committed))
        return rc;
    if (a->kind == KW_GET) {   /* the result is the origin buffer */
        rt        = kmpi_type(a->otype);
        a->rcount = a->ocount;
        if (rt == NULL || !rt->committed)
            return kmpi_win_error(w, MPI_ERR_TYPE, call, "origin_datatype is no committed "
                                  "datatype");
    }
    size_t tbytes = (size_t)a->tcount * tt->size;
    if (a->kind == KW_GACC && a->op == MPI_NO_OP)
        ot = NULL;   /* the origin buffer is ignored */
    if (ot != NULL && (size_t)a->ocount * ot->size != tbytes)
        return kmpi_win_error(w, MPI_ERR_TYPE, call, "the origin holds %zu bytes of data, the "
                              "target %zu", (size_t)a->ocount * ot->size, tbytes);
    if (rt != NULL && (size_t)a->rcount * rt->size != tbytes)
        return kmpi_win_error(w, MPI_ERR_TYPE, call, "the result buffer holds %zu bytes of "
                              "data, the target %zu", (size_t)a->rcount * rt->size, tbytes);
    if (a->kind == KW_ACC || a->kind == KW_GACC) {
        struct kmpi_op *o = kmpi_op(a->op);
        if (o == NULL || o->predefined == 0)
            return kmpi_win_error(w, MPI_ERR_OP, call, "%s: one-sided accumulates take "
                                  "predefined operations only", o ? "a user operation"
                                                                  : "no operation");
        /* an accumulate of no data has no type signature to match
         * (a zero count, or datatypes of size 0): it is valid and does
         * nothing, as a zero-count send is */
        if (a->op != MPI_REPLACE && a->op != MPI_NO_OP && tbytes > 0) {
            if (tt->basic == 0 || (ot != NULL && ot->basic != tt->basic))
                return kmpi_win_error(w, MPI_ERR_TYPE, call, "an accumulate needs origin and "
                                      "target datatypes of one and the same predefined type");
            if (!op_defined(a->op, tt->basic))
                return kmpi_win_error(w, MPI_ERR_OP, call, "%s is not defined for the "
                                      "target's basic type", kmpi_op_name(a->op));
        }
    }
    if (a->kind == KW_CAS && (!tt->predefined || tt->basic == 0))
        return kmpi_win_error(w, MPI_ERR_TYPE, call, "MPI_Compare_and_swap takes a predefined "
                              "datatype");
    if ((rc = kmpi_win_epoch_check(call, w, a->target)) != MPI_SUCCESS)
        return rc;
    if (tbytes == 0 && a->kind != KW_CAS)
        return rma_done(call, w, a);   /* no data moves either way */
    /* the target range */
    struct kmpi_win_hdr h = { 0 };
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        h.disp = (uint64_t)a->tdisp;
    } else {
        if (a->tdisp < 0)
            return kmpi_win_error(w, MPI_ERR_DISP, call, "target_disp %lld is negative",
                                  (long long)a->tdisp);
        MPI_Aint off = a->tdisp * w->units[a->target];
        if (a->tcount > 0 && tt->size > 0) {
            MPI_Aint lo = off + tt->true_lb + (tt->extent < 0 ? (a->tcount - 1) * tt->extent : 0);
            MPI_Aint hi = off + tt->true_lb + tt->true_extent
                          + (tt->extent > 0 ? (a->tcount - 1) * tt->extent : 0);
            if (lo < 0 || hi > w->sizes[a->target])
                return kmpi_win_error(w, MPI_ERR_RMA_RANGE, call, "bytes %lld..%lld lie outside "
                                      "rank %d's window of %lld bytes", (long long)lo,
                                      (long long)hi, a->target, (long long)w->sizes[a->target]);
        }
        h.disp = (uint64_t)off;
    }
    if (w->dbase != NULL)
        return direct(call, w, a, ot, rt, tt, w->dbase[a->target] + h.disp, tbytes);
    if (w->cma && (a->kind == KW_PUT || a->kind == KW_GET) && tt->contig
        && (a->kind == KW_PUT ? ot : rt)->contig) {
        int moved = cma_move(w, a, h.disp, tbytes);
        if (moved < 0)
            return kmpi_win_error(w, MPI_ERR_OTHER, call, "cross-memory attach with rank %d "
                                  "failed half way: %s", a->target, strerror(errno));
        if (moved > 0)
            return rma_done(call, w, a);
    }
    h.kind   = (uint8_t)a->kind;
    h.op     = (uint16_t)a->op;
    h.count  = (uint64_t)a->tcount;
    h.tag    = -1;
    h.tbasic = a->ttype;
    /* the target datatype and the data */
    char   tdesc_small[256], *tdesc = NULL;
    size_t ntdesc = 0;
    if (!tt->predefined) {
        ntdesc = kmpi_win_type_wire(tt, NULL);
        tdesc  = ntdesc <= sizeof tdesc_small ? tdesc_small : malloc(ntdesc);
        if (tdesc == NULL)
            return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
        kmpi_win_type_wire(tt, tdesc);
        h.aux = 1;
    }
    h.tdesc = (uint32_t)ntdesc;
    size_t ndata = 0;
    void  *data  = NULL;
    if (ot != NULL) {
        ndata = a->kind == KW_CAS ? 2 * tt->size : tbytes;
        if ((data = malloc(ndata > 0 ? ndata : 1)) == NULL) {
            if (tdesc != tdesc_small)
                free(tdesc);
            return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
        }
        if (a->kind == KW_CAS) {
            memcpy(data, a->oaddr, tt->size);
            memcpy((char *)data + tt->size, a->caddr, tt->size);
        } else
            kmpi_pack(a->oaddr, (size_t)a->ocount, ot, data);
    }
    h.bytes = ndata;
    struct kmpi_win_pend *p = NULL;
    if (has_r) {
        void *rb = malloc(tbytes > 0 ? tbytes : 1);
        h.tag = kmpi_win_tag();
        if (rb == NULL)
            rc = kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
        else
            rc = kmpi_win_expect(call, w, a->target, h.tag, rb, tbytes, &p);
        if (rc == MPI_SUCCESS) {
            p->ubuf  = a->kind == KW_GET ? (void *)a->oaddr : a->raddr;
            p->count = a->kind == KW_GET ? (size_t)a->ocount : (size_t)a->rcount;
            p->dt    = rt;
            kmpi_type_hold(rt);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = kmpi_win_send(call, w, a->target, &h, tdesc, ntdesc, data, ndata);
    if (tdesc != tdesc_small)
        free(tdesc);
    free(data);
    if (rc != MPI_SUCCESS)
        return rc;
    w->touched[a->target] = 1;
    if (a->req != NULL) {
        /* local completion: the answer's arrival, or the send's (the data
         * are copied into the message, so the origin buffer is free now) */
        if (p == NULL) {
            p = calloc(1, sizeof *p);
            if (p == NULL)
                return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
            p->done = 1;
        }
        p->held = 1;
        return kmpi_req_generic(&rreq_ops, p, a->req);
    }
    return MPI_SUCCESS;
}

/* the request forms: request is not NULL */
static int rma_req(const char *call, MPI_Win win, struct rma_args *a)
{
    if (a->req == NULL)
        return kmpi_win_error(kmpi_win_get(win), MPI_ERR_ARG, call, "request is NULL");
    return rma(call, win, a);
}

/* MPI_Put, MPI_Get and their request forms (rform) */
static int put_get(const char *call, int kind, const void *origin_addr, int origin_count,
                   MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                   int target_count, MPI_Datatype target_datatype, MPI_Win win, int rform,
                   MPI_Request *request)
{
    struct rma_args a = { .kind = kind, .oaddr = origin_addr, .ocount = origin_count,
                          .otype = origin_datatype, .target = target_rank,
                          .tdisp = target_disp, .tcount = target_count,
                          .ttype = target_datatype, .req = request };
    return rform ? rma_req(call, win, &a) : rma(call, win, &a);
}

#pragma weak MPI_Put = PMPI_Put
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    return put_get("MPI_Put", KW_PUT, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, 0, NULL);
}

#pragma weak MPI_Get = PMPI_Get
int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return put_get("MPI_Get", KW_GET, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, 0, NULL);
}

#pragma weak MPI_Accumulate = PMPI_Accumulate
int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    struct rma_args a = { .kind = KW_ACC, .oaddr = origin_addr, .ocount = origin_count,
                          .otype = origin_datatype, .target = target_rank,
                          .tdisp = target_disp, .tcount = target_count,
                          .ttype = target_datatype, .op = op };
    return rma("MPI_Accumulate", win, &a);
}

#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate
int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, int result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    struct rma_args a = { .kind = KW_GACC, .oaddr = origin_addr, .ocount = origin_count,
                          .otype = origin_datatype, .raddr = result_addr,
                          .rcount = result_count, .rtype = result_datatype,
                          .target = target_rank, .tdisp = target_disp, .tcount = target_count,
                          .ttype = target_datatype, .op = op };
    return rma("MPI_Get_accumulate", win, &a);
}

#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op
int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    struct rma_args a = { .kind = KW_GACC, .oaddr = origin_addr, .ocount = 1,
                          .otype = datatype, .raddr = result_addr, .rcount = 1,
                          .rtype = datatype, .target = target_rank, .tdisp = target_disp,
                          .tcount = 1, .ttype = datatype, .op = op };
    return rma("MPI_Fetch_and_op", win, &a);
}

#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap
int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win)
{
    struct rma_args a = { .kind = KW_CAS, .oaddr = origin_addr, .ocount = 1,
                          .otype = datatype, .raddr = result_addr, .rcount = 1,
                          .rtype = datatype, .caddr = compare_addr, .target = target_rank,
                          .tdisp = target_disp, .tcount = 1, .ttype = datatype };
    return rma("MPI_Compare_and_swap", win, &a);
}

#pragma weak MPI_Rput = PMPI_Rput
int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return put_get("MPI_Rput", KW_PUT, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, 1, request);
}

#pragma weak MPI_Rget = PMPI_Rget
int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    return put_get("MPI_Rget", KW_GET, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, 1, request);
}

#pragma weak MPI_Raccumulate = PMPI_Raccumulate
int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    struct rma_args a = { .kind = KW_ACC, .oaddr = origin_addr, .ocount = origin_count,
                          .otype = origin_datatype, .target = target_rank,
                          .tdisp = target_disp, .tcount = target_count,
                          .ttype = target_datatype, .op = op, .req = request };
    return rma_req("MPI_Raccumulate", win, &a);
}

#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate
int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, int result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    struct rma_args a = { .kind = KW_GACC, .oaddr = origin_addr, .ocount = origin_count,
                          .otype = origin_datatype, .raddr = result_addr,
                          .rcount = result_count, .rtype = result_datatype,
                          .target = target_rank, .tdisp = target_disp, .tcount = target_count,
                          .ttype = target_datatype, .op = op, .req = request };
    return rma_req("MPI_Rget_accumulate", win, &a);
}
