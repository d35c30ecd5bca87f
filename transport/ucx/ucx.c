/* ucx.c -- kumi's transport table over UCX (UCP): puts, gets and atomics
 * as UCP RMA and AMOs on registered memory, kicks and active messages as
 * UCP active messages applied by progress, quiet and fence as worker
 * flush and fence. Set-up and tear-down live in ucx_conn.c. Design,
 * ordering argument and failure handling: README.md. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ucx_int.h"

double kumi_ucx_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t kumi_ucx_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int kumi_ucx_is_failed(struct kumi_ucx *s)
{
    return __atomic_load_n(s->tp->failed, __ATOMIC_ACQUIRE) != 0;
}

static struct kumi_ucx *kumi_ucx_of(struct kumi_tp *tp)
{
    return tp->priv;
}

/* ------------------------------------------------------ requests, waits */

int kumi_ucx_wait_until(struct kumi_ucx *s, ucs_status_ptr_t req, double deadline)
{
    if (req == NULL)
        return KUMI_OK;
    if (UCS_PTR_IS_ERR(req))
        return KUMI_ERR_PEER;
    for (unsigned i = 0;; i++) {
        ucs_status_t st = ucp_request_check_status(req);
        if (st != UCS_INPROGRESS) {
            ucp_request_free(req);
            return st == UCS_OK ? KUMI_OK : KUMI_ERR_PEER;
        }
        /* the job failed: give up (UCP frees the request when it ends);
         * while closing only the deadline counts */
        if (!__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE) && kumi_ucx_is_failed(s)) {
            ucp_request_free(req);
            return KUMI_ERR_PEER;
        }
        if (deadline > 0 && (i & 63) == 0 && kumi_ucx_now() > deadline) {
            ucp_request_free(req);
            return KUMI_ERR_TIMEOUT;
        }
        kumi_ucx_progress_(s);
        if (s->threads && (i & 255) == 255)
            sched_yield();
    }
}

int kumi_ucx_wait(struct kumi_ucx *s, ucs_status_ptr_t req)
{
    return kumi_ucx_wait_until(s, req, 0);
}

/* A peer we may still talk to: KUMI_OK or KUMI_ERR_PEER. */
static int kumi_ucx_live(struct kumi_ucx *s, int pe)
{
    if (kumi_ucx_is_failed(s) || __atomic_load_n(&s->peer[pe].lost, __ATOMIC_ACQUIRE))
        return KUMI_ERR_PEER;
    return KUMI_OK;
}

/* An operation on pe failed without the endpoint's error callback having
 * said so yet: the job fails all the same, naming pe. */
