/*
 * tcp_rx.c -- the tcp transport's receive side and progress: frames in
 * (through frame.c), replies, the epoll round, and the progress thread.
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

/* ------------------------------------------------------------- receive */

/* A get reply: straight from my memory when nothing is queued before it,
 * the rest copied behind. */
static int kumi_tcp_reply_get(struct kumi_tcp *s, struct kumi_tcp_conn *c, unsigned tag,
                              const uint8_t *src, uint32_t len)
{
    struct kumi_tcp_hdr h = { .type = KUMI_TCP_GET_REP, .len = len, .tag = tag };
    size_t              done = 0;
    int                 rc = kumi_tcp_tx_hdr(s, c, &h);

    if (rc != KUMI_OK)
        return rc;
    if (len >= KUMI_TCP_COPY_MAX && !c->busy && c->state == KUMI_TCP_UP) {
        struct iovec iov[2] = { { c->sbuf + c->spos, c->slen - c->spos }, { (void *)src, len } };
        ssize_t      n;
        s->tx_writes++;
        n = writev(c->fd, iov, 2);
        if (n > 0) {
            size_t m = (size_t)n, q = c->slen - c->spos < m ? c->slen - c->spos : m;
            c->spos += q;
            done = m - q;
        }
    }
    return kumi_tcp_tx_append(c, src + done, len - done);
}

int kumi_tcp_on_frame(struct kumi_frame_rx *rx, const struct kumi_tcp_hdr *h,
                      const void *payload, void *arg)
{
    struct kumi_tcp_conn *c = arg;
    /* rx->lim is &s->lim: the engine owning this connection */
    struct kumi_tcp      *s = (struct kumi_tcp *)((const uint8_t *)rx->lim
                                                   - offsetof(struct kumi_tcp, lim));
    struct kumi_tp       *tp = s->tp;
    if (h->credit > (uint32_t)(KUMI_TCP_WINDOW - c->tx_credit)) {
        snprintf(rx->err, sizeof(rx->err), "%u credits returned, only %d frames outstanding",
                 h->credit, KUMI_TCP_WINDOW - c->tx_credit);
        return KUMI_ERR_INVALID;
    }
    c->tx_credit += (int32_t)h->credit;
    c->rx_bulk = h->len >= KUMI_TCP_STAGE;
    if (kumi_frame_counted(h->type))
        c->rx_unreported++;
    s->handled++;
    if (h->type == KUMI_TCP_KICK || h->type == KUMI_TCP_PUT || h->type == KUMI_TCP_AMO_REQ
        || h->type == KUMI_TCP_AM || h->type == KUMI_TCP_AM_LONG)
        s->stored++;
    switch (h->type) {
    case KUMI_TCP_GET_REQ:
    {
        int rc = kumi_tcp_reply_get(s, c, h->tag, (uint8_t *)tp->local[h->seg] + h->off,
                                    (uint32_t)h->val);
        if (rc != KUMI_OK)
            snprintf(rx->err, sizeof(rx->err), "out of memory for a reply");
        return rc;
    }
    case KUMI_TCP_AMO_REQ: {
        uint64_t old = kumi_tp_amo_apply((uint8_t *)tp->local[h->seg] + h->off, h->op, h->width,
                                          h->val, h->cmp);
        if (kumi_tp_amo_fetches(h->op)) {
            struct kumi_tcp_hdr r = { .type = KUMI_TCP_AMO_REP, .val = old, .tag = h->tag };
            int rc = kumi_tcp_tx_hdr(s, c, &r);
            if (rc != KUMI_OK)
                return rc;
        }
        return KUMI_OK;
    }
    case KUMI_TCP_AM: {
        kumi_tp_am_fn fn = __atomic_load_n(&tp->am[h->seg].fn, __ATOMIC_ACQUIRE);
        if (fn == NULL) {
            kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "active message for unregistered handler %u "
                        "from PE %d dropped", h->seg, c->pe);
            return KUMI_OK;
        }
        s->in_rx++;
        fn(tp, c->pe, payload, h->len, __atomic_load_n(&tp->am[h->seg].arg, __ATOMIC_RELAXED));
        s->in_rx--;
        return KUMI_OK;
    }
    case KUMI_TCP_AM_LONG: {
        /* place() was there (kumi_tcp_on_place), and done is set with it */
        kumi_tp_am_long_fn fn = __atomic_load_n(&tp->am[h->seg].done, __ATOMIC_RELAXED);
        s->in_rx++;
        fn(tp, c->pe, payload, (size_t)h->val, rx->dst, h->len - (size_t)h->val,
           __atomic_load_n(&tp->am[h->seg].long_arg, __ATOMIC_RELAXED));
        s->in_rx--;
        return KUMI_OK;
    }
    case KUMI_TCP_GET_REP:
    case KUMI_TCP_AMO_REP:
        if (c->req[h->tag].discard)
            kumi_tcp_tag_put(c, h->tag);
        return KUMI_OK;
    case KUMI_TCP_FIN:
        c->fin_rx = 1;
        return KUMI_OK;
    default:
        return KUMI_OK;
    }
}

