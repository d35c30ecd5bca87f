/* ucx_am.c -- the ucx transport's receive side: UCP's active-message
 * callback validates and queues every message (kicks, kumi AMs, small
 * puts, quiet's probes, FIN), and progress applies the queue in arrival
 * order outside UCP's callback. See README.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ucx_int.h"

/* set while this thread runs a kumi AM handler: progress then drives the
 * worker but applies nothing, so handlers never nest */
static __thread int kumi_ucx_in_rx;

static void kumi_ucx_apply(struct kumi_ucx *s, const struct kumi_ucx_hdr *h, const uint8_t *payload,
                           uint32_t len);

int kumi_ucx_in_handler(void)
{
    return kumi_ucx_in_rx;
}

/* Queues one message for progress to apply: [hdr][u32 len][payload],
 * 8-byte aligned entries. */
int kumi_ucx_enqueue(struct kumi_ucx *s, const struct kumi_ucx_hdr *h, const void *a,
                            size_t alen, const void *b, size_t blen)
{
    size_t   len = alen + blen, need = (sizeof(*h) + 8 + len + 7) & ~(size_t)7;
    uint32_t l32 = (uint32_t)len;

    pthread_mutex_lock(&s->qlock);
    if (s->qlen + need > s->qcap) {
        size_t   cap = (s->qlen + need) * 2;
        uint8_t *q = realloc(s->q, cap);
        if (q == NULL) {
            pthread_mutex_unlock(&s->qlock);
            return KUMI_ERR_NOMEM;
        }
        s->q = q;
        s->qcap = cap;
    }
    uint8_t *e = s->q + s->qlen;
    memcpy(e, h, sizeof(*h));
    memcpy(e + sizeof(*h), &l32, 4);
    if (alen != 0)
        memcpy(e + sizeof(*h) + 8, a, alen);
    if (blen != 0)
        memcpy(e + sizeof(*h) + 8 + alen, b, blen);
    /* atomic: kumi_ucx_drain looks at it without the lock */
    __atomic_store_n(&s->qlen, s->qlen + need, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&s->qlock);
    return KUMI_OK;
}

static int kumi_ucx_amo_ok(struct kumi_ucx *s, const struct kumi_ucx_hdr *h, size_t len)
{
    unsigned seg = h->handler & 0xff, op = h->handler >> 8;

    return len == 0 && seg < KUMI_SEG_COUNT && s->tp->local[seg] != NULL
           && (h->width == 4 || h->width == 8) && (h->off & (h->width - 1u)) == 0
           && h->width <= s->tp->seg_size[seg] && h->off <= s->tp->seg_size[seg] - h->width
           && op < KUMI_AMO_COUNT && !kumi_tp_amo_fetches((enum kumi_amo)op);
}

/* UCP's AM callback (inside ucp_worker_progress): validate, then queue.
 * Applying here would run kumi handlers inside UCP's callback, where they
 * could not send and wait. */
ucs_status_t kumi_ucx_am_cb(void *arg, const void *header, size_t hlen, void *data, size_t len,
                            const ucp_am_recv_param_t *param)
{
    struct kumi_ucx     *s = arg;
    struct kumi_ucx_hdr  h;
    const char          *bad = NULL;

    if (hlen != sizeof(h)) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "ucx", "message with a %zu-byte header", hlen);
        return UCS_OK;
    }
    memcpy(&h, header, sizeof(h));
    if (h.src >= (uint32_t)s->size)
        bad = "sender out of range";
    else if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
        bad = "rendezvous message (kumi sends eager only)";
    else if (h.kind == KUMI_UCX_KICK
             && ((h.width != 1 && h.width != 2 && h.width != 4 && h.width != 8) || (h.off & (h.width - 1))
                 || h.off > s->tp->seg_size[KUMI_SEG_LLCM] - h.width || len != 0))
        bad = "kick outside the LLCM";
    else if (h.kind == KUMI_UCX_AM && (h.handler >= KUMI_TP_AM_MAX_HANDLERS
                                       || len > KUMI_TP_AM_MAX_PAYLOAD))
        bad = "active message beyond the limits";
    else if (h.kind == KUMI_UCX_PUT
             && (h.handler >= KUMI_SEG_COUNT || s->tp->local[h.handler] == NULL
                 || len > KUMI_UCX_PUT_AM_MAX || h.off > s->tp->seg_size[h.handler]
                 || len > s->tp->seg_size[h.handler] - h.off))
        bad = "put outside the segment";
    else if (h.kind == KUMI_UCX_AMO && !kumi_ucx_amo_ok(s, &h, len))
        bad = "atomic outside the segment";
    else if (h.kind < KUMI_UCX_KICK || h.kind > KUMI_UCX_AMO || h.src == (uint32_t)s->rank)
        bad = "unknown kind";
    if (bad != NULL) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "ucx", "bad message from PE %u: %s", h.src, bad);
        kumi_tp_fail(s->tp, h.src < (uint32_t)s->size ? 1u + h.src : KUMI_TP_FAIL_LAUNCHER,
                     KUMI_TP_STATUS_UNKNOWN);
        return UCS_OK;
    }
    /* A store (kick, put, non-fetching atomic) or a probe's answer finds
     * nothing queued before it and nobody applying: it is applied here, at
     * once, still in arrival order (the lock keeps a drain from taking the
     * queue meanwhile). This saves the copy and the queue's round, and the
     * caller's wait sees the store on its next test. Handlers and probes
     * (which send) always go through the queue. */
    if (h.kind != KUMI_UCX_AM && h.kind != KUMI_UCX_PROBE
        && !(h.kind == KUMI_UCX_PUT && h.val != 0)        /* answers: as a probe */
        && !__atomic_load_n(&s->closing, __ATOMIC_ACQUIRE)) {
        int direct;
        pthread_mutex_lock(&s->qlock);
        direct = s->qlen == 0 && !__atomic_load_n(&s->draining, __ATOMIC_ACQUIRE);
        if (direct)
            kumi_ucx_apply(s, &h, data, (uint32_t)len);
        pthread_mutex_unlock(&s->qlock);
        if (direct) {
            __atomic_add_fetch(&s->direct, 1, __ATOMIC_RELAXED);
            kumi_ucx_ring(s->tp);
            return UCS_OK;
        }
    }
    if (kumi_ucx_enqueue(s, &h, data, len, NULL, 0) != KUMI_OK)
        kumi_tp_fail(s->tp, 1u + (uint32_t)s->rank, KUMI_TP_STATUS_UNKNOWN);
    return UCS_OK;
}

