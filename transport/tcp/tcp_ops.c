/*
 * tcp_ops.c -- the tcp transport's operations (kick, put, get, atomics,
 * active messages, fence, quiet, progress) and its ops table.
 */

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tcp.h"
#include "tcp_int.h"

/* ---------------------------------------------------------- operations */

static int kumi_tcp_peer(struct kumi_tcp *s, int pe, struct kumi_tcp_conn **out)
{
    struct kumi_tcp_conn *c = &s->conn[pe];

    if (c->fd < 0 || kumi_tcp_is_failed(s)) {
        kumi_tcp_unlock(s);
        return KUMI_ERR_PEER;
    }
    *out = c;
    return KUMI_OK;
}

static int kumi_tcp_kick(struct kumi_tp *tp, int pe, size_t off, uint64_t val, size_t len)
{
    struct kumi_tcp     *s = kumi_tcp_of(tp);
    struct kumi_tcp_conn *c;
    struct kumi_tcp_hdr  h = { .type = KUMI_TCP_KICK, .seg = KUMI_SEG_LLCM, .width = (uint8_t)len,
                               .off = off, .val = len < 8 ? val & ((1ull << (8 * len)) - 1) : val };
    int                  rc;

    if (pe == s->rank) {
        kumi_frame_store((uint8_t *)tp->local[KUMI_SEG_LLCM] + off, (unsigned)len, h.val);
        kumi_tcp_ring_self(tp);
        return KUMI_OK;
    }
    kumi_tcp_lock(s);
    if ((rc = kumi_tcp_peer(s, pe, &c)) != KUMI_OK)
        return rc;
    rc = kumi_tcp_credit(s, c);
    if (rc == KUMI_OK)
        rc = kumi_tcp_tx_hdr(s, c, &h);
    if (rc == KUMI_OK && !s->in_rx)
        rc = kumi_tcp_flush(s, c);    /* kicks are the latency path */
    kumi_tcp_unlock(s);
    return rc;
}

int kumi_tcp_put(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                 const void *src, size_t n)
{
    struct kumi_tcp      *s = kumi_tcp_of(tp);
    struct kumi_tcp_conn *c;
    const uint8_t        *p = src;
    int                   rc = KUMI_OK;

    if (pe == s->rank) {
        memcpy((uint8_t *)tp->local[seg] + off, src, n);
        kumi_tcp_ring_self(tp);
        return KUMI_OK;
    }
    kumi_tcp_lock(s);
    if ((rc = kumi_tcp_peer(s, pe, &c)) != KUMI_OK)
        return rc;
    while (n > 0 && rc == KUMI_OK) {
        size_t              k = n < KUMI_TCP_MAX_PAYLOAD ? n : KUMI_TCP_MAX_PAYLOAD;
        struct kumi_tcp_hdr h = { .type = KUMI_TCP_PUT, .seg = (uint8_t)seg, .len = (uint32_t)k,
                                  .off = off };
        rc = kumi_tcp_credit(s, c);
        if (rc != KUMI_OK)
            break;
        if (k <= KUMI_TCP_COPY_MAX || s->in_rx) {
            rc = kumi_tcp_tx_hdr(s, c, &h);
            if (rc == KUMI_OK && kumi_tcp_tx_append(c, p, k) != KUMI_OK)
                rc = KUMI_ERR_NOMEM;
            if (rc == KUMI_OK && c->slen - c->spos >= KUMI_TCP_FLUSH_AT && !s->in_rx)
                rc = kumi_tcp_flush(s, c);
        } else {
            rc = kumi_tcp_tx_direct(s, c, &h, NULL, 0, p, k);
        }
        p += k;
        off += k;
        n -= k;
    }
    kumi_tcp_unlock(s);
    return rc;
}

