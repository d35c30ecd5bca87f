/*
 * tcp_tx.c -- the tcp transport's send side: the per-connection buffer
 * (coalescing small frames), direct writes of large puts, credits, and
 * the requests that wait for a reply (tags, kumi_tcp_await).
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

/* ---------------------------------------------------------- send side */

static int kumi_tcp_tx_reserve(struct kumi_tcp_conn *c, size_t n)
{
    if (c->spos == c->slen && !c->busy)
        c->spos = c->slen = 0;
    if (c->slen + n <= c->scap)
        return KUMI_OK;
    if (!c->busy && c->spos > 0) {   /* mid-frame direct writes pin positions */
        memmove(c->sbuf, c->sbuf + c->spos, c->slen - c->spos);
        c->slen -= c->spos;
        c->spos = 0;
        if (c->slen + n <= c->scap)
            return KUMI_OK;
    }
    size_t   cap = c->scap ? c->scap : KUMI_TCP_FLUSH_AT * 2;
    uint8_t *p;
    while (cap < c->slen + n)
        cap *= 2;
    p = realloc(c->sbuf, cap);
    if (p == NULL)
        return KUMI_ERR_NOMEM;
    c->sbuf = p;
    c->scap = cap;
    return KUMI_OK;
}

int kumi_tcp_tx_append(struct kumi_tcp_conn *c, const void *p, size_t n)
{
    if (kumi_tcp_tx_reserve(c, n) != KUMI_OK)
        return KUMI_ERR_NOMEM;
    if (n != 0)
        memcpy(c->sbuf + c->slen, p, n);
    c->slen += n;
    return KUMI_OK;
}

static void kumi_tcp_mark_dirty(struct kumi_tcp *s, struct kumi_tcp_conn *c)
{
    if (!c->dirty) {
        c->dirty = 1;
        s->dirty[s->ndirty++] = c->pe;
        __atomic_store_n(&s->unflushed, 1, __ATOMIC_RELAXED);
    }
}

/* Fills the common fields (credit piggybacked) and queues the header. */
int kumi_tcp_tx_hdr(struct kumi_tcp *s, struct kumi_tcp_conn *c, struct kumi_tcp_hdr *h)
{
    uint32_t credit = c->rx_unreported < KUMI_TCP_WINDOW ? c->rx_unreported : KUMI_TCP_WINDOW;

    h->version = KUMI_TCP_VERSION;
    h->credit  = credit;
    if (s->corrupt_next && h->type == KUMI_TCP_PUT) {
        s->corrupt_next = 0;
        h->off = s->lim.seg_size[KUMI_SEG_HEAP];       /* past the end */
    }
    if (kumi_tcp_tx_append(c, h, sizeof(*h)) != KUMI_OK)
        return KUMI_ERR_NOMEM;
    c->rx_unreported -= credit;
    if (kumi_frame_counted(h->type)) {
        c->tx_credit--;
        c->wrote = 1;
        c->wseq++;
    }
    kumi_tcp_mark_dirty(s, c);
    return KUMI_OK;
}

/* Writes what the buffer holds, without blocking. */
int kumi_tcp_flush(struct kumi_tcp *s, struct kumi_tcp_conn *c)
{
    if (c->busy || c->fd < 0 || c->state != KUMI_TCP_UP)
        return c->fd < 0 ? KUMI_ERR_PEER : KUMI_OK;
    while (c->spos < c->slen) {
        ssize_t n;
        s->tx_writes++;
        n = send(c->fd, c->sbuf + c->spos, c->slen - c->spos, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            c->spos += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            kumi_tcp_set_events(s, c, 1);   /* the engine finishes it */
            return KUMI_OK;
        } else {
            kumi_tcp_conn_lost(s, c, "send: %s", strerror(errno));
            return KUMI_ERR_PEER;
        }
    }
    c->spos = c->slen = 0;
    kumi_tcp_set_events(s, c, 0);
    return KUMI_OK;
}

void kumi_tcp_flush_dirty(struct kumi_tcp *s)
{
    int keep = 0;

    for (int i = 0; i < s->ndirty; i++) {
        struct kumi_tcp_conn *c = &s->conn[s->dirty[i]];
        kumi_tcp_flush(s, c);
        if (c->fd >= 0 && (c->busy || c->spos < c->slen || c->state != KUMI_TCP_UP))
            s->dirty[keep++] = c->pe;
        else
            c->dirty = 0;
    }
    s->ndirty = keep;
    if (keep == 0)
        __atomic_store_n(&s->unflushed, 0, __ATOMIC_RELAXED);
}