/* A long AM's header has arrived: its handler says where the payload goes
 * (NULL, or no long handler: the frame is malformed). */
void *kumi_tcp_on_place(struct kumi_frame_rx *rx, const struct kumi_tcp_hdr *h,
                        const void *hdr, void *arg)
{
    struct kumi_tcp_conn *c = arg;
    struct kumi_tcp      *s = (struct kumi_tcp *)((const uint8_t *)rx->lim
                                                   - offsetof(struct kumi_tcp, lim));
    struct kumi_tp       *tp = s->tp;
    kumi_tp_am_place_fn   fn = __atomic_load_n(&tp->am[h->seg].place, __ATOMIC_ACQUIRE);
    size_t                len = h->len - (size_t)h->val;
    void                 *dst;

    if (fn == NULL) {
        snprintf(rx->err, sizeof(rx->err), "long active message for handler %u, which has "
                 "no long handler", h->seg);
        return NULL;
    }
    s->in_rx++;
    dst = fn(tp, c->pe, hdr, (size_t)h->val, len,
             __atomic_load_n(&tp->am[h->seg].long_arg, __ATOMIC_RELAXED));
    s->in_rx--;
    if (dst == NULL)
        snprintf(rx->err, sizeof(rx->err), "long active message of %zu bytes refused by "
                 "handler %u", len, h->seg);
    return dst;
}

/* Reads what c has, decoding as it goes; bounded so one busy peer cannot
 * starve the others. */
static void kumi_tcp_conn_read(struct kumi_tcp *s, struct kumi_tcp_conn *c)
{
    for (int round = 0; round < 16 && c->fd >= 0; round++) {
        void   *dst;
        size_t  want = kumi_frame_rx_want(&c->rx, &dst);
        ssize_t n;
        int     direct = want >= 4096;
        /* a stream of large frames (rendezvous data, large puts): read the
         * next header alone (with the last bytes of a large payload, when
         * fewer than 4 KiB of it were missing), or the staging read would
         * take up to 64 KiB of the next payload and copy it once more.
         * Small frames read all that is there (one recv for many frames,
         * and for a header and its small payload). */
        size_t  ask = KUMI_TCP_STAGE;

        if (c->rx.in_payload ? c->rx.hdr.len >= KUMI_TCP_STAGE : c->rx_bulk)
            ask = want + KUMI_TCP_HDR_READ;

        s->rx_recvs++;
        if (direct) {
            n = recv(c->fd, dst, want, 0);
        } else {
            n = recv(c->fd, s->stage, ask, 0);
            if (n > 0)
                c->rx_staged += (uint64_t)n;
        }
        if (n == 0) {
            if (c->fin_rx && kumi_frame_rx_idle(&c->rx))
                kumi_tcp_conn_close(s, c);
            else
                kumi_tcp_conn_lost(s, c, "connection closed without FIN (the PE died?)");
            return;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                kumi_tcp_conn_lost(s, c, "recv: %s", strerror(errno));
            } else {
                s->rx_empty++;
                s->rx_trailing++;
            }
            return;
        }
        s->rx_trailing = 0;
        if (direct)
            kumi_frame_rx_got(&c->rx, (size_t)n);
        else
            kumi_frame_rx_feed(&c->rx, s->stage, (size_t)n);
        if (c->rx.failed) {
            kumi_tcp_conn_lost(s, c, "%s", c->rx.err);
            return;
        }
        if ((size_t)n < (direct ? want : ask))
            break;                       /* drained for now */
    }
    if (c->rx_unreported >= KUMI_TCP_WINDOW / 2 && c->fd >= 0) {
        struct kumi_tcp_hdr h = { .type = KUMI_TCP_CREDIT };
        kumi_tcp_tx_hdr(s, c, &h);
    }
}