static int kumi_tcp_get(struct kumi_tp *tp, void *dst, int pe, enum kumi_seg seg, size_t off,
                        size_t n)
{
    struct kumi_tcp      *s = kumi_tcp_of(tp);
    struct kumi_tcp_conn *c;
    uint16_t              tags[KUMI_FRAME_TAGS];
    unsigned              first = 0, next = 0;   /* outstanding: tags[first..next) */
    size_t                sent = 0;
    int                   rc = KUMI_OK;

    if (pe == s->rank) {
        memcpy(dst, (uint8_t *)tp->local[seg] + off, n);
        return KUMI_OK;
    }
    kumi_tcp_lock(s);
    if ((rc = kumi_tcp_peer(s, pe, &c)) != KUMI_OK)
        return rc;
    if (s->in_rx) {
        kumi_tcp_unlock(s);
        return KUMI_ERR_UNSUPPORTED;    /* a handler must not block */
    }
    /* pipelined: up to half the tags in flight, each a frame's worth */
    while (rc == KUMI_OK && (sent < n || first < next)) {
        if (sent < n && next - first < KUMI_FRAME_TAGS / 2
            && (rc = kumi_tcp_credit(s, c)) == KUMI_OK
            /* a get holding tags waits for its own replies rather than
             * for a free tag (threads: the others' gets may hold the rest,
             * and the credit wait may have let them take it) */
            && (c->nfree > 0 || first == next)) {
            size_t   k = n - sent < KUMI_TCP_MAX_PAYLOAD ? n - sent : KUMI_TCP_MAX_PAYLOAD;
            unsigned tag;
            rc = kumi_tcp_tag_get(s, c, &tag);
            if (rc != KUMI_OK)
                break;
            c->req[tag] = (struct kumi_frame_req){ .kind = KUMI_REQ_GET, .len = (uint32_t)k,
                                                   .dst = (uint8_t *)dst + sent };
            struct kumi_tcp_hdr h = { .type = KUMI_TCP_GET_REQ, .seg = (uint8_t)seg,
                                      .off = off + sent, .val = k, .tag = tag };
            rc = kumi_tcp_tx_hdr(s, c, &h);
            tags[next++ % KUMI_FRAME_TAGS] = (uint16_t)tag;
            sent += k;
            continue;
        }
        if (rc != KUMI_OK)
            break;
        rc = kumi_tcp_flush(s, c);
        if (rc == KUMI_OK)
            rc = kumi_tcp_wait_req(s, c, tags[first % KUMI_FRAME_TAGS]);
        if (rc == KUMI_OK)
            kumi_tcp_tag_put(c, tags[first++ % KUMI_FRAME_TAGS]);
    }
    kumi_tcp_unlock(s);
    return rc;
}

static int kumi_tcp_atomic(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
                           enum kumi_amo op, size_t width, uint64_t operand, uint64_t compare,
                           uint64_t *old)
{
    struct kumi_tcp      *s = kumi_tcp_of(tp);
    struct kumi_tcp_conn *c;
    uint64_t              mask = width == 8 ? ~0ull : 0xffffffffull;
    unsigned              tag = 0;
    int                   rc;

    if (!kumi_tp_amo_fetches(op))
        old = NULL;            /* nothing to wait for */
    if (pe == s->rank) {
        uint64_t o = kumi_tp_amo_apply((uint8_t *)tp->local[seg] + off, op, width, operand,
                                        compare);
        if (old != NULL)
            *old = o;
        kumi_tcp_ring_self(tp);
        return KUMI_OK;
    }
    kumi_tcp_lock(s);
    if ((rc = kumi_tcp_peer(s, pe, &c)) != KUMI_OK)
        return rc;
    if (old != NULL && s->in_rx) {
        kumi_tcp_unlock(s);
        return KUMI_ERR_UNSUPPORTED;
    }
    rc = kumi_tcp_credit(s, c);
    if (rc == KUMI_OK && kumi_tp_amo_fetches(op)) {
        rc = kumi_tcp_tag_get(s, c, &tag);
        if (rc == KUMI_OK)   /* nobody waits for a non-fetching swap's reply */
            c->req[tag] = (struct kumi_frame_req){ .kind = KUMI_REQ_AMO, .discard = old == NULL };
    }
    if (rc == KUMI_OK) {
        struct kumi_tcp_hdr h = { .type = KUMI_TCP_AMO_REQ, .seg = (uint8_t)seg,
                                  .width = (uint8_t)width, .op = (uint8_t)op, .off = off,
                                  .val = operand & mask,
                                  .cmp = op == KUMI_AMO_CSWAP ? compare & mask : 0, .tag = tag };
        rc = kumi_tcp_tx_hdr(s, c, &h);
    }
    if (rc == KUMI_OK && old != NULL) {
        rc = kumi_tcp_flush(s, c);
        if (rc == KUMI_OK)
            rc = kumi_tcp_wait_req(s, c, tag);
        if (rc == KUMI_OK) {
            *old = c->req[tag].val;
            kumi_tcp_tag_put(c, tag);
        }
    }
    kumi_tcp_unlock(s);
    return rc;
}