/* Waits (serving incoming traffic) until fd can take more bytes. */
static void kumi_tcp_wait_out(struct kumi_tcp *s, struct kumi_tcp_conn *c)
{
    struct pollfd pf[2] = { { .fd = c->fd, .events = POLLOUT }, { .fd = s->epfd, .events = POLLIN } };

    /* one syscall while only waiting for room; the engine runs only when
     * something arrived (credit, requests: serving them avoids deadlock) */
    if (poll(pf, 2, 1) > 0 && (pf[1].revents & POLLIN))
        kumi_tcp_progress_locked(s, 0);
}

/* A frame whose payload goes out from the caller's memory: the queued
 * bytes, the header (and prelen bytes of pre: a long AM's header) and the
 * payload in one writev, until all is written. */
int kumi_tcp_tx_direct(struct kumi_tcp *s, struct kumi_tcp_conn *c,
                       struct kumi_tcp_hdr *h, const void *pre, size_t prelen,
                       const void *data, size_t len)
{
    size_t lim, ddone = 0;
    int    rc = kumi_tcp_tx_hdr(s, c, h);

    if (rc == KUMI_OK && prelen != 0)
        rc = kumi_tcp_tx_append(c, pre, prelen);
    if (rc != KUMI_OK)
        return rc;
    /* the header now ends the queue: send it from there */
    lim     = c->slen;
    c->busy = 1;
    while (ddone < len) {
        struct iovec iov[2];
        int          k = 0;
        if (c->spos < lim)
            iov[k++] = (struct iovec){ c->sbuf + c->spos, lim - c->spos };
        iov[k++] = (struct iovec){ (uint8_t *)data + ddone, len - ddone };
        ssize_t n;
        s->tx_writes++;
        n = writev(c->fd, iov, k);
        if (n > 0) {
            size_t m = (size_t)n, q = lim - c->spos < m ? lim - c->spos : m;
            c->spos += q;
            ddone += m - q;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            kumi_tcp_wait_out(s, c);
        } else {
            c->busy = 0;
            kumi_tcp_conn_lost(s, c, "send: %s", strerror(errno));
            return KUMI_ERR_PEER;
        }
        if (c->fd < 0 || kumi_tcp_is_failed(s)) {
            c->busy = 0;
            return KUMI_ERR_PEER;
        }
    }
    c->busy = 0;
    return KUMI_OK;
}

static void kumi_tcp_pause(struct kumi_tcp *s, int sleep);

/* Room for one more counted frame to c; a sender without credit keeps
 * serving its own incoming traffic, so everyone-to-everyone cannot lock.
 * Handlers never wait: what they send is bounded by the AM contract. */
int kumi_tcp_credit(struct kumi_tcp *s, struct kumi_tcp_conn *c)
{
    if (c->fd < 0)
        return KUMI_ERR_PEER;
    while (c->tx_credit <= 0 && s->in_rx == 0) {
        kumi_tcp_flush(s, c);
        if (s->threads && s->depth == 1)
            kumi_tcp_pause(s, 1);   /* the PE's other threads send meanwhile */
        else
            kumi_tcp_progress_locked(s, 1);
        if (c->fd < 0 || kumi_tcp_is_failed(s))
            return KUMI_ERR_PEER;
    }
    return KUMI_OK;
}

/* ----------------------------------------------------------- requests */

/* threads: one round of the engine, then the lock is let go for a moment
 * (held at depth 1 on entry and on return): a yield, so the owners of
 * what the caller waits for (request tags) can take it and give them
 * back, or (sleep) up to 1 ms in poll() until something arrives (credit),
 * so the PE's other threads send meanwhile. */
static void kumi_tcp_pause(struct kumi_tcp *s, int sleep)
{
    kumi_tcp_progress_locked(s, 0);
    kumi_tcp_unlock(s);
    if (sleep) {
        struct pollfd pf = { .fd = s->epfd, .events = POLLIN };
        poll(&pf, 1, 1);
    } else {
        sched_yield();
    }
    kumi_tcp_lock(s);
}