/* Active messages to myself, in order, outside any caller's frame. */
static void kumi_tcp_selfq_run(struct kumi_tcp *s)
{
    struct kumi_tp *tp = s->tp;
    size_t          pos = 0;

    if (s->selfq_len == 0 || s->in_rx)
        return;
    s->in_rx++;
    while (pos < s->selfq_len) {
        uint32_t len;
        uint16_t id;
        memcpy(&len, s->selfq + pos, 4);
        memcpy(&id, s->selfq + pos + 4, 2);
        uint8_t buf[KUMI_TP_AM_MAX_PAYLOAD];
        memcpy(buf, s->selfq + pos + 8, len);
        pos += 8 + len;
        kumi_tp_am_fn fn = __atomic_load_n(&tp->am[id].fn, __ATOMIC_ACQUIRE);
        if (fn != NULL)
            fn(tp, s->rank, buf, len, __atomic_load_n(&tp->am[id].arg, __ATOMIC_RELAXED));
        s->handled++;
        s->stored++;
    }
    /* handlers may have queued more to myself: keep those */
    memmove(s->selfq, s->selfq + pos, s->selfq_len - pos);
    s->selfq_len -= pos;
    s->in_rx--;
}

static void kumi_tcp_event(struct kumi_tcp *s, const struct epoll_event *ev)
{
    unsigned kind = (unsigned)(ev->data.u64 >> 32), idx = (uint32_t)ev->data.u64;

    switch (kind) {
    case KUMI_TCP_EV_CONN: {
        struct kumi_tcp_conn *c = &s->conn[idx];
        if (c->fd < 0)
            return;
        if (c->state == KUMI_TCP_CONNECTING) {
            if (ev->events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
                kumi_tcp_connecting_ready(s, c);
            return;
        }
        if (ev->events & (EPOLLIN | EPOLLERR | EPOLLHUP))
            kumi_tcp_conn_read(s, c);
        if ((ev->events & EPOLLOUT) && c->fd >= 0)
            kumi_tcp_flush(s, c);
        return;
    }
    case KUMI_TCP_EV_LISTEN:
        kumi_tcp_accept(s);
        return;
    case KUMI_TCP_EV_PEND:
        if (idx < KUMI_TCP_PENDING && s->pend[idx].fd >= 0)
            kumi_tcp_pend_read(s, (int)idx);
        return;
    default:
        return;
    }
}

/* The end of a round of the engine: write what the frames handled
 * queued, wake sleeping waiters if a frame may have changed what they
 * wait for (a store to my memory or a handler: not a reply, which only
 * its requester waits for, awake, nor credit; with threads a needless
 * wake-up costs the waiter's thread a trip through the scheduler).
 * Returns the frames applied since before. */
static int kumi_tcp_progress_end(struct kumi_tcp *s, int before, unsigned stored_before)
{
    int n;

    if (s->ndirty)
        kumi_tcp_flush_dirty(s);
    n = s->handled - before;
    if (s->stored != stored_before && __atomic_load_n(&s->tp->doorbells, __ATOMIC_RELAXED))
        kumi_tp_doorbell_ring(s->tp->doorbell);
    return n;
}

/* One round of the engine (lock held): write what is queued, read what
 * arrived. Returns the frames applied. */
int kumi_tcp_progress_locked(struct kumi_tcp *s, int timeout_ms)
{
    struct epoll_event ev[32];
    int                n, before = s->handled;
    unsigned           stored = s->stored;

    if (s->in_rx)      /* never re-enter the decoder from a handler */
        return 0;
    s->rounds++;
    if (s->ndirty)
        kumi_tcp_flush_dirty(s);
    kumi_tcp_selfq_run(s);
    if (s->epfd < 0)
        return s->handled - before;
    s->rx_epolls++;
    n = epoll_wait(s->epfd, ev, 32, s->handled != before ? 0 : timeout_ms);
    for (int i = 0; i < n; i++)
        kumi_tcp_event(s, &ev[i]);
    return kumi_tcp_progress_end(s, before, stored);
}

/* The main thread's poll in a small job: a non-blocking recv on each
 * peer's socket instead of epoll_wait and then recv, one system call less
 * between a frame's arrival and its delivery (the latency path of a spin
 * wait). Spinning on poll() and reading only what it reports was measured
 * against this (2026-11-27, 2 PEs over lo, the two taking turns block by
 * block in one run): no faster, 0.2 us a message slower, since the arrival
 * then costs two calls (README.md, "Receiving"). Every 64th poll still
 * goes through epoll for what only it sees: connections being accepted or
 * checked, sockets waiting for room. */
int kumi_tcp_progress_direct(struct kumi_tcp *s)
{
    int      before = s->handled;
    unsigned stored = s->stored;

    if (s->in_rx)
        return 0;
    s->rounds++;
    if (s->ndirty)
        kumi_tcp_flush_dirty(s);
    kumi_tcp_selfq_run(s);
    for (int pe = 0; pe < s->size; pe++) {
        struct kumi_tcp_conn *c = &s->conn[pe];
        if (pe != s->rank && c->fd >= 0 && c->state == KUMI_TCP_UP)
            kumi_tcp_conn_read(s, c);
    }
    return kumi_tcp_progress_end(s, before, stored);
}

/* ------------------------------------------------------ progress thread */

void kumi_tcp_futex_wake(uint32_t *w)
{
    __atomic_add_fetch(w, 1, __ATOMIC_SEQ_CST);
    kumi_tp_futex_wake(w, 0);
}

/* The bootstrap's tick (kumi_tcp_boot_tick), once it is due, by whichever
 * thread gets here first: the progress thread on every round, and with
 * threads every caller's progress() and reply wait too, so a progress
 * thread held up (descheduled while it serves the engine on a loaded
 * machine: 1.4 s seen under TSan with 4 PEs of 8 threads on 2 cores) does
 * not silence the PE's heartbeats while its other threads run. boot_busy
 * serializes them; kumi_tcp_stop_thread takes it for good. 1 if it ticked. */
int kumi_tcp_boot_poll(struct kumi_tcp *s)
{
    double next, now = kumi_tp_now();

    __atomic_load(&s->boot_next, &next, __ATOMIC_RELAXED);
    if (now < next || __atomic_exchange_n(&s->boot_busy, 1, __ATOMIC_ACQUIRE))
        return 0;
    kumi_tcp_boot_tick(s, now);
    __atomic_store_n(&s->boot_busy, 0, __ATOMIC_RELEASE);
    return 1;
}

/* Parks while the main thread polls (it does the work, and on a machine
 * with as many PEs as cores a second poller steals a core); serves the
 * engine from epoll while main computes or sleeps, so one-sided
 * operations complete without the target's help. With threads a caller
 * asleep does not mean nobody polls: the thread parks whenever some
 * caller polled since it last looked, except for one round of service
 * each time a caller goes to sleep (naps), in case it was the last. */
void *kumi_tcp_thread(void *arg)
{
    struct kumi_tcp   *s = arg;
    uint32_t           seen = __atomic_load_n(&s->polls, __ATOMIC_RELAXED);
    uint32_t           naps = __atomic_load_n(&s->naps, __ATOMIC_RELAXED);
    struct epoll_event ev;

    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        uint32_t polls = __atomic_load_n(&s->polls, __ATOMIC_RELAXED);
        int      asleep = __atomic_load_n(&s->sleeping, __ATOMIC_ACQUIRE);

        /* first, so that no path through the loop skips the heartbeat */
        if (kumi_tcp_boot_poll(s) && kumi_tcp_trylock(s)) {
            kumi_tcp_pend_sweep(s, kumi_tp_now());
            kumi_tcp_unlock(s);
        }
        if (s->threads) {
            uint32_t n = __atomic_load_n(&s->naps, __ATOMIC_ACQUIRE);
            asleep = n != naps;
            naps   = n;
        }
        if (polls != seen && !asleep) {
            seen = polls;
            kumi_tp_futex_wait(&s->park, __atomic_load_n(&s->park, __ATOMIC_ACQUIRE), 1000000L,
                               0);
        } else {
            seen = s->threads ? polls : seen;
            /* 1 ms at most: coalesced frames left unflushed go out soon */
            int n = epoll_wait(s->epfd, &ev, 1, 1);
            if (__atomic_load_n(&s->polls, __ATOMIC_RELAXED) != seen
                && (s->threads || !__atomic_load_n(&s->sleeping, __ATOMIC_ACQUIRE)))
                continue;                    /* a caller took over */
            if (n > 0 || __atomic_load_n(&s->unflushed, __ATOMIC_RELAXED)) {
                if (kumi_tcp_trylock(s)) {
                    kumi_tcp_progress_locked(s, 0);
                    kumi_tcp_unlock(s);
                } else {
                    kumi_tp_futex_wait(&s->park, __atomic_load_n(&s->park, __ATOMIC_ACQUIRE),
                                       50000L, 0);
                }
            }
        }
    }
    return NULL;
}