/* After queueing an active message to c: the first one since the engine's
 * last round is written at once (latency: a ping-pong's reply would
 * otherwise wait in the buffer until the caller's next progress call);
 * the ones after it coalesce until that round writes them, so a window
 * of sends costs two writes, not one each. A handler (in_rx) never
 * writes: its frames go out at the end of the round. */
static int kumi_tcp_am_flush(struct kumi_tcp *s, struct kumi_tcp_conn *c)
{
    if (s->in_rx)
        return KUMI_OK;
    if (c->sent_round != s->rounds) {
        c->sent_round = s->rounds;
        return kumi_tcp_flush(s, c);
    }
    if (c->slen - c->spos >= KUMI_TCP_FLUSH_AT)
        return kumi_tcp_flush(s, c);
    return KUMI_OK;
}

/* One AM frame of hdr (hlen bytes) then payload (plen). */
static int kumi_tcp_am_sendv(struct kumi_tp *tp, int pe, unsigned handler, const void *hdr,
                             size_t hlen, const void *payload, size_t plen)
{
    struct kumi_tcp      *s = kumi_tcp_of(tp);
    struct kumi_tcp_conn *c;
    size_t                len = hlen + plen;
    int                   rc;

    if (handler >= KUMI_TP_AM_MAX_HANDLERS || len > KUMI_TP_AM_MAX_PAYLOAD)
        return KUMI_ERR_INVALID;
    kumi_tcp_lock(s);
    if (pe == s->rank) {
        uint32_t l = (uint32_t)len;
        uint16_t id[2] = { (uint16_t)handler, 0 };
        size_t   need = s->selfq_len + 8 + len;
        if (need > s->selfq_cap) {
            size_t   cap = need * 2;
            uint8_t *q = realloc(s->selfq, cap);
            if (q == NULL) {
                kumi_tcp_unlock(s);
                return KUMI_ERR_NOMEM;
            }
            s->selfq = q;
            s->selfq_cap = cap;
        }
        memcpy(s->selfq + s->selfq_len, &l, 4);
        memcpy(s->selfq + s->selfq_len + 4, id, 4);
        if (hlen != 0)
            memcpy(s->selfq + s->selfq_len + 8, hdr, hlen);
        if (plen != 0)
            memcpy(s->selfq + s->selfq_len + 8 + hlen, payload, plen);
        s->selfq_len = need;
        kumi_tcp_unlock(s);
        return KUMI_OK;
    }
    if ((rc = kumi_tcp_peer(s, pe, &c)) != KUMI_OK)
        return rc;
    rc = kumi_tcp_credit(s, c);
    if (rc == KUMI_OK) {
        struct kumi_tcp_hdr h = { .type = KUMI_TCP_AM, .seg = (uint8_t)handler, .len = (uint32_t)len };
        rc = kumi_tcp_tx_hdr(s, c, &h);
        if (rc == KUMI_OK && ((hlen != 0 && kumi_tcp_tx_append(c, hdr, hlen) != KUMI_OK)
                              || (plen != 0 && kumi_tcp_tx_append(c, payload, plen) != KUMI_OK)))
            rc = KUMI_ERR_NOMEM;
        if (rc == KUMI_OK)
            rc = kumi_tcp_am_flush(s, c);
    }
    kumi_tcp_unlock(s);
    return rc;
}

