/*
 * proto.c -- the two-sided messaging protocol's sending side and engine:
 * requests, the rendezvous table, the active-message handler, eager and
 * rendezvous sends, credits, DATA streams, progress and the layer's hooks
 * (the receiving side is match.c). See README.md for the design and the
 * measurements.
 *
 * Threads: the active-message handler may run on a transport's own thread
 * (tcp's progress thread) while the main thread is in kumi. It touches
 * only the inbox (inbox_lock) and, for DATA, the rendezvous table
 * (rdv_lock). Everything else is the main thread's.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg_int.h"

#define KUMI_MSG_STREAM_BURST 16   /* DATA pieces per stream per progress call:
                                      64 KiB, then the others get a turn */
#define KUMI_MSG_LONG_BURST   2    /* the same with long AMs (tcp): 1 MiB */

struct kumi_msg kumi_msg;

void kumi_msg_lock(uint32_t *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            sched_yield();
}

void kumi_msg_unlock(uint32_t *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* --------------------------------------------------------- requests */

/* A new request on the free list (then taken off it), with a handle id
 * (msg.h) while the table has room below 2^KUMI_MSG_HID_IDX_BITS; past
 * that, hid 0: the request has none and works as any other. */
struct kumi_request *kumi_msg_req_alloc(void)
{
    struct kumi_request *r = malloc(sizeof(*r));

    if (r == NULL)
        return NULL;
    r->next  = NULL;
    r->spill = NULL;
    r->hid   = 0;
    if (kumi_msg.reqtab_n == 0)
        kumi_msg.reqtab_n = 1;   /* index 0: no id */
    if (kumi_msg.reqtab_n >= kumi_msg.reqtab_cap
        && kumi_msg.reqtab_cap < (1u << KUMI_MSG_HID_IDX_BITS)) {
        uint32_t cap = kumi_msg.reqtab_cap ? 2 * kumi_msg.reqtab_cap : 256;
        struct kumi_request **t = realloc(kumi_msg.reqtab, cap * sizeof(*t));
        if (t != NULL) {
            kumi_msg.reqtab     = t;
            kumi_msg.reqtab_cap = cap;
        }
    }
    if (kumi_msg.reqtab_n < kumi_msg.reqtab_cap) {
        r->hid = kumi_msg.reqtab_n;
        kumi_msg.reqtab[kumi_msg.reqtab_n++] = r;
    }
    kumi_msg.free_reqs = r;
    return kumi_msg_req_new();
}

int kumi_msg_team_rank_slow(const struct kumi_team *team, int world_pe)
{
    for (int i = 0; i < team->size; i++)
        if (team->pes[i] == world_pe)
            return i;
    return -1;
}

/* ------------------------------------------------ rendezvous table */

uint64_t kumi_msg_rdv_put(struct kumi_request *r)
{
    uint32_t i;

    kumi_msg_lock(&kumi_msg.rdv_lock);
    for (i = kumi_msg.rdv_free; i < kumi_msg.rdv_cap && kumi_msg.rdv[i] != NULL; i++)
        ;
    if (i == kumi_msg.rdv_cap)
        for (i = 0; i < kumi_msg.rdv_cap && kumi_msg.rdv[i] != NULL; i++)
            ;
    if (i == kumi_msg.rdv_cap) {
        uint32_t              cap = kumi_msg.rdv_cap ? 2 * kumi_msg.rdv_cap : 64;
        struct kumi_request **t   = realloc(kumi_msg.rdv, cap * sizeof(*t));
        uint32_t             *g   = t ? realloc(kumi_msg.rdv_gen, cap * sizeof(*g)) : NULL;
        if (t != NULL)
            kumi_msg.rdv = t;
        if (t == NULL || g == NULL) {
            kumi_msg_unlock(&kumi_msg.rdv_lock);
            return 0;
        }
        kumi_msg.rdv_gen = g;
        for (uint32_t k = kumi_msg.rdv_cap; k < cap; k++) {
            kumi_msg.rdv[k]     = NULL;
            kumi_msg.rdv_gen[k] = 0;
        }
        kumi_msg.rdv_cap = cap;
    }
    kumi_msg.rdv[i] = r;
    uint32_t gen = ++kumi_msg.rdv_gen[i];
    if (gen == 0)
        gen = kumi_msg.rdv_gen[i] = 1;
    kumi_msg.rdv_free = i + 1;
    kumi_msg_unlock(&kumi_msg.rdv_lock);
    r->id = (uint64_t)gen << 32 | i;
    return r->id;
}

/* The request behind id, or NULL (caller holds rdv_lock). */
static struct kumi_request *rdv_lookup(uint64_t id)
{
    uint32_t i = (uint32_t)id, gen = (uint32_t)(id >> 32);

    if (i >= kumi_msg.rdv_cap || gen == 0 || kumi_msg.rdv_gen[i] != gen)
        return NULL;
    return kumi_msg.rdv[i];
}

struct kumi_request *kumi_msg_rdv_get(uint64_t id)
{
    kumi_msg_lock(&kumi_msg.rdv_lock);
    struct kumi_request *r = rdv_lookup(id);
    kumi_msg_unlock(&kumi_msg.rdv_lock);
    return r;
}

void kumi_msg_rdv_release(struct kumi_request *r)
{
    if (r->id == 0)
        return;
    kumi_msg_lock(&kumi_msg.rdv_lock);
    uint32_t i = (uint32_t)r->id;
    if (i < kumi_msg.rdv_cap && kumi_msg.rdv[i] == r) {
        kumi_msg.rdv[i] = NULL;
        if (i < kumi_msg.rdv_free)
            kumi_msg.rdv_free = i;
    }
    kumi_msg_unlock(&kumi_msg.rdv_lock);
    r->id = 0;
}

/* ---------------------------------------------------------- handler */

static void inbox_push(struct kumi_msg_node *n)
{
    n->next = NULL;
    kumi_msg_lock(&kumi_msg.inbox_lock);
    if (kumi_msg.in_tail != NULL)
        kumi_msg.in_tail->next = n;
    else
        __atomic_store_n(&kumi_msg.in_head, n, __ATOMIC_RELAXED);
    kumi_msg.in_tail = n;
    kumi_msg_unlock(&kumi_msg.inbox_lock);
}

struct kumi_msg_node *kumi_msg_inbox_take(void)
{
    kumi_msg_lock(&kumi_msg.inbox_lock);
    struct kumi_msg_node *n = kumi_msg.in_head;
    __atomic_store_n(&kumi_msg.in_head, NULL, __ATOMIC_RELAXED);
    kumi_msg.in_tail = NULL;
    kumi_msg_unlock(&kumi_msg.inbox_lock);
    return n;
}

/* Set on the thread that ran kumi_init (the one that calls the layer).
 * initial-exec: read with one load relative to the thread pointer, where
 * the default model of a shared library calls __tls_get_addr for every
 * message the handler meets (libkumi is linked, never dlopen'ed, and 4
 * bytes fit the static TLS surplus even if it were). */
static __thread int msg_owner __attribute__((tls_model("initial-exec")));

/* DATA goes straight into the receiver's buffer (no staging copy). An
 * EAGER message met by the main thread outside the layer (in a wait's
 * progress) with nothing queued before it is matched at once, copied
 * straight from the transport into a posted buffer. The rest is copied
 * into a node for the main thread. */
static __attribute__((noinline)) void
msg_am_slow(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg)
{
    (void)tp;
    (void)arg;
    struct kumi_msg_hdr h;

    if (!__atomic_load_n(&kumi_msg.up, __ATOMIC_ACQUIRE))
        return;
    if (len < KUMI_MSG_EAGER_HDR)
        goto bad;
    memcpy(&h, payload, KUMI_MSG_EAGER_HDR);
    if (h.type == KUMI_MSG_EAGER) {
        h.size = len - KUMI_MSG_EAGER_HDR;
        if (msg_owner && !kumi_msg.busy
            && __atomic_load_n(&kumi_msg.in_head, __ATOMIC_ACQUIRE) == NULL) {
            kumi_msg.busy = 1;   /* (the direct path reads the first 16 bytes and size) */
            kumi_msg_arrive_direct(src, &h, (const char *)payload + KUMI_MSG_EAGER_HDR);
            kumi_msg.busy = 0;
            return;
        }
        h.sid = h.rid = 0;
        h.pid = 0;
    } else if (len < KUMI_MSG_HDR) {
        goto bad;
    } else {
        memcpy(&h, payload, KUMI_MSG_HDR);
    }
    if (h.type == KUMI_MSG_DATA) {
        size_t n = len - KUMI_MSG_HDR;
        kumi_msg_lock(&kumi_msg.rdv_lock);
        struct kumi_request *r = rdv_lookup(h.rid);
        if (r == NULL || r->kind != KUMI_MSG_RECV || !r->streaming || h.size > r->expect
            || n > r->expect - h.size) {
            kumi_msg_unlock(&kumi_msg.rdv_lock);
            goto bad;
        }
        memcpy((char *)r->buf + h.size, (const char *)payload + KUMI_MSG_HDR, n);
        __atomic_store_n(&r->got, r->got + n, __ATOMIC_RELEASE);
        kumi_msg_unlock(&kumi_msg.rdv_lock);
        return;
    }
    if (h.type < KUMI_MSG_EAGER || h.type > KUMI_MSG_TYPE_LAST
        || (h.type != KUMI_MSG_EAGER && len != KUMI_MSG_HDR))
        goto bad;
    size_t data = h.type == KUMI_MSG_EAGER ? (size_t)h.size : 0;
    struct kumi_msg_node *n = malloc(sizeof(*n) + data);
    if (n == NULL)
        kumi_rt_abort("msg: out of memory queueing a message");
    n->src = src;
    n->h   = h;
    if (data != 0)
        memcpy(n->data, (const char *)payload + KUMI_MSG_EAGER_HDR, data);
    inbox_push(n);
    return;
bad:
    kumi_rt_log(KUMI_LOG_ERROR, "msg: malformed message of %zu bytes from PE %d dropped", len,
                src);
}

/* The handler. The usual message (an EAGER of at most 16 bytes on the
 * world team's point-to-point context, met by the main thread outside the
 * layer with nothing queued, its sequence number the one due, a posted
 * receive there for it) is matched and delivered here with no call, so
 * with a small frame: everything is checked before anything is changed,
 * and anything else goes to msg_am_slow (a tail call), which does it all
 * again the general way (other teams and contexts too: their rank is not
 * the world PE). The general path saved six registers and copied the
 * header to the stack for every message. */
static void msg_am(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg)
{
    struct kumi_msg_hdr h;

    if (__builtin_expect(!__atomic_load_n(&kumi_msg.up, __ATOMIC_ACQUIRE)
                         || len < KUMI_MSG_EAGER_HDR || len > KUMI_MSG_EAGER_HDR + 16, 0))
        goto slow;
    memcpy(&h, payload, KUMI_MSG_EAGER_HDR);
    struct kumi_msg_peer *p = &kumi_msg.peer[src];
    /* type EAGER, context KUMI_MSG_CTX_USER, the world's slot 0 */
    if (__builtin_expect(h.type != KUMI_MSG_EAGER || h.ctx != 0 || h.team != 0
                         || !msg_owner || kumi_msg.busy
                         || __atomic_load_n(&kumi_msg.in_head, __ATOMIC_ACQUIRE) != NULL
                         || h.seq != p->seq_in, 0))
        goto slow;
    /* kumi_msg_posted_take's walk, the unlink after the checks */
    struct kumi_request *r = kumi_msg.posted_head, *prev = NULL;
    for (; r != NULL; prev = r, r = r->next)
        if (r->team_slot == 0 && r->ctx == 0
            && (r->peer == KUMI_ANY_SOURCE || r->peer == src)
            && (r->tag == KUMI_ANY_TAG || r->tag == h.tag))
            break;
    p->avail += h.credit;
    p->seq_in = h.seq + 1;
    if (__builtin_expect(r == NULL, 0)) {
        /* unexpected: queued from here (no handler runs meanwhile) */
        kumi_msg_arrive_unexp_rec(src, payload, len);
        return;
    }
    kumi_msg_posted_unlink(r, prev);
    /* kumi_msg_deliver_eager's; the world team's rank is the PE */
    size_t n = len - KUMI_MSG_EAGER_HDR, take = n < r->bytes ? n : r->bytes;
    r->status.source = src;
    r->status.tag    = h.tag;
    r->status.bytes  = n;
    r->err = n > r->bytes ? KUMI_ERR_TRUNCATE : KUMI_OK;
    p->owed += KUMI_MSG_CHARGE(n);
    kumi_msg_copy(r->buf, (const char *)payload + KUMI_MSG_EAGER_HDR, take);
    kumi_msg_req_complete(r);
    return;
slow:
    msg_am_slow(tp, src, payload, len, arg);
}

/* DATA as a long active message (transports with am_send_long: tcp): the
 * transport receives the piece straight into the receive buffer this
 * returns, then data_done counts it. */
static void *data_place(struct kumi_tp *tp, int src, const void *hdr, size_t hlen, size_t len,
                        void *arg)
{
    (void)tp;
    (void)arg;
    struct kumi_msg_hdr h;
    void               *dst = NULL;

    if (!__atomic_load_n(&kumi_msg.up, __ATOMIC_ACQUIRE) || hlen != KUMI_MSG_HDR)
        goto bad;
    memcpy(&h, hdr, KUMI_MSG_HDR);
    if (h.type != KUMI_MSG_DATA)
        goto bad;
    kumi_msg_lock(&kumi_msg.rdv_lock);
    struct kumi_request *r = rdv_lookup(h.rid);
    if (r != NULL && r->kind == KUMI_MSG_RECV && r->streaming && h.size <= r->expect
        && len <= r->expect - h.size)
        dst = (char *)r->buf + h.size;
    kumi_msg_unlock(&kumi_msg.rdv_lock);
    if (dst != NULL)
        return dst;
bad:
    kumi_rt_log(KUMI_LOG_ERROR, "msg: malformed DATA of %zu bytes from PE %d", len, src);
    return NULL;
}

static void data_done(struct kumi_tp *tp, int src, const void *hdr, size_t hlen, void *dst,
                      size_t len, void *arg)
{
    (void)tp;
    (void)hlen;
    (void)dst;
    (void)arg;
    struct kumi_msg_hdr h;

    memcpy(&h, hdr, KUMI_MSG_HDR);   /* data_place checked it */
    kumi_msg_lock(&kumi_msg.rdv_lock);
    struct kumi_request *r = rdv_lookup(h.rid);
    if (r != NULL)
        __atomic_store_n(&r->got, r->got + len, __ATOMIC_RELEASE);
    kumi_msg_unlock(&kumi_msg.rdv_lock);
    if (r == NULL)
        kumi_rt_log(KUMI_LOG_ERROR, "msg: DATA from PE %d for a receive that ended", src);
}

/* ----------------------------------------------------------- sending */

/* a send of an active message to pe failed with rc: reported */
int kumi_msg_send_am_fail(const char *call, int pe, int rc)
{
    if (kumi_rt_failed())
        return kumi_rt_peer_error(call);
    return kumi_rt_error(rc, call, "sending to PE %d: %s", pe, kumi_strerror(rc));
}

int kumi_msg_send_am(const char *call, int pe, struct kumi_msg_hdr *h, const void *data, size_t n)
{
    return kumi_msg_send_am_inline(call, pe, h, data, n);
}

/* Sends r now (credit is there, nothing queued before it). The eager
 * case is msg_int.h's kumi_msg_send_eager, which api.c's sends also use
 * straight (an eager send is one call from kumi_isend to the transport). */
static inline __attribute__((always_inline)) int send_now(const char *call,
                                                          struct kumi_request *r)
{
    struct kumi_msg_peer *p = &kumi_msg.peer[r->peer];
    struct kumi_msg_hdr   h;
    int                   rc;

    if (!r->rdv)
        return kumi_msg_send_eager(call, r, p);
    h = (struct kumi_msg_hdr){ .ctx = r->ctx, .team = (uint16_t)r->team_slot, .tag = r->tag,
                               .seq = p->seq_out++ };
    if (kumi_msg_rdv_put(r) == 0)
        return kumi_rt_error(KUMI_ERR_NOMEM, call, "out of memory for a rendezvous");
    h.type = KUMI_MSG_RTS;
    h.size = r->bytes;
    h.sid  = r->id;
    h.rid  = (uint64_t)(uintptr_t)r->buf;
    h.pid  = kumi_msg.pid;
    p->avail -= (int64_t)KUMI_MSG_CHARGE(0);
    r->state = KUMI_MSG_ACTIVE;
    rc = kumi_msg_send_am(call, r->peer, &h, NULL, 0);
    if (rc != KUMI_OK) {
        kumi_msg_rdv_release(r);
        r->err = rc;
        kumi_msg_req_complete(r);
    }
    return rc;
}

int kumi_msg_start_send(const char *call, struct kumi_request *r)
{
    struct kumi_msg_peer *p = &kumi_msg.peer[r->peer];
    uint64_t              charge;

    r->rdv = r->bytes > kumi_msg.eager || r->sync;   /* sync: FIN says it matched */
    charge = KUMI_MSG_CHARGE(r->rdv ? 0 : r->bytes);
    if (p->q_head == NULL && p->avail >= (int64_t)charge)
        return send_now(call, r);
    /* out of credit, or others wait before it: queue it. An eager one is
     * copied and done for its sender (as if sent); a clone waits. */
    struct kumi_request *q = r;
    if (!r->rdv) {
        if ((q = kumi_msg_req_new()) == NULL
            || (r->bytes != 0 && (q->spill = malloc(r->bytes)) == NULL)) {
            if (q != NULL)
                kumi_msg_req_free(q);
            return kumi_rt_error(KUMI_ERR_NOMEM, call, "out of memory queueing %zu bytes for "
                                 "PE %d", r->bytes, r->peer);
        }
        if (r->bytes != 0)
            memcpy(q->spill, r->buf, r->bytes);
        q->kind = KUMI_MSG_SEND;
        q->ctx  = r->ctx;
        q->team_slot = r->team_slot;
        q->team  = r->team;
        q->peer  = r->peer;
        q->tag   = r->tag;
        q->bytes = r->bytes;
        q->rdv   = 0;
        q->clone = 1;
        kumi_msg_req_complete(r);
    }
    q->state = KUMI_MSG_QUEUED;
    q->next  = NULL;
    if (p->q_tail != NULL)
        p->q_tail->next = q;
    else {
        p->q_head = q;
        kumi_msg.queued++;
    }
    p->q_tail = q;
    return KUMI_OK;
}

/* Sends what credit allows from each destination's queue. */
static int flush_queues(const char *call)
{
    int served = 0;

    for (int pe = 0; pe < kumi_msg.npes && kumi_msg.queued > 0; pe++) {
        struct kumi_msg_peer *p = &kumi_msg.peer[pe];
        while (p->q_head != NULL) {
            struct kumi_request *r = p->q_head;
            if (p->avail < (int64_t)KUMI_MSG_CHARGE(r->rdv ? 0 : r->bytes))
                break;
            p->q_head = r->next;
            if (p->q_head == NULL) {
                p->q_tail = NULL;
                kumi_msg.queued--;
            }
            int rc = send_now(call, r);
            if (r->clone)
                kumi_msg_req_free(r);
            served++;
            if (rc != KUMI_OK)
                return rc;
        }
    }
    return served;
}

/* Streams DATA for the sends whose receivers sent a CTS. */
static int stream(const char *call)
{
    struct kumi_request **pp = &kumi_msg.streams;
    int                   served = 0;

    int                   lng = kumi_tp_has_am_long(&kumi_rt.tp);
    int                   burst = lng ? KUMI_MSG_LONG_BURST : KUMI_MSG_STREAM_BURST;
    size_t                chunk = lng ? KUMI_TP_AM_LONG_MAX : KUMI_MSG_CHUNK;

    while (*pp != NULL) {
        struct kumi_request *s = *pp;
        for (int k = 0; k < burst && s->stream_off < s->stream_len; k++) {
            size_t              n = s->stream_len - s->stream_off;
            struct kumi_msg_hdr h = { .type = KUMI_MSG_DATA, .size = s->stream_off,
                                      .rid = s->stream_rid };
            const char         *p = (const char *)s->buf + s->stream_off;
            int                 rc;
            if (n > chunk)
                n = chunk;
            if (lng) {
                rc = kumi_tp_am_send_long(&kumi_rt.tp, s->peer, KUMI_RT_AM_MSG, &h,
                                          KUMI_MSG_HDR, p, n);
                if (rc != KUMI_OK)
                    rc = kumi_rt_failed() ? kumi_rt_peer_error(call)
                                          : kumi_rt_error(rc, call, "sending to PE %d: %s",
                                                          s->peer, kumi_strerror(rc));
            } else {
                rc = kumi_msg_send_am(call, s->peer, &h, p, n);
            }
            if (rc != KUMI_OK) {
                *pp = s->next;
                kumi_msg_rdv_release(s);
                s->err = rc;
                kumi_msg_req_complete(s);
                return rc;
            }
            s->stream_off += n;
            served++;
        }
        if (s->stream_off == s->stream_len) {
            /* the transport holds its own copy of every piece: done */
            *pp = s->next;
            kumi_msg_rdv_release(s);
            kumi_msg_req_complete(s);
            served++;
        } else {
            pp = &s->next;
        }
    }
    return served;
}

/* Gives back credit a peer may need: a quarter of its allowance or more
 * (less rides on the next message to it). */
static int return_credit(const char *call)
{
    int served = 0;

    for (int pe = 0; pe < kumi_msg.npes; pe++)
        if (kumi_msg.peer[pe].owed >= kumi_msg.credit / 4) {
            struct kumi_msg_hdr h = { .type = KUMI_MSG_CREDIT };
            int rc = kumi_msg_send_am(call, pe, &h, NULL, 0);
            if (rc != KUMI_OK)
                return rc;
            served++;
        }
    return served;
}

int kumi_msg_progress(const char *call, int transport)
{
    int served = 0, rc;

    if (!kumi_msg.up || kumi_msg.busy)
        return 0;
    if (transport) {   /* outside busy: handlers may match EAGER at once */
        rc = kumi_tp_progress(&kumi_rt.tp);
        if (rc > 0)
            served += rc;
    }
    kumi_msg.busy = 1;
    if ((rc = kumi_msg_drain(call)) < 0)
        goto out;
    served += rc;
    if (kumi_msg.queued > 0) {
        if ((rc = flush_queues(call)) < 0)
            goto out;
        served += rc;
    }
    if (kumi_msg.streams != NULL) {
        if ((rc = stream(call)) < 0)
            goto out;
        served += rc;
    }
    if ((rc = return_credit(call)) < 0)
        goto out;
    rc = served + rc;
out:
    kumi_msg.busy = 0;
    return rc;
}

/* ------------------------------------------------------- the layer */

static int msg_poll(void)
{
    int rc = kumi_msg_progress("kumi (message progress)", 0);
    return rc > 0 ? rc : 0;
}

static struct kumi_rt_layer msg_layer;

static int msg_init(void)
{
    kumi_msg.me     = kumi_rt.rank;
    kumi_msg.npes   = kumi_rt.size;
    kumi_msg.pid    = (int32_t)getpid();
    kumi_msg.eager  = (size_t)kumi_rt.cfg.msg_eager;
    kumi_msg.credit = kumi_rt.cfg.msg_credit;
    kumi_msg.cma    = kumi_rt.cfg.msg_cma;
    if (kumi_msg.eager > KUMI_TP_AM_MAX_PAYLOAD - KUMI_MSG_EAGER_HDR)
        kumi_msg.eager = KUMI_TP_AM_MAX_PAYLOAD - KUMI_MSG_EAGER_HDR;
    /* a drained receiver owes less than a quarter: the rest must hold the
     * largest eager message (8 KiB minimum credit guarantees it) */
    kumi_msg.peer = calloc((size_t)kumi_msg.npes, sizeof(*kumi_msg.peer));
    if (kumi_msg.peer == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "msg: out of memory");
    for (int pe = 0; pe < kumi_msg.npes; pe++)
        kumi_msg.peer[pe].avail = (int64_t)kumi_msg.credit;
    msg_owner = 1;
    kumi_tp_am_register(&kumi_rt.tp, KUMI_RT_AM_MSG, msg_am, NULL);
    kumi_tp_am_register_long(&kumi_rt.tp, KUMI_RT_AM_MSG, data_place, data_done, NULL);
    __atomic_store_n(&kumi_msg.up, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&msg_layer.poll, msg_poll, __ATOMIC_RELAXED);
    return KUMI_OK;
}

static void msg_fini(void)
{
    __atomic_store_n(&msg_layer.poll, NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&kumi_msg.up, 0, __ATOMIC_RELEASE);
    struct kumi_msg_node *n = kumi_msg_inbox_take();
    while (n != NULL) {
        struct kumi_msg_node *next = n->next;
        free(n);
        n = next;
    }
    for (n = kumi_msg.unexp_head; n != NULL;) {
        struct kumi_msg_node *next = n->next;
        free(n);
        n = next;
    }
    for (int pe = 0; pe < kumi_msg.npes; pe++)
        for (struct kumi_request *r = kumi_msg.peer[pe].q_head; r != NULL;) {
            struct kumi_request *next = r->next;
            if (r->clone) {
                free(r->spill);
                free(r);
            }
            r = next;
        }
    while (kumi_msg.free_reqs != NULL) {
        struct kumi_request *next = kumi_msg.free_reqs->next;
        free(kumi_msg.free_reqs);
        kumi_msg.free_reqs = next;
    }
    free(kumi_msg.reqtab);
    free(kumi_msg.peer);
    free(kumi_msg.rdv);
    free(kumi_msg.rdv_gen);
    memset(&kumi_msg, 0, sizeof kumi_msg);
}

__attribute__((constructor)) static void msg_register(void)
{
    msg_layer.name = "msg";
    msg_layer.init = msg_init;
    msg_layer.fini = msg_fini;
    kumi_rt_layer_add(&msg_layer);
}