void kumi_ucx_store(void *p, unsigned width, uint64_t v)
{
    switch (width) {
    case 1: __atomic_store_n((uint8_t *)p, (uint8_t)v, __ATOMIC_RELEASE); break;
    case 2: __atomic_store_n((uint16_t *)p, (uint16_t)v, __ATOMIC_RELEASE); break;
    case 4: __atomic_store_n((uint32_t *)p, (uint32_t)v, __ATOMIC_RELEASE); break;
    default: __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE); break;
    }
}

/* Applies one message (validated on receipt). */
static void kumi_ucx_apply(struct kumi_ucx *s, const struct kumi_ucx_hdr *h, const uint8_t *payload,
                           uint32_t len)
{
    struct kumi_tp *tp = s->tp;

    if (h->kind == KUMI_UCX_KICK) {
        kumi_ucx_store((uint8_t *)tp->local[KUMI_SEG_LLCM] + h->off, h->width, h->val);
    } else if (h->kind == KUMI_UCX_AM) {
        kumi_tp_am_fn fn = __atomic_load_n(&tp->am[h->handler].fn, __ATOMIC_ACQUIRE);
        if (fn != NULL) {
            kumi_ucx_in_rx = 1;
            fn(tp, (int)h->src, len ? payload : NULL, len,
               __atomic_load_n(&tp->am[h->handler].arg, __ATOMIC_RELAXED));
            kumi_ucx_in_rx = 0;
        }
    } else if (h->kind == KUMI_UCX_AMO) {
        kumi_tp_amo_apply((uint8_t *)tp->local[h->handler & 0xff] + h->off,
                          (enum kumi_amo)(h->handler >> 8), h->width, h->val, 0);
    } else if (h->kind == KUMI_UCX_PUT && h->val == 0) {
        memcpy((uint8_t *)tp->local[h->handler] + h->off, payload, len);
    } else if (h->kind == KUMI_UCX_PROBE || h->kind == KUMI_UCX_PUT) {
        /* a put that carries a probe: applied, then answered */
        if (h->kind == KUMI_UCX_PUT)
            memcpy((uint8_t *)tp->local[h->handler] + h->off, payload, len);
        /* everything before it is applied: answer (a failure to send is
         * the job's, recorded by the send) */
        struct kumi_ucx_hdr a = { .src = (uint32_t)s->rank, .kind = KUMI_UCX_PROBE_ACK,
                                  .val = h->val };
        KUMI_UCX_TSAN_RELEASE(s);   /* the put, before the answer (ucx_int.h) */
        kumi_ucx_send(s, (int)h->src, &a, NULL, 0, NULL, 0);
    } else if (h->kind == KUMI_UCX_PROBE_ACK) {
        uint64_t *ack = &s->peer[h->src].probe_ack;
        if (__atomic_load_n(ack, __ATOMIC_ACQUIRE) < h->val)
            __atomic_store_n(ack, h->val, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&s->peer[h->src].fin_rx, 1, __ATOMIC_RELEASE);
    }
    KUMI_UCX_TSAN_RELEASE(s);       /* what it stored (ucx_int.h) */
}