/* A long AM: one frame, [frame header, hdr, payload]; a payload above
 * KUMI_TCP_COPY_MAX goes out straight from the caller's buffer (as a large
 * put), and the receiver places it (kumi_tcp_on_place) and receives it
 * straight there. */
static int kumi_tcp_am_send_long(struct kumi_tp *tp, int pe, unsigned handler, const void *hdr,
                                 size_t hlen, const void *payload, size_t len)
{
    struct kumi_tcp      *s = kumi_tcp_of(tp);
    struct kumi_tcp_conn *c;
    int                   rc;

    if (handler >= KUMI_TP_AM_MAX_HANDLERS || hlen > KUMI_TP_AM_LONG_HDR
        || len > KUMI_TP_AM_LONG_MAX || pe == s->rank)
        return KUMI_ERR_INVALID;
    kumi_tcp_lock(s);
    if ((rc = kumi_tcp_peer(s, pe, &c)) != KUMI_OK)
        return rc;
    rc = kumi_tcp_credit(s, c);
    if (rc == KUMI_OK) {
        struct kumi_tcp_hdr h = { .type = KUMI_TCP_AM_LONG, .seg = (uint8_t)handler,
                                  .len = (uint32_t)(hlen + len), .val = hlen };
        if (len <= KUMI_TCP_COPY_MAX || s->in_rx) {
            rc = kumi_tcp_tx_hdr(s, c, &h);
            if (rc == KUMI_OK && ((hlen != 0 && kumi_tcp_tx_append(c, hdr, hlen) != KUMI_OK)
                                  || (len != 0 && kumi_tcp_tx_append(c, payload, len) != KUMI_OK)))
                rc = KUMI_ERR_NOMEM;
            if (rc == KUMI_OK)
                rc = kumi_tcp_am_flush(s, c);
        } else {
            rc = kumi_tcp_tx_direct(s, c, &h, hdr, hlen, payload, len);
        }
    }
    kumi_tcp_unlock(s);
    return rc;
}

static int kumi_tcp_am_send(struct kumi_tp *tp, int pe, unsigned handler, const void *payload,
                            size_t len)
{
    return kumi_tcp_am_sendv(tp, pe, handler, NULL, 0, payload, len);
}

int kumi_tcp_fence(struct kumi_tp *tp)
{
    struct kumi_tcp *s = kumi_tcp_of(tp);

    /* TCP keeps order per pair; only push out what is queued */
    kumi_tcp_lock(s);
    kumi_tcp_flush_dirty(s);
    kumi_tcp_unlock(s);
    return kumi_tcp_is_failed(s) ? KUMI_ERR_PEER : KUMI_OK;
}

/* Every earlier frame to every peer is applied once an empty get to each
 * peer written to comes back: frames are applied in order. */
static int kumi_tcp_quiet_threads(struct kumi_tcp *s);

/* A quiet's probe is over: its tag is free again, unless the wait gave up
 * (the job is ending) with the probe still out on a live connection: then
 * its reply frees it (discard), since a reply to a free tag would read as
 * a bad frame. Under the engine lock. */
static void kumi_tcp_probe_done(struct kumi_tcp_conn *c, unsigned tag)
{
    if (c->fd >= 0 && !__atomic_load_n(&c->req[tag].done, __ATOMIC_ACQUIRE))
        c->req[tag].discard = 1;
    else
        kumi_tcp_tag_put(c, tag);
}