static int kumi_ucx_failed_op(struct kumi_ucx *s, int pe, int rc)
{
    if (rc == KUMI_ERR_PEER && !__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
        kumi_tp_fail(s->tp, 1u + (uint32_t)pe, KUMI_TP_STATUS_UNKNOWN);
    return rc;
}

/* Puts and atomics to pe issued since its last flush are applied before
 * whatever comes next (a message or a get): UCP orders neither AMs nor
 * gets after RMA by itself. */
static int kumi_ucx_order(struct kumi_ucx *s, int pe)
{
    struct kumi_ucx_peer *p = &s->peer[pe];
    ucp_request_param_t   rp = { .op_attr_mask = 0 };

    if (!__atomic_exchange_n(&p->rma_pending, 0, __ATOMIC_ACQ_REL))
        return KUMI_OK;
    kumi_ucx_in(s);
    ucs_status_ptr_t req = ucp_ep_flush_nbx(p->ep, &rp);
    kumi_ucx_out(s);
    return kumi_ucx_failed_op(s, pe, kumi_ucx_wait(s, req));
}

struct kumi_ucx_probe { uint64_t seq, mupto, pupto, lupto; };

static void kumi_ucx_max(uint64_t *w, uint64_t v)
{
    uint64_t o = __atomic_load_n(w, __ATOMIC_ACQUIRE);
    while (o < v && !__atomic_compare_exchange_n(w, &o, v, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
}

static int kumi_ucx_probe_send(struct kumi_ucx *s, int pe, struct kumi_ucx_probe *pr)
{
    struct kumi_ucx_peer *p = &s->peer[pe];

    /* read before the probe is issued: it covers at least these */
    pr->mupto = __atomic_load_n(&p->mseq, __ATOMIC_ACQUIRE);
    pr->pupto = __atomic_load_n(&p->pseq, __ATOMIC_ACQUIRE);
    pr->lupto = __atomic_load_n(&p->lseq, __ATOMIC_ACQUIRE);
    pr->seq = __atomic_add_fetch(&p->probe_seq, 1, __ATOMIC_ACQ_REL);
    struct kumi_ucx_hdr h = { .src = (uint32_t)s->rank, .kind = KUMI_UCX_PROBE, .val = pr->seq };
    return kumi_ucx_send(s, pe, &h, NULL, 0, NULL, 0);
}

static int kumi_ucx_probe_wait(struct kumi_ucx *s, int pe, const struct kumi_ucx_probe *pr)
{
    struct kumi_ucx_peer *p = &s->peer[pe];

    for (unsigned i = 0; __atomic_load_n(&p->probe_ack, __ATOMIC_ACQUIRE) < pr->seq; i++) {
        int rc = kumi_ucx_live(s, pe);
        if (rc != KUMI_OK)
            return rc;
        kumi_ucx_progress_(s);
        if (s->threads && (i & 255) == 255)
            sched_yield();
    }
    kumi_ucx_max(&p->mdone, pr->mupto);
    kumi_ucx_max(&p->pdone, pr->pupto);
    kumi_ucx_max(&p->ldone, pr->lupto);
    if (!s->threads && !kumi_ucx_in_handler())
        p->pp_asked = 0;     /* the next put asks again */
    return KUMI_OK;
}

/* The probe a put carried, when it covers every message (mall) or every
 * put and atomic (!mall) issued to pe: *pr, and 1; else 0. */
static int kumi_ucx_put_probe(struct kumi_ucx *s, int pe, int mall, struct kumi_ucx_probe *pr)
{
    struct kumi_ucx_peer *p = &s->peer[pe];

    if (s->threads || kumi_ucx_in_handler() || !p->pp_asked || p->pp_pupto != p->pseq
        || (mall && p->pp_mupto != p->mseq))
        return 0;
    pr->seq = p->pp_seq;
    pr->mupto = p->pp_mupto;
    pr->pupto = p->pp_pupto;
    pr->lupto = p->pp_lupto;
    return 1;
}

int kumi_ucx_probe(struct kumi_ucx *s, int pe)
{
    struct kumi_ucx_probe pr;
    int                   rc = kumi_ucx_probe_send(s, pe, &pr);

    return rc != KUMI_OK ? rc : kumi_ucx_probe_wait(s, pe, &pr);
}

/* The converse: puts sent to pe as messages are applied (a probe's round
 * trip) before an RMA to it, which could otherwise overtake them. */
static int kumi_ucx_order_rma(struct kumi_ucx *s, int pe)
{
    struct kumi_ucx_peer *p = &s->peer[pe];

    if (__atomic_load_n(&p->pdone, __ATOMIC_ACQUIRE) >= __atomic_load_n(&p->pseq, __ATOMIC_ACQUIRE))
        return KUMI_OK;
    struct kumi_ucx_probe pr;
    if (kumi_ucx_put_probe(s, pe, 0, &pr))      /* the last put asked: its answer */
        return kumi_ucx_probe_wait(s, pe, &pr);
    return kumi_ucx_probe(s, pe);
}

/* ------------------------------------------------------------ messages */

int kumi_ucx_send(struct kumi_ucx *s, int pe, const struct kumi_ucx_hdr *h, const void *a,
                  size_t alen, const void *b, size_t blen)
{
    uint8_t             buf[KUMI_TP_AM_MAX_PAYLOAD];
    const void         *data = a;
    size_t              len = alen + blen;
    ucp_request_param_t rp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                               /* eager: arrives whole, in order with the
                                * other messages of this endpoint */
                               .flags = UCP_AM_SEND_FLAG_EAGER };
    int                 rc;

    if (pe == s->rank)
        return kumi_ucx_enqueue(s, h, a, alen, b, blen);   /* applied by progress */
    if ((rc = kumi_ucx_live(s, pe)) != KUMI_OK || (rc = kumi_ucx_order(s, pe)) != KUMI_OK)
        return rc;
    if (blen != 0) {     /* one contiguous payload (<= 4 KiB) */
        if (alen != 0)
            memcpy(buf, a, alen);
        memcpy(buf + alen, b, blen);
        data = buf;
    }
    kumi_ucx_in(s);
    ucs_status_ptr_t req = ucp_am_send_nbx(s->peer[pe].ep, KUMI_UCX_AM_ID, h, sizeof(*h), data,
                                           len, &rp);
    kumi_ucx_out(s);
    /* counted once issued (ordered after everything issued before), so a
     * probe that read the count is behind this message */
    if (h->kind == KUMI_UCX_KICK || h->kind == KUMI_UCX_AM || h->kind == KUMI_UCX_PUT
        || h->kind == KUMI_UCX_AMO)
        __atomic_add_fetch(&s->peer[pe].mseq, 1, __ATOMIC_ACQ_REL);
    if (h->kind == KUMI_UCX_AMO && (h->handler & 0xff) == KUMI_SEG_LLCM)
        __atomic_add_fetch(&s->peer[pe].lseq, 1, __ATOMIC_ACQ_REL);   /* before pseq */
    if (h->kind == KUMI_UCX_PUT || h->kind == KUMI_UCX_AMO)
        __atomic_add_fetch(&s->peer[pe].pseq, 1, __ATOMIC_ACQ_REL);
    rc = kumi_ucx_wait(s, req);
    return kumi_ucx_failed_op(s, pe, rc);
}

static int kumi_ucx_kick(struct kumi_tp *tp, int pe, size_t off, uint64_t val, size_t len)
{
    struct kumi_ucx    *s = kumi_ucx_of(tp);
    struct kumi_ucx_hdr h = { .src = (uint32_t)s->rank, .kind = KUMI_UCX_KICK,
                              .width = (uint8_t)len, .off = off,
                              .val = len < 8 ? val & ((1ull << (8 * len)) - 1) : val };

    if (pe == s->rank) {      /* a store, like tcp's kick to itself */
        kumi_ucx_store((uint8_t *)tp->local[KUMI_SEG_LLCM] + off, (unsigned)len, h.val);
        kumi_ucx_ring(tp);
        return KUMI_OK;
    }
    return kumi_ucx_send(s, pe, &h, NULL, 0, NULL, 0);
}

static int kumi_ucx_am_sendv(struct kumi_tp *tp, int pe, unsigned handler, const void *hdr,
                             size_t hlen, const void *payload, size_t len)
{
    struct kumi_ucx    *s = kumi_ucx_of(tp);
    struct kumi_ucx_hdr h = { .src = (uint32_t)s->rank, .kind = KUMI_UCX_AM,
                              .handler = (uint16_t)handler };

    if (handler >= KUMI_TP_AM_MAX_HANDLERS || hlen + len > KUMI_TP_AM_MAX_PAYLOAD)
        return KUMI_ERR_INVALID;
    return kumi_ucx_send(s, pe, &h, hlen ? hdr : NULL, hlen, len ? payload : NULL, len);
}

static int kumi_ucx_am_send(struct kumi_tp *tp, int pe, unsigned handler, const void *payload,
                            size_t len)
{
    return kumi_ucx_am_sendv(tp, pe, handler, NULL, 0, payload, len);
}

/* ---------------------------------------------------------- RMA, AMOs */

static int kumi_ucx_put(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                        const void *src, size_t n)
{
    struct kumi_ucx      *s = kumi_ucx_of(tp);
    struct kumi_ucx_peer *p = &s->peer[pe];
    ucp_request_param_t   rp = { .op_attr_mask = 0 };
    int                   rc;

    if (pe == s->rank) {
        KUMI_UCX_TSAN_ACQUIRE(s);
        memcpy((uint8_t *)tp->local[seg] + off, src, n);
        kumi_ucx_ring(tp);
        return KUMI_OK;
    }
    if ((rc = kumi_ucx_live(s, pe)) != KUMI_OK)
        return rc;
    if (n <= KUMI_UCX_PUT_AM_MAX) {
        struct kumi_ucx_hdr h = { .src = (uint32_t)s->rank, .kind = KUMI_UCX_PUT,
                                  .handler = (uint16_t)seg, .off = off };
        /* the first put since the peer was last proven carries a probe
         * (single-threaded: the counts below are then exact; not from a
         * handler, which the progress thread may be running meanwhile) */
        int      ask = !s->threads && !kumi_ucx_in_handler() && !p->pp_asked;
        uint64_t m0 = 0, p0 = 0, l0 = 0;
        if (ask) {   /* read only then: with threads others count meanwhile */
            m0 = __atomic_load_n(&p->mseq, __ATOMIC_ACQUIRE);
            p0 = __atomic_load_n(&p->pseq, __ATOMIC_ACQUIRE);
            l0 = __atomic_load_n(&p->lseq, __ATOMIC_ACQUIRE);
            h.val = __atomic_add_fetch(&p->probe_seq, 1, __ATOMIC_ACQ_REL);
        }
        rc = kumi_ucx_send(s, pe, &h, src, n, NULL, 0);
        if (ask && rc == KUMI_OK) {
            p->pp_seq = h.val;
            p->pp_mupto = m0 + 1;
            p->pp_pupto = p0 + 1;
            p->pp_lupto = l0;
            p->pp_asked = 1;
        }
        return rc;
    }
    if ((rc = kumi_ucx_order_rma(s, pe)) != KUMI_OK)
        return rc;
    __atomic_store_n(&p->rma_pending, 1, __ATOMIC_RELEASE);
    kumi_ucx_in(s);      /* long: every fragment UCX's tcp takes at once */
    ucs_status_ptr_t req = ucp_put_nbx(p->ep, src, n, p->base[seg] + off, p->rkey[seg], &rp);
    kumi_ucx_out(s);
    /* set once issued: a quiet that clears it afterwards flushes this put */
    __atomic_store_n(&s->rma_any, 1, __ATOMIC_RELEASE);
    /* local completion only (src reusable); remote completion is quiet's */
    rc = kumi_ucx_wait(s, req);
    return kumi_ucx_failed_op(s, pe, rc);
}

static int kumi_ucx_get(struct kumi_tp *tp, void *dst, int pe, enum kumi_seg seg, size_t off,
                        size_t n)
{
    struct kumi_ucx      *s = kumi_ucx_of(tp);
    struct kumi_ucx_peer *p = &s->peer[pe];
    ucp_request_param_t   rp = { .op_attr_mask = 0 };
    int                   rc;

    if (pe == s->rank) {
        KUMI_UCX_TSAN_ACQUIRE(s);
        memcpy(dst, (uint8_t *)tp->local[seg] + off, n);
        return KUMI_OK;
    }
    if ((rc = kumi_ucx_live(s, pe)) != KUMI_OK || (rc = kumi_ucx_order(s, pe)) != KUMI_OK
        || (rc = kumi_ucx_order_rma(s, pe)) != KUMI_OK)
        return rc;
    kumi_ucx_in(s);
    ucs_status_ptr_t req = ucp_get_nbx(p->ep, dst, n, p->base[seg] + off, p->rkey[seg], &rp);
    kumi_ucx_out(s);
    rc = kumi_ucx_wait(s, req);
    return kumi_ucx_failed_op(s, pe, rc);
}

/* kumi's ops on UCP's: FETCH is a fetching add of 0, SET a swap whose old
 * value nobody reads (UCP has neither an atomic load nor a store). */
static ucp_atomic_op_t kumi_ucx_amo_op(enum kumi_amo op)
{
    switch (op) {
    case KUMI_AMO_ADD: case KUMI_AMO_FETCH_ADD: case KUMI_AMO_FETCH: return UCP_ATOMIC_OP_ADD;
    case KUMI_AMO_SWAP: case KUMI_AMO_SET:                           return UCP_ATOMIC_OP_SWAP;
    case KUMI_AMO_CSWAP:                                             return UCP_ATOMIC_OP_CSWAP;
    case KUMI_AMO_AND: case KUMI_AMO_FETCH_AND:                      return UCP_ATOMIC_OP_AND;
    case KUMI_AMO_OR: case KUMI_AMO_FETCH_OR:                        return UCP_ATOMIC_OP_OR;
    default:                                                         return UCP_ATOMIC_OP_XOR;
    }
}

static int kumi_ucx_atomic(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                           enum kumi_amo op, size_t width, uint64_t operand, uint64_t compare,
                           uint64_t *old)
{
    struct kumi_ucx      *s = kumi_ucx_of(tp);
    struct kumi_ucx_peer *p = &s->peer[pe];
    /* UCP's CSWAP compares with the buffer and swaps in the reply buffer's
     * value, which it then overwrites with the old one */
    int                   cswap = op == KUMI_AMO_CSWAP;
    int                   reply = kumi_tp_amo_fetches(op) || op == KUMI_AMO_SET;
    uint64_t              arg = op == KUMI_AMO_FETCH ? 0 : cswap ? compare : operand;
    uint64_t              res = cswap ? operand : 0;
    uint32_t              arg32 = (uint32_t)arg, res32 = (uint32_t)res;
    ucp_request_param_t   rp = { .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                                 .datatype = ucp_dt_make_contig(width) };
    int                   rc;

    if (pe == s->rank) {
        KUMI_UCX_TSAN_ACQUIRE(s);
        uint64_t o = kumi_tp_amo_apply((uint8_t *)tp->local[seg] + off, op, width, operand,
                                        compare);
        if (old != NULL && kumi_tp_amo_fetches(op))
            *old = o;
        kumi_ucx_ring(tp);
        return KUMI_OK;
    }
    if ((rc = kumi_ucx_live(s, pe)) != KUMI_OK)
        return rc;
    if (!kumi_tp_amo_fetches(op)) {
        /* no reply wanted: a message, in order with puts and kicks (a
         * signal after its data costs no round trip), applied at the
         * target with CPU atomics (UCP has no atomic store at all) */
        struct kumi_ucx_hdr h = { .src = (uint32_t)s->rank, .kind = KUMI_UCX_AMO,
                                  .width = (uint8_t)width,
                                  .handler = (uint16_t)(seg | (unsigned)op << 8), .off = off,
                                  .val = width == 4 ? operand & 0xffffffffull : operand };
        return kumi_ucx_send(s, pe, &h, NULL, 0, NULL, 0);
    }
    if ((rc = kumi_ucx_order_rma(s, pe)) != KUMI_OK)
        return rc;
    if (reply) {
        /* a fetched value must reflect the puts before it */
        if ((rc = kumi_ucx_order(s, pe)) != KUMI_OK)
            return rc;
        rp.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        rp.reply_buffer = width == 4 ? (void *)&res32 : (void *)&res;
    } else {
        __atomic_store_n(&p->rma_pending, 1, __ATOMIC_RELEASE);
    }
    kumi_ucx_in(s);
    ucs_status_ptr_t req = ucp_atomic_op_nbx(p->ep, kumi_ucx_amo_op(op),
                                             width == 4 ? (void *)&arg32 : (void *)&arg, 1,
                                             p->base[seg] + off, p->rkey[seg], &rp);
    kumi_ucx_out(s);
    if (!reply)     /* completes remotely at quiet's flush, as a put */
        __atomic_store_n(&s->rma_any, 1, __ATOMIC_RELEASE);
    rc = kumi_ucx_wait(s, req);
    if (rc == KUMI_OK && old != NULL && kumi_tp_amo_fetches(op))
        *old = width == 4 ? res32 : res;
    return kumi_ucx_failed_op(s, pe, rc);
}

/* ------------------------------------------------ fence, quiet, progress */

static int kumi_ucx_fence(struct kumi_tp *tp)
{
    struct kumi_ucx *s = kumi_ucx_of(tp);

    if (s->worker != NULL && ucp_worker_fence(s->worker) != UCS_OK)
        return KUMI_ERR_TRANSPORT;
    return kumi_ucx_is_failed(s) ? KUMI_ERR_PEER : KUMI_OK;
}

static int kumi_ucx_quiet(struct kumi_tp *tp)
{
    struct kumi_ucx    *s = kumi_ucx_of(tp);
    ucp_request_param_t rp = { .op_attr_mask = 0 };

    if (s->worker == NULL)
        return KUMI_OK;
    struct kumi_ucx_probe few[16], *seq = s->size <= 16 ? few : calloc((size_t)s->size,
                                                                        sizeof(*seq));
    int                   rc = seq != NULL ? KUMI_OK : KUMI_ERR_NOMEM;

    /* a probe to every peer messaged since its last one: its answer comes
     * once everything before it was applied (messages are applied by the
     * target's progress, after UCX delivered them) */
    for (int pe = 0; pe < s->size && rc == KUMI_OK; pe++) {
        seq[pe].seq = 0;
        if (pe != s->rank && __atomic_load_n(&s->peer[pe].mdone, __ATOMIC_ACQUIRE)
                                 < __atomic_load_n(&s->peer[pe].mseq, __ATOMIC_ACQUIRE)
            && !kumi_ucx_put_probe(s, pe, 1, &seq[pe]))   /* a put's probe covers all */
            rc = kumi_ucx_probe_send(s, pe, &seq[pe]);
    }
    /* RMA (puts > 128 KiB) issued since the last flush: flush the worker.
     * Nothing else needs it (a message completes locally before its send
     * returns, its remote completion is the probe's; gets and fetching
     * atomics are waited for), and a flush is not free: a request, a
     * progress pass, over UCX's tcp a wait for the put's acknowledgement.
     * Cleared first: a put another thread issues meanwhile sets it again */
    if (rc == KUMI_OK && __atomic_exchange_n(&s->rma_any, 0, __ATOMIC_ACQ_REL)) {
        for (int pe = 0; pe < s->size; pe++)
            __atomic_store_n(&s->peer[pe].rma_pending, 0, __ATOMIC_RELEASE);
        kumi_ucx_in(s);
        ucs_status_ptr_t req = ucp_worker_flush_nbx(s->worker, &rp);
        kumi_ucx_out(s);
        rc = kumi_ucx_wait(s, req);
    }
    for (int pe = 0; pe < s->size && rc == KUMI_OK; pe++)
        if (seq[pe].seq != 0)
            rc = kumi_ucx_probe_wait(s, pe, &seq[pe]);
    if (seq != few)
        free(seq);
    if (rc == KUMI_OK && kumi_ucx_is_failed(s))
        rc = KUMI_ERR_PEER;
    return rc;
}

static int kumi_ucx_progress(struct kumi_tp *tp)
{
    return kumi_ucx_progress_(kumi_ucx_of(tp));
}

/* A barrier completed: every message since its quiet was the barrier's
 * own, consumed by its target before that target could leave, so the next
 * quiet need not probe for them (tcp's settle, same argument). Unproven
 * puts and atomics (a handler's, run during the barrier's waits) keep
 * their probe, except atomics on the peer's LLCM: mcast's ADDs, which its
 * target waits for as it waits for kicks (without this, every barrier
 * after an mcast one paid a probe round trip: 24 us against 7). */
static void kumi_ucx_settle(struct kumi_tp *tp)
{
    struct kumi_ucx *s = kumi_ucx_of(tp);

    /* TSan build: the barrier's last test may have held on entry, with no
     * progress call (and its acquire) after the kick's apply (ucx_int.h) */
    KUMI_UCX_TSAN_ACQUIRE(s);
    if (s->threads)
        return;      /* other threads may have sent during the barrier */
    for (int pe = 0; s->peer != NULL && pe < s->size; pe++) {
        struct kumi_ucx_peer *p = &s->peer[pe];
        uint64_t pseq = __atomic_load_n(&p->pseq, __ATOMIC_ACQUIRE);
        uint64_t lseq = __atomic_load_n(&p->lseq, __ATOMIC_ACQUIRE);
        if (pseq - __atomic_load_n(&p->pdone, __ATOMIC_ACQUIRE)
            <= lseq - __atomic_load_n(&p->ldone, __ATOMIC_ACQUIRE)) {   /* LLCM atomics at most */
            kumi_ucx_max(&p->pdone, pseq);
            kumi_ucx_max(&p->ldone, lseq);
            kumi_ucx_max(&p->mdone, __atomic_load_n(&p->mseq, __ATOMIC_ACQUIRE));
        }
    }
}

static void kumi_ucx_idle(struct kumi_tp *tp, int sleeping)
{
    struct kumi_ucx *s = kumi_ucx_of(tp);

    /* a count: with threads several callers may sleep at once */
    if (sleeping) {
        __atomic_add_fetch(&s->sleeping, 1, __ATOMIC_RELEASE);
        if (s->worker != NULL)
            kumi_ucx_thread_wake(s);         /* the thread may nap or be in poll() */
    } else {
        __atomic_sub_fetch(&s->sleeping, 1, __ATOMIC_RELEASE);
    }
}

static void *kumi_ucx_peer_ptr(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off)
{
    return pe == tp->rank ? (uint8_t *)tp->local[seg] + off : NULL;
}

/* ---------------------------------------------------- open and close */

static void kumi_ucx_close(struct kumi_tp *tp);

static int kumi_ucx_open(struct kumi_tp *tp, const struct kumi_tp_params *p)
{
    struct kumi_ucx *s = calloc(1, sizeof(*s));
    int              rc;

    if (s == NULL)
        return KUMI_ERR_NOMEM;
    s->tp = tp;
    s->rank = p->rank;
    s->size = p->size;
    s->threads = p->threads;
    s->timeout = p->connect_timeout;
    s->boot = p->boot;
    s->cfd = -1;
    s->caller_tid = (int)syscall(SYS_gettid);   /* kumi_init's thread */
    pthread_mutex_init(&s->qlock, NULL);
    kumi_tp_take_params(tp, p, s);
    tp->progress_mask = 0;           /* messages arrive only through progress */
    tp->doorbell      = &s->bell;
    tp->serves_boot   = 0;           /* no thread of ours: the bootstrap runs one */
    s->peer = calloc((size_t)p->size, sizeof(*s->peer));
    rc = s->peer != NULL ? kumi_ucx_setup(s, p) : KUMI_ERR_NOMEM;
    if (rc == KUMI_OK && p->size > 1)
        rc = kumi_ucx_exchange(s);
    if (rc != KUMI_OK) {
        s->closing = 1;      /* no goodbye: the peers may not even exist */
        kumi_ucx_close(tp);
    }
    return rc;
}

/* Every endpoint wired up within the start-up timeout: an empty flush per
 * peer completes once UCP reached it. */
static int kumi_ucx_connect(struct kumi_tp *tp)
{
    struct kumi_ucx *s = kumi_ucx_of(tp);
    double           deadline = kumi_ucx_now() + s->timeout;

    for (int pe = 0; pe < s->size && s->size > 1; pe++) {
        ucp_request_param_t rp = { .op_attr_mask = 0 };
        if (pe == s->rank)
            continue;
        int rc = kumi_ucx_wait_until(s, ucp_ep_flush_nbx(s->peer[pe].ep, &rp), deadline);
        if (rc == KUMI_ERR_TIMEOUT)
            kumi_tp_log(KUMI_TP_LOG_ERROR, "ucx", "PE %d not reached within %.0f s "
                        "(KUMI_STARTUP_TIMEOUT)", pe, s->timeout);
        if (rc != KUMI_OK)
            return rc;
    }
    return s->size > 1 ? kumi_ucx_thread_start(s) : KUMI_OK;
}

/* FIN to every peer, pushed out (flushed) before the deadline, so that a
 * peer takes the end of this PE's endpoints for what it is. */
static void kumi_ucx_say_fin(struct kumi_ucx *s, double deadline)
{
    struct kumi_ucx_hdr h = { .src = (uint32_t)s->rank, .kind = KUMI_UCX_FIN };
    ucp_request_param_t fp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                               .flags = UCP_AM_SEND_FLAG_EAGER };

    for (int pe = 0; pe < s->size; pe++) {
        ucp_request_param_t rp = { .op_attr_mask = 0 };
        if (pe == s->rank || s->peer[pe].ep == NULL
            || __atomic_load_n(&s->peer[pe].lost, __ATOMIC_ACQUIRE))
            continue;
        if (kumi_ucx_wait_until(s, ucp_am_send_nbx(s->peer[pe].ep, KUMI_UCX_AM_ID, &h, sizeof(h),
                                                   NULL, 0, &fp), deadline) == KUMI_OK)
            kumi_ucx_wait_until(s, ucp_ep_flush_nbx(s->peer[pe].ep, &rp), deadline);
    }
}

/* kumi_global_exit: FIN to every peer without waiting for theirs. */
static int kumi_ucx_exit_job(struct kumi_tp *tp, int status)
{
    struct kumi_ucx *s = kumi_ucx_of(tp);

    if (s == NULL || s->worker == NULL)
        return status;
    kumi_ucx_thread_stop(s);
    __atomic_store_n(&s->closing, 1, __ATOMIC_RELEASE);
    kumi_ucx_say_fin(s, kumi_ucx_now() + KUMI_UCX_EXIT_S);
    return status;
}

static void kumi_ucx_close(struct kumi_tp *tp)
{
    struct kumi_ucx *s = kumi_ucx_of(tp);

    if (s == NULL)
        return;
    kumi_ucx_thread_stop(s);
    if (s->worker != NULL && s->size > 1 && !kumi_ucx_is_failed(s)
        && !__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE)) {
        double deadline = kumi_ucx_now() + KUMI_UCX_BYE_S;
        int    open;
        kumi_ucx_say_fin(s, deadline);
        do {     /* every peer's FIN, so no peer's end alarms us */
            open = 0;
            kumi_ucx_progress_(s);
            for (int pe = 0; pe < s->size; pe++)
                open += pe != s->rank && !__atomic_load_n(&s->peer[pe].fin_rx, __ATOMIC_ACQUIRE)
                        && !__atomic_load_n(&s->peer[pe].lost, __ATOMIC_ACQUIRE);
        } while (open > 0 && !kumi_ucx_is_failed(s) && kumi_ucx_now() < deadline);
    }
    kumi_ucx_teardown(s);
    pthread_mutex_destroy(&s->qlock);
    free(s->q);
    free(s->peer);
    free(s);
    tp->priv = NULL;
}