/* threads: waits until *done is set without holding the engine lock (held
 * at depth 1 on entry and on return), so the PE's other threads send
 * meanwhile; the engine is served by try-lock, and whoever holds the lock
 * applies the reply. Busy-polls for KUMI_TCP_SPIN_POLLS rounds (from
 * spins), then sleeps in poll() on the epoll set, 1 ms at most (a reply
 * may be read by the thread holding the lock, which the poll does not
 * see); yields whenever another thread holds the lock (it is serving the
 * engine, perhaps on this core). */
int kumi_tcp_await(struct kumi_tcp *s, volatile uint8_t *done, unsigned spins)
{
    int rc = KUMI_OK;

    kumi_tcp_unlock(s);
    for (;;) {
        int served = kumi_tcp_trylock(s);
        kumi_tcp_polled(s);
        kumi_tcp_boot_poll(s);
        if (served) {
            if (spins < KUMI_TCP_SPIN_POLLS && s->size <= KUMI_TCP_DIRECT_MAX
                && (++s->direct_polls & 63) != 0)
                kumi_tcp_progress_direct(s);
            else
                kumi_tcp_progress_locked(s, 0);
            kumi_tcp_unlock(s);
        }
        if (__atomic_load_n(done, __ATOMIC_ACQUIRE))
            break;
        if (kumi_tcp_is_failed(s)) {
            rc = KUMI_ERR_PEER;
            break;
        }
        if (spins++ < KUMI_TCP_SPIN_POLLS && served) {
            kumi_tcp_relax();
        } else if (served) {
            struct pollfd pf = { .fd = s->epfd, .events = POLLIN };
            poll(&pf, 1, 1);
        } else {
            sched_yield();
        }
    }
    kumi_tcp_lock(s);
    return rc;
}

int kumi_tcp_tag_get(struct kumi_tcp *s, struct kumi_tcp_conn *c, unsigned *tag)
{
    while (c->nfree == 0) {
        if (s->in_rx)
            return KUMI_AGAIN;
        kumi_tcp_flush(s, c);
        if (s->threads && s->depth == 1)
            kumi_tcp_pause(s, 0);   /* other threads hold the tags */
        else
            kumi_tcp_progress_locked(s, 1);
        if (c->fd < 0 || kumi_tcp_is_failed(s))
            return KUMI_ERR_PEER;
    }
    *tag = c->free_tag[--c->nfree];
    return KUMI_OK;
}

void kumi_tcp_tag_put(struct kumi_tcp_conn *c, unsigned tag)
{
    c->req[tag].kind    = KUMI_REQ_FREE;
    c->req[tag].discard = 0;
    __atomic_store_n(&c->req[tag].done, 0, __ATOMIC_RELAXED);
    c->free_tag[c->nfree++] = (uint16_t)tag;
}

/* Serves the engine until request tag of c is answered. Busy-polls first
 * (the latency path), then sleeps in epoll; oversubscribed PEs sleep at
 * once so the target gets the core. With threads, without the lock
 * (kumi_tcp_await). */
int kumi_tcp_wait_req(struct kumi_tcp *s, struct kumi_tcp_conn *c, unsigned tag)
{
    unsigned spins = __atomic_load_n(&s->tp->doorbells, __ATOMIC_RELAXED) ? KUMI_TCP_SPIN_POLLS : 0;

    if (s->threads && s->depth == 1)
        return kumi_tcp_await(s, &c->req[tag].done, spins);
    while (!__atomic_load_n(&c->req[tag].done, __ATOMIC_ACQUIRE)) {
        /* "main polls" (without threads only the main thread issues
         * requests): the progress thread stays parked instead of waking
         * for the reply on our core */
        kumi_tcp_polled(s);
        if (spins++ < KUMI_TCP_SPIN_POLLS && s->size <= KUMI_TCP_DIRECT_MAX
            && (++s->direct_polls & 63) != 0)
            kumi_tcp_progress_direct(s);     /* the reply's latency path */
        else
            kumi_tcp_progress_locked(s, spins < KUMI_TCP_SPIN_POLLS ? 0 : 1);
        if (__atomic_load_n(&c->req[tag].done, __ATOMIC_ACQUIRE))
            break;
        if (c->fd < 0 || kumi_tcp_is_failed(s))
            return KUMI_ERR_PEER;
    }
    return KUMI_OK;
}