static int kumi_tcp_quiet(struct kumi_tp *tp)
{
    struct kumi_tcp *s = kumi_tcp_of(tp);
    int              rc = KUMI_OK;

    if (s->size == 1)
        return KUMI_OK;
    if (s->threads)
        return kumi_tcp_quiet_threads(s);
    kumi_tcp_lock(s);
    if (s->in_rx) {
        kumi_tcp_unlock(s);
        return KUMI_ERR_UNSUPPORTED;
    }
    for (int pe = 0; pe < s->size && rc == KUMI_OK; pe++) {
        struct kumi_tcp_conn *c = &s->conn[pe];
        unsigned              tag;
        if (!c->wrote)
            continue;
        if (c->fd < 0) {
            rc = KUMI_ERR_PEER;
            break;
        }
        rc = kumi_tcp_tag_get(s, c, &tag);
        if (rc != KUMI_OK)
            break;
        c->req[tag] = (struct kumi_frame_req){ .kind = KUMI_REQ_GET, .len = 0 };
        struct kumi_tcp_hdr h = { .type = KUMI_TCP_GET_REQ, .tag = tag };
        /* the probe itself needs no credit check: one per peer per quiet */
        rc = kumi_tcp_tx_hdr(s, c, &h);
        c->wrote = -1 - (int)tag;   /* remember the probe's tag */
    }
    kumi_tcp_flush_dirty(s);
    for (int pe = 0; pe < s->size; pe++) {
        struct kumi_tcp_conn *c = &s->conn[pe];
        if (c->wrote >= 0)
            continue;
        unsigned tag = (unsigned)(-1 - c->wrote);
        c->wrote = 0;
        if (rc == KUMI_OK)
            rc = kumi_tcp_wait_req(s, c, tag);
        kumi_tcp_probe_done(c, tag);
    }
    kumi_tcp_unlock(s);
    if (rc == KUMI_OK && kumi_tcp_is_failed(s))
        rc = KUMI_ERR_PEER;
    return rc;
}

/* The same with threads: each caller keeps its probes' tags itself and
 * waits for them without the lock (kumi_tcp_await). A connection needs a
 * probe while some frame queued on it (wseq) is not yet covered by a
 * returned probe (wdone): a probe proves applied every frame queued before
 * it, whichever thread queued them, so a quiet never returns before the
 * frames its caller sent, and a connection nobody wrote to since costs
 * nothing. Concurrent quiets may each send a probe. */
static int kumi_tcp_quiet_threads(struct kumi_tcp *s)
{
    struct kumi_tcp_probe {
        int      pe;
        unsigned tag;
        uint64_t upto;      /* wseq right after the probe */
    } few[16], *probe = few;
    int n = 0, rc = KUMI_OK;

    if (s->size > (int)(sizeof(few) / sizeof(few[0]))) {
        probe = malloc(sizeof(*probe) * (size_t)s->size);
        if (probe == NULL)
            return KUMI_ERR_NOMEM;
    }
    kumi_tcp_lock(s);
    if (s->in_rx) {
        rc = KUMI_ERR_UNSUPPORTED;
        goto out;
    }
    for (int pe = 0; pe < s->size && rc == KUMI_OK; pe++) {
        struct kumi_tcp_conn *c = &s->conn[pe];
        unsigned              tag;
        if (c->wseq == c->wdone)
            continue;
        if (c->fd < 0) {
            rc = KUMI_ERR_PEER;
            break;
        }
        rc = kumi_tcp_tag_get(s, c, &tag);    /* may let the lock go */
        if (rc != KUMI_OK)
            break;
        c->req[tag] = (struct kumi_frame_req){ .kind = KUMI_REQ_GET, .len = 0 };
        struct kumi_tcp_hdr h = { .type = KUMI_TCP_GET_REQ, .tag = tag };
        rc = kumi_tcp_tx_hdr(s, c, &h);
        if (rc != KUMI_OK) {
            kumi_tcp_tag_put(c, tag);
            break;
        }
        probe[n++] = (struct kumi_tcp_probe){ pe, tag, c->wseq };
    }
    kumi_tcp_flush_dirty(s);
    for (int i = 0; i < n; i++) {
        struct kumi_tcp_conn *c = &s->conn[probe[i].pe];
        if (rc == KUMI_OK)
            rc = kumi_tcp_wait_req(s, c, probe[i].tag);
        if (rc == KUMI_OK && c->wdone < probe[i].upto)
            c->wdone = probe[i].upto;
        kumi_tcp_probe_done(c, probe[i].tag);
    }
out:
    kumi_tcp_unlock(s);
    if (probe != few)
        free(probe);
    if (rc == KUMI_OK && kumi_tcp_is_failed(s))
        rc = KUMI_ERR_PEER;
    return rc;
}