/* The table libkumi's stand-in (../plugin.c) looks up after dlopen: the
 * only symbol this plugin exports. Priority and flags repeat the
 * stand-in's. */
__attribute__((visibility("default"))) const struct kumi_tp_ops kumi_tp_ucx_plugin = {
    .size     = sizeof(struct kumi_tp_ops),
    .name     = "ucx",
    .open     = kumi_ucx_open,
    .connect  = kumi_ucx_connect,
    .close    = kumi_ucx_close,
    .kick     = kumi_ucx_kick,
    .put      = kumi_ucx_put,
    .get      = kumi_ucx_get,
    .atomic   = kumi_ucx_atomic,
    .am_send  = kumi_ucx_am_send,
    .fence    = kumi_ucx_fence,
    .quiet    = kumi_ucx_quiet,
    .progress = kumi_ucx_progress,
    .peer_ptr = kumi_ucx_peer_ptr,
    .idle     = kumi_ucx_idle,
    .settle   = kumi_ucx_settle,
    .exit_job = kumi_ucx_exit_job,
    .am_sendv = kumi_ucx_am_sendv,
    /* below tcp (10): auto never picks ucx (README: why); ask for it with
     * KUMI_TRANSPORT=ucx or kumirun --transport ucx */
    .priority = 5,
};