/* Applies the queued messages in arrival order; one thread at a time, and
 * never inside a handler. Handlers may queue more (to myself): the loop
 * takes those too. */
static int kumi_ucx_drain(struct kumi_ucx *s)
{
    struct kumi_tp *tp = s->tp;
    int             n = 0;

    /* nothing queued (every poll of a wait, mostly): no lock, no flag.
     * What another thread queues meanwhile is taken by the next poll, and
     * what this thread's own ucp_worker_progress just queued is seen here
     * (its store came first in this thread) */
    if (__atomic_load_n(&s->qlen, __ATOMIC_ACQUIRE) == 0)
        return 0;
    /* closing: the runtime is done with handlers (teardown still drives
     * the worker) */
    if (kumi_ucx_in_rx || __atomic_load_n(&s->closing, __ATOMIC_ACQUIRE)
        || __atomic_exchange_n(&s->draining, 1, __ATOMIC_ACQUIRE))
        return 0;
    for (;;) {
        pthread_mutex_lock(&s->qlock);
        uint8_t *q = s->q;
        size_t   qlen = s->qlen;
        s->q = NULL;
        s->qcap = 0;
        __atomic_store_n(&s->qlen, 0, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&s->qlock);
        if (qlen == 0) {
            free(q);
            break;
        }
        for (size_t at = 0; at < qlen;) {
            struct kumi_ucx_hdr h;
            uint32_t            len;
            memcpy(&h, q + at, sizeof(h));
            memcpy(&len, q + at + sizeof(h), 4);
            const uint8_t *payload = q + at + sizeof(h) + 8;
            at += (sizeof(h) + 8 + len + 7) & ~(size_t)7;
            n++;
            kumi_ucx_apply(s, &h, payload, len);
        }
        free(q);
    }
    __atomic_store_n(&s->draining, 0, __ATOMIC_RELEASE);
    if (n > 0)
        kumi_ucx_ring(tp);
    return n;
}

/* One thread at a time drives the worker: a second one returns at once
 * instead of spinning on UCX's worker lock (UCS_THREAD_MODE_MULTI: a
 * spinlock) while the first progresses, which on a loaded machine cost
 * the spinner's core and, when the holder was preempted, milliseconds. */
static int kumi_ucx_drive(struct kumi_ucx *s)
{
    uint32_t d0 = __atomic_load_n(&s->direct, __ATOMIC_RELAXED);

    if (s->worker == NULL || __atomic_exchange_n(&s->driving, 1, __ATOMIC_ACQUIRE))
        return 0;
    KUMI_UCX_TSAN_RELEASE(s);
    ucp_worker_progress(s->worker);
    __atomic_store_n(&s->driving, 0, __ATOMIC_RELEASE);
    return (int)(__atomic_load_n(&s->direct, __ATOMIC_RELAXED) - d0);
}

/* One ucp_worker_progress per call: a caller's wait calls again anyway,
 * and a second call after an event (to see the worker idle) is one more
 * epoll_wait over UCX's tcp between a message's arrival and the wait
 * seeing it. */
int kumi_ucx_progress_(struct kumi_ucx *s)
{
    /* a caller polls: the progress thread stays away (README: progress);
     * a lost increment between two threads only means it moved less */
    __atomic_store_n(&s->polls, __atomic_load_n(&s->polls, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&s->poll_ns, kumi_ucx_ns(), __ATOMIC_RELAXED);
    int n = kumi_ucx_drive(s);
    n += kumi_ucx_drain(s);
    KUMI_UCX_TSAN_ACQUIRE(s);       /* what any thread applied (ucx_int.h) */
    return n;
}

int kumi_ucx_serve(struct kumi_ucx *s, int *armed)
{
    uint32_t d0 = __atomic_load_n(&s->direct, __ATOMIC_RELAXED);

    *armed = 0;
    /* a caller inside a UCP call holds (or is about to take) the worker's
     * lock: nap rather than spin on it (kumi_ucx_in) */
    if (s->worker == NULL || __atomic_load_n(&s->calling, __ATOMIC_ACQUIRE)
        || __atomic_exchange_n(&s->driving, 1, __ATOMIC_ACQUIRE))
        return -1;
    KUMI_UCX_TSAN_RELEASE(s);
    int more;
    while ((more = ucp_worker_progress(s->worker) != 0)
           && !__atomic_load_n(&s->calling, __ATOMIC_ACQUIRE)) {
    }
    /* stopped for a caller: not idle, so not armed (the caller polls) */
    *armed = !more && ucp_worker_arm(s->worker) == UCS_OK;
    __atomic_store_n(&s->driving, 0, __ATOMIC_RELEASE);
    return (int)(__atomic_load_n(&s->direct, __ATOMIC_RELAXED) - d0) + kumi_ucx_drain(s);
}