static int kumi_tcp_progress(struct kumi_tp *tp)
{
    struct kumi_tcp *s = kumi_tcp_of(tp);
    int              n;

    kumi_tcp_polled(s);           /* the progress thread stays parked */
    if (s->threads)
        kumi_tcp_boot_poll(s);
    if (!kumi_tcp_trylock(s))
        return 0;                 /* the progress thread is at it */
    if (s->size <= KUMI_TCP_DIRECT_MAX && (++s->direct_polls & 63) != 0)
        n = kumi_tcp_progress_direct(s);
    else
        n = kumi_tcp_progress_locked(s, 0);
    kumi_tcp_unlock(s);
    return n;
}

static void kumi_tcp_idle(struct kumi_tp *tp, int sleeping)
{
    struct kumi_tcp *s = kumi_tcp_of(tp);

    /* a count: with threads several callers may sleep at once */
    if (sleeping) {
        __atomic_add_fetch(&s->sleeping, 1, __ATOMIC_RELEASE);
        if (s->threads)
            __atomic_add_fetch(&s->naps, 1, __ATOMIC_RELEASE);
    } else {
        __atomic_sub_fetch(&s->sleeping, 1, __ATOMIC_RELEASE);
    }
    if (sleeping && s->thread_on)
        kumi_tcp_futex_wake(&s->park);
}

static void kumi_tcp_settle(struct kumi_tp *tp)
{
    struct kumi_tcp *s = kumi_tcp_of(tp);

    if (s->threads)
        return;      /* other threads may have written during the barrier */
    kumi_tcp_lock(s);
    for (int pe = 0; pe < s->size; pe++)
        if (s->conn[pe].wrote > 0)
            s->conn[pe].wrote = 0;
    kumi_tcp_unlock(s);
}

static void *kumi_tcp_peer_ptr(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off)
{
    return pe == tp->rank ? (uint8_t *)tp->local[seg] + off : NULL;
}

const struct kumi_tp_ops kumi_tp_tcp_ops = {
    .size     = sizeof(struct kumi_tp_ops),
    .name     = "tcp",
    .open     = kumi_tcp_open,
    .connect  = kumi_tcp_connect,
    .close    = kumi_tcp_close,
    .kick     = kumi_tcp_kick,
    .put      = kumi_tcp_put,
    .get      = kumi_tcp_get,
    .atomic   = kumi_tcp_atomic,
    .am_send  = kumi_tcp_am_send,
    .am_sendv = kumi_tcp_am_sendv,
    .am_send_long = kumi_tcp_am_send_long,
    .fence    = kumi_tcp_fence,
    .quiet    = kumi_tcp_quiet,
    .progress = kumi_tcp_progress,
    .peer_ptr = kumi_tcp_peer_ptr,
    .idle     = kumi_tcp_idle,
    .settle   = kumi_tcp_settle,
    .exit_job = kumi_tcp_exit_job,
    .priority = 10,      /* any job, one host or many: the fallback */
};

