/*
 * tcp.c -- the tcp transport: kumi's software fallback (see README.md).
 *
 * One socket per PE pair, frames per wire.h. The sender coalesces small
 * frames into a per-connection buffer (Maestro2's continuous burst) and
 * writes large puts straight from the user's buffer; the receiver decodes
 * with frame.c, which places payloads directly in memory. Progress is made
 * by whoever holds the engine lock: the main thread while it waits, or the
 * progress thread while the main thread computes or sleeps.
 *
 * Threads (KUMI_INIT_THREADS): every operation already runs under the
 * engine lock, so many callers are safe as they are; what changes is
 * waiting. A caller waiting for a reply (get, fetching atomic, quiet) or
 * for a free request tag lets the lock go meanwhile (kumi_tcp_await),
 * so the PE's other threads keep sending, and whoever holds the lock next
 * applies the reply. quiet() then tracks completion per connection by
 * sequence numbers (wseq, wdone) instead of the per-connection probe
 * slot, and settle() is ignored. Without the flag none of this runs.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
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
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tcp.h"
#include "tcp_int.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the wire is little-endian");

#define KUMI_TCP_SPIN_POLLS 2000   /* blocking ops busy-poll this often before sleeping */

static __thread struct kumi_tcp *kumi_tcp_held;   /* engine lock held by this thread */

static struct kumi_tcp *kumi_tcp_of(struct kumi_tp *tp)
{
    return tp->priv;
}

double kumi_tcp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void kumi_tcp_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

int kumi_tcp_is_failed(struct kumi_tcp *s)
{
    return __atomic_load_n(s->tp->failed, __ATOMIC_ACQUIRE) != 0;
}

/* "a caller polls": the progress thread stays parked. Any thread may bump
 * it (KUMI_INIT_THREADS); an increment lost between two only means the
 * count moved less, which the thread reads the same. */
static inline void kumi_tcp_polled(struct kumi_tcp *s)
{
    __atomic_store_n(&s->polls, __atomic_load_n(&s->polls, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
}

/* A store to my own memory through kumi: wake my sleeping waiters (another
 * thread of mine may wait for it), as shm rings for every store. */
static inline void kumi_tcp_ring_self(struct kumi_tp *tp)
{
    if (__atomic_load_n(&tp->doorbells, __ATOMIC_RELAXED))
        kumi_tp_doorbell_ring(tp->doorbell);
}

/* ------------------------------------------------------------- the lock */

static int kumi_tcp_trylock(struct kumi_tcp *s)
{
    if (kumi_tcp_held == s) {
        s->depth++;
        return 1;
    }
    if (__atomic_load_n(&s->lock, __ATOMIC_RELAXED)
        || __atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE))
        return 0;
    kumi_tcp_held = s;
    s->depth      = 1;
    return 1;
}

static int kumi_tcp_boot_poll(struct kumi_tcp *s);

/* With threads, a caller kept waiting here keeps the heartbeats going
 * (kumi_tcp_boot_poll): the holder may be deep in one long round of the
 * engine (a batch of get requests for 1 MiB each is 128 MiB of replies
 * to copy), with every other thread of the PE queued behind it. */
static void kumi_tcp_lock(struct kumi_tcp *s)
{
    for (unsigned i = 0; !kumi_tcp_trylock(s); i++) {
        if (i < 256) {
            kumi_tcp_relax();
        } else {
            if (s->threads && (i & 15) == 0)
                kumi_tcp_boot_poll(s);
            sched_yield();
        }
    }
}

static void kumi_tcp_unlock(struct kumi_tcp *s)
{
    if (--s->depth == 0) {
        kumi_tcp_held = NULL;
        __atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
    }
}

/* --------------------------------------------------------- connections */

void kumi_tcp_conn_init(struct kumi_tcp *s, struct kumi_tcp_conn *c, int pe)
{
    c->fd        = -1;
    c->pe        = pe;
    c->tx_credit = KUMI_TCP_WINDOW;
    c->nfree     = KUMI_FRAME_TAGS;
    for (unsigned i = 0; i < KUMI_FRAME_TAGS; i++)
        c->free_tag[i] = (uint16_t)(KUMI_FRAME_TAGS - 1 - i);
    snprintf(c->name, sizeof(c->name), "?");
    (void)s;
}

void kumi_tcp_set_events(struct kumi_tcp *s, struct kumi_tcp_conn *c, int pollout)
{
    struct epoll_event ev = { .events = EPOLLIN | (pollout ? EPOLLOUT : 0),
                              .data.u64 = KUMI_TCP_EV(KUMI_TCP_EV_CONN, c->pe) };

    if (c->pollout == pollout || c->fd < 0)
        return;
    epoll_ctl(s->epfd, c->pollout < 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c->fd, &ev);
    c->pollout = pollout;
}

static void kumi_tcp_conn_close(struct kumi_tcp *s, struct kumi_tcp_conn *c)
{
    if (c->fd >= 0) {
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    c->fd    = -1;
    c->state = KUMI_TCP_CLOSED;
    c->spos = c->slen = 0;
}

void kumi_tcp_conn_lost(struct kumi_tcp *s, struct kumi_tcp_conn *c, const char *fmt, ...)
{
    char    why[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (!s->closing) {
        uint32_t none = 0;

        /* A bad frame is news. A lost connection may not be: a peer that
         * said FIN, or any peer once a PE asked the job to end
         * (kumi_global_exit), leaves on purpose, and the word of that may
         * reach this PE (over the rendezvous) just after the connection
         * ends: the line waits for the launcher's verdict. */
        if (c->rx.failed)
            fprintf(stderr, "kumi[%d]: tcp: bad frame from PE %d (%s): %s\n", s->rank, c->pe,
                    c->name, why);
        else if (!c->fin_rx && !kumi_tp_fail_is_exit(__atomic_load_n(s->tp->failed, __ATOMIC_ACQUIRE))
                 && __atomic_compare_exchange_n(&s->lost_state, &none, 1, 0, __ATOMIC_ACQUIRE,
                                                __ATOMIC_RELAXED)) {
            snprintf(s->lost_line, sizeof(s->lost_line), "kumi[%d]: tcp: lost connection to PE "
                     "%d (%s): %s", s->rank, c->pe, c->name, why);
            s->lost_until = kumi_tcp_now() + KUMI_TCP_LOST_REPORT_S;
            __atomic_store_n(&s->lost_state, 2, __ATOMIC_RELEASE);
        }
        kumi_tp_fail(s->tp, (uint32_t)c->pe + 1, KUMI_TP_STATUS_UNKNOWN);
    }
    kumi_tcp_conn_close(s, c);
}

/* ---------------------------------------------------------- send side */

static int kumi_tcp_tx_reserve(struct kumi_tcp_conn *c, size_t n)
{
    if (c->spos == c->slen && !c->busy)
        c->spos = c->slen = 0;
    if (c->slen + n <= c->scap)
        return 0;
    if (!c->busy && c->spos > 0) {   /* mid-frame direct writes pin positions */
        memmove(c->sbuf, c->sbuf + c->spos, c->slen - c->spos);
        c->slen -= c->spos;
        c->spos = 0;
        if (c->slen + n <= c->scap)
            return 0;
    }
    size_t   cap = c->scap ? c->scap : KUMI_TCP_FLUSH_AT * 2;
    uint8_t *p;
    while (cap < c->slen + n)
        cap *= 2;
    p = realloc(c->sbuf, cap);
    if (p == NULL)
        return -1;
    c->sbuf = p;
    c->scap = cap;
    return 0;
}

int kumi_tcp_tx_append(struct kumi_tcp_conn *c, const void *p, size_t n)
{
    if (kumi_tcp_tx_reserve(c, n) != 0)
        return -1;
    if (n != 0)
        memcpy(c->sbuf + c->slen, p, n);
    c->slen += n;
    return 0;
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
static int kumi_tcp_tx_hdr(struct kumi_tcp *s, struct kumi_tcp_conn *c, struct kumi_tcp_hdr *h)
{
    uint32_t credit = c->rx_unreported < KUMI_TCP_WINDOW ? c->rx_unreported : KUMI_TCP_WINDOW;

    h->version = KUMI_TCP_VERSION;
    h->credit  = credit;
    if (s->corrupt_next && h->type == KUMI_TCP_PUT) {
        s->corrupt_next = 0;
        h->off = s->lim.seg_size[KUMI_SEG_HEAP];       /* past the end */
    }
    if (kumi_tcp_tx_append(c, h, sizeof(*h)) != 0)
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
        ssize_t n = send(c->fd, c->sbuf + c->spos, c->slen - c->spos, MSG_NOSIGNAL | MSG_DONTWAIT);
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

static void kumi_tcp_flush_dirty(struct kumi_tcp *s)
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
 * bytes, the header and the payload in one writev, until all is written. */
static int kumi_tcp_tx_direct(struct kumi_tcp *s, struct kumi_tcp_conn *c,
                              struct kumi_tcp_hdr *h, const void *data, size_t len)
{
    size_t lim, ddone = 0;
    int    rc = kumi_tcp_tx_hdr(s, c, h);

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
        ssize_t n = writev(c->fd, iov, k);
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
static int kumi_tcp_credit(struct kumi_tcp *s, struct kumi_tcp_conn *c)
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

static int kumi_tcp_progress_direct(struct kumi_tcp *s);

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
static int kumi_tcp_await(struct kumi_tcp *s, volatile uint8_t *done, unsigned spins)
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

static int kumi_tcp_tag_get(struct kumi_tcp *s, struct kumi_tcp_conn *c, unsigned *tag)
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

static void kumi_tcp_tag_put(struct kumi_tcp_conn *c, unsigned tag)
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
static int kumi_tcp_wait_req(struct kumi_tcp *s, struct kumi_tcp_conn *c, unsigned tag)
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

/* ------------------------------------------------------------- receive */

/* A get reply: straight from my memory when nothing is queued before it,
 * the rest copied behind. */
static int kumi_tcp_reply_get(struct kumi_tcp *s, struct kumi_tcp_conn *c, unsigned tag,
                              const uint8_t *src, uint32_t len)
{
    struct kumi_tcp_hdr h = { .type = KUMI_TCP_GET_REP, .len = len, .tag = tag };
    size_t              done = 0;

    if (kumi_tcp_tx_hdr(s, c, &h) != KUMI_OK)
        return -1;
    if (len >= KUMI_TCP_COPY_MAX && !c->busy && c->state == KUMI_TCP_UP) {
        struct iovec iov[2] = { { c->sbuf + c->spos, c->slen - c->spos }, { (void *)src, len } };
        ssize_t      n = writev(c->fd, iov, 2);
        if (n > 0) {
            size_t m = (size_t)n, q = c->slen - c->spos < m ? c->slen - c->spos : m;
            c->spos += q;
            done = m - q;
        }
    }
    return kumi_tcp_tx_append(c, src + done, len - done);
}

static int kumi_tcp_on_frame(struct kumi_frame_rx *rx, const struct kumi_tcp_hdr *h,
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
        return -1;
    }
    c->tx_credit += (int32_t)h->credit;
    if (kumi_frame_counted(h->type))
        c->rx_unreported++;
    s->handled++;
    if (h->type == KUMI_TCP_KICK || h->type == KUMI_TCP_PUT || h->type == KUMI_TCP_AMO_REQ
        || h->type == KUMI_TCP_AM)
        s->stored++;
    switch (h->type) {
    case KUMI_TCP_GET_REQ:
        return kumi_tcp_reply_get(s, c, h->tag, (uint8_t *)tp->local[h->seg] + h->off,
                                  (uint32_t)h->val) != 0 ? (snprintf(rx->err, sizeof(rx->err),
                                  "out of memory for a reply"), -1) : 0;
    case KUMI_TCP_AMO_REQ: {
        uint64_t old = kumi_tp_amo_apply((uint8_t *)tp->local[h->seg] + h->off, h->op, h->width,
                                          h->val, h->cmp);
        if (kumi_tp_amo_fetches(h->op)) {
            struct kumi_tcp_hdr r = { .type = KUMI_TCP_AMO_REP, .val = old, .tag = h->tag };
            if (kumi_tcp_tx_hdr(s, c, &r) != KUMI_OK)
                return -1;
        }
        return 0;
    }
    case KUMI_TCP_AM: {
        kumi_tp_am_fn fn = __atomic_load_n(&tp->am[h->seg].fn, __ATOMIC_ACQUIRE);
        if (fn == NULL) {
            fprintf(stderr, "kumi[%d]: active message for unregistered handler %u from PE %d "
                    "dropped\n", s->rank, h->seg, c->pe);
            return 0;
        }
        s->in_rx++;
        fn(tp, c->pe, payload, h->len, __atomic_load_n(&tp->am[h->seg].arg, __ATOMIC_RELAXED));
        s->in_rx--;
        return 0;
    }
    case KUMI_TCP_GET_REP:
    case KUMI_TCP_AMO_REP:
        if (c->req[h->tag].discard)
            kumi_tcp_tag_put(c, h->tag);
        return 0;
    case KUMI_TCP_FIN:
        c->fin_rx = 1;
        return 0;
    default:
        return 0;
    }
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

        if (direct)
            n = recv(c->fd, dst, want, 0);
        else
            n = recv(c->fd, s->stage, KUMI_TCP_STAGE, 0);
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
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                kumi_tcp_conn_lost(s, c, "recv: %s", strerror(errno));
            return;
        }
        if (direct)
            kumi_frame_rx_got(&c->rx, (size_t)n);
        else
            kumi_frame_rx_feed(&c->rx, s->stage, (size_t)n);
        if (c->rx.failed) {
            kumi_tcp_conn_lost(s, c, "%s", c->rx.err);
            return;
        }
        if ((size_t)n < (direct ? want : KUMI_TCP_STAGE))
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
    if (s->ndirty)
        kumi_tcp_flush_dirty(s);
    kumi_tcp_selfq_run(s);
    if (s->epfd < 0)
        return s->handled - before;
    n = epoll_wait(s->epfd, ev, 32, s->handled != before ? 0 : timeout_ms);
    for (int i = 0; i < n; i++)
        kumi_tcp_event(s, &ev[i]);
    return kumi_tcp_progress_end(s, before, stored);
}

/* The main thread's poll in a small job: a non-blocking recv on each
 * peer's socket instead of epoll_wait and then recv, one system call less
 * between a frame's arrival and its delivery (the latency path of a spin
 * wait). Every 64th poll still goes through epoll for what only it sees:
 * connections being accepted or checked, sockets waiting for room. */
static int kumi_tcp_progress_direct(struct kumi_tcp *s)
{
    int      before = s->handled;
    unsigned stored = s->stored;

    if (s->in_rx)
        return 0;
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

static void kumi_tcp_futex_wait(uint32_t *w, uint32_t v, long ns)
{
    struct timespec ts = { 0, ns };
    syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
}

static void kumi_tcp_futex_wake(uint32_t *w)
{
    __atomic_add_fetch(w, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* The bootstrap's tick (kumi_tcp_boot_tick), once it is due, by whichever
 * thread gets here first: the progress thread on every round, and with
 * threads every caller's progress() and reply wait too, so a progress
 * thread held up (descheduled while it serves the engine on a loaded
 * machine: 1.4 s seen under TSan with 4 PEs of 8 threads on 2 cores) does
 * not silence the PE's heartbeats while its other threads run. boot_busy
 * serializes them; kumi_tcp_stop_thread takes it for good. 1 if it ticked. */
static int kumi_tcp_boot_poll(struct kumi_tcp *s)
{
    double next, now = kumi_tcp_now();

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
static void *kumi_tcp_thread(void *arg)
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
            kumi_tcp_pend_sweep(s, kumi_tcp_now());
            kumi_tcp_unlock(s);
        }
        if (s->threads) {
            uint32_t n = __atomic_load_n(&s->naps, __ATOMIC_ACQUIRE);
            asleep = n != naps;
            naps   = n;
        }
        if (polls != seen && !asleep) {
            seen = polls;
            kumi_tcp_futex_wait(&s->park, __atomic_load_n(&s->park, __ATOMIC_ACQUIRE), 1000000L);
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
                    kumi_tcp_futex_wait(&s->park, __atomic_load_n(&s->park, __ATOMIC_ACQUIRE),
                                        50000L);
                }
            }
        }
    }
    return NULL;
}

/* ------------------------------------------------------ open / connect */

static int kumi_tcp_map(struct kumi_tcp *s, struct kumi_tp *tp, const struct kumi_tp_params *p)
{
    size_t   llcm = (p->llcm_size + 4095) & ~(size_t)4095;
    size_t   align = p->heap_align ? p->heap_align : 4096;
    size_t   len = llcm + p->heap_size + align;
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    uintptr_t heap;

    if (m == MAP_FAILED) {
        fprintf(stderr, "kumi[%d]: kumi_init: tcp: cannot map %zu bytes of LLCM and heap: %s\n",
                p->rank, len, strerror(errno));
        return KUMI_ERR_NOMEM;
    }
    heap = ((uintptr_t)m + llcm + align - 1) & ~(uintptr_t)(align - 1);
    s->map     = m;
    s->map_len = len;
    tp->local[KUMI_SEG_LLCM] = (void *)(heap - llcm);
    tp->local[KUMI_SEG_HEAP] = (void *)heap;
    return KUMI_OK;
}

static int kumi_tcp_open(struct kumi_tp *tp, const struct kumi_tp_params *p)
{
    struct kumi_tcp *s = calloc(1, sizeof(*s));
    char             err[256];
    int              rc = KUMI_ERR_NOMEM;

    if (s == NULL)
        return KUMI_ERR_NOMEM;
    s->tp = tp;
    s->rank = p->rank;
    s->size = p->size;
    s->timeout = p->connect_timeout;
    s->lfd = s->epfd = s->wakefd = -1;
    s->boot = p->boot;
    for (int i = 0; i < KUMI_TCP_PENDING; i++)
        s->pend[i].fd = -1;
    tp->priv          = s;
    tp->rank          = p->rank;
    tp->size          = p->size;
    tp->job_failed    = p->job_failed;
    tp->failed        = p->failed;
    tp->fail_status   = p->fail_status;
    tp->progress_mask = 0;           /* frames arrive only through progress */
    tp->seg_size[KUMI_SEG_LLCM] = p->llcm_size;
    tp->seg_size[KUMI_SEG_HEAP] = p->heap_size;
    tp->seg_size[KUMI_SEG_DATA] = p->data_size;   /* the program's own range */
    tp->local[KUMI_SEG_DATA]    = p->data_size != 0 ? p->data_base : NULL;
    tp->doorbell      = &s->bell;
    s->threads        = p->threads;
    s->lim = (struct kumi_frame_limits){
        .seg_size = { p->llcm_size, p->heap_size, p->data_size },
        .max_payload = KUMI_TCP_MAX_PAYLOAD,
        .am_handlers = KUMI_TP_AM_MAX_HANDLERS, .tags = KUMI_FRAME_TAGS, .window = KUMI_TCP_WINDOW,
    };
    rc = kumi_tcp_map(s, tp, p);
    if (rc != KUMI_OK)
        goto err;
    rc = KUMI_ERR_NOMEM;
    s->conn  = calloc((size_t)p->size, sizeof(*s->conn));
    s->dirty = calloc((size_t)p->size, sizeof(*s->dirty));
    s->table = calloc((size_t)p->size, sizeof(*s->table));
    if (s->conn == NULL || s->dirty == NULL || s->table == NULL)
        goto err;
    uint8_t *segs[KUMI_SEG_COUNT];
    for (int i = 0; i < KUMI_SEG_COUNT; i++)
        segs[i] = tp->local[i];
    for (int pe = 0; pe < p->size; pe++) {
        kumi_tcp_conn_init(s, &s->conn[pe], pe);
        kumi_frame_rx_init(&s->conn[pe].rx, &s->lim, segs, s->conn[pe].req, kumi_tcp_on_frame,
                           &s->conn[pe]);
    }
    if (p->size == 1)
        return KUMI_OK;              /* a job of one needs no sockets */

    rc = KUMI_ERR_TRANSPORT;
    s->stage = malloc(KUMI_TCP_STAGE);
    if (s->stage == NULL) {
        rc = KUMI_ERR_NOMEM;
        goto err;
    }
    if (kumi_tcp_setup_listen(s, p->boot->host_addr, err, sizeof(err)) != 0) {
        fprintf(stderr, "kumi[%d]: kumi_init: tcp: %s\n", p->rank, err);
        goto err;
    }
    rc = kumi_tcp_exchange(s);
    if (rc != KUMI_OK)
        goto err;
    tp->serves_boot = 1;   /* the progress thread polls the bootstrap */
    return KUMI_OK;
err:
    tp->ops->close(tp);
    return rc;
}

static int kumi_tcp_connect(struct kumi_tp *tp)
{
    struct kumi_tcp   *s = kumi_tcp_of(tp);
    double             deadline = kumi_tcp_now() + s->timeout;
    struct epoll_event ev;
    int                rc;

    if (s->size == 1)
        return KUMI_OK;
    s->epfd   = epoll_create1(EPOLL_CLOEXEC);
    s->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->epfd < 0 || s->wakefd < 0)
        return KUMI_ERR_TRANSPORT;
    ev = (struct epoll_event){ .events = EPOLLIN, .data.u64 = KUMI_TCP_EV(KUMI_TCP_EV_LISTEN, 0) };
    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev);
    ev = (struct epoll_event){ .events = EPOLLIN, .data.u64 = KUMI_TCP_EV(KUMI_TCP_EV_WAKE, 0) };
    epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->wakefd, &ev);
    /* the rendezvous channel is not in the engine's epoll set: only the
     * progress thread serves it (after start-up), without the engine's
     * lock, so a main thread busy in the engine never silences a PE's
     * heartbeats */
    kumi_tcp_lock(s);
    rc = kumi_tcp_start_connects(s);
    for (int up = 0; rc == KUMI_OK;) {
        up = 0;
        for (int pe = 0; pe < s->size; pe++)
            up += pe == s->rank || s->conn[pe].state == KUMI_TCP_UP;
        if (up == s->size)
            break;
        if (kumi_tcp_is_failed(s)) {
            rc = KUMI_ERR_PEER;
            break;
        }
        if (kumi_tcp_now() > deadline) {
            fprintf(stderr, "kumi[%d]: kumi_init: tcp: only %d of %d PEs connected within "
                    "%.0f s (KUMI_STARTUP_TIMEOUT)\n", s->rank, up, s->size, s->timeout);
            rc = KUMI_ERR_TIMEOUT;
            break;
        }
        kumi_tcp_progress_locked(s, 10);
        if (kumi_tcp_now() >= s->boot_next) {
            kumi_tcp_boot_tick(s, kumi_tcp_now());
            kumi_tcp_pend_sweep(s, kumi_tcp_now());
        }
    }
    kumi_tcp_unlock(s);
    if (rc != KUMI_OK)
        return rc;
    if (pthread_create(&s->thread, NULL, kumi_tcp_thread, s) != 0) {
        fprintf(stderr, "kumi[%d]: kumi_init: tcp: cannot start the progress thread\n", s->rank);
        return KUMI_ERR_TRANSPORT;
    }
    s->thread_on = 1;
    return KUMI_OK;
}

/* Says FIN to every peer and waits (bounded) for theirs, so no byte in
 * flight is lost to a reset. */
static void kumi_tcp_goodbye(struct kumi_tcp *s)
{
    double deadline = kumi_tcp_now() + 2.0;
    int    open;

    for (int pe = 0; pe < s->size; pe++) {
        struct kumi_tcp_conn *c = &s->conn[pe];
        struct kumi_tcp_hdr   h = { .type = KUMI_TCP_FIN };
        if (c->fd >= 0 && c->state == KUMI_TCP_UP)
            kumi_tcp_tx_hdr(s, c, &h);
    }
    do {
        open = 0;
        kumi_tcp_progress_locked(s, 1);
        for (int pe = 0; pe < s->size; pe++) {
            struct kumi_tcp_conn *c = &s->conn[pe];
            if (c->fd < 0)
                continue;
            if (c->spos == c->slen && c->state == KUMI_TCP_UP)
                shutdown(c->fd, SHUT_WR);
            open++;
        }
    } while (open > 0 && kumi_tcp_now() < deadline);
}

static void kumi_tcp_stop_thread(struct kumi_tcp *s)
{
    uint64_t one = 1;

    if (!s->thread_on)
        return;
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    kumi_tcp_futex_wake(&s->park);
    if (write(s->wakefd, &one, sizeof(one)) < 0)
        perror("kumi: tcp: eventfd");
    pthread_join(s->thread, NULL);
    s->thread_on = 0;
    /* the bootstrap's tick is this thread's from now on: callers'
     * progress() (threads) no longer runs it */
    while (__atomic_exchange_n(&s->boot_busy, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

/* kumi_global_exit (transport.h), after the bootstrap told the launcher
 * (kumirun answers every PE, this one last of all, so by then the peers'
 * answers are on their way): FIN to every peer, without waiting for
 * theirs: a peer whose connection to this PE ends after its FIN keeps
 * quiet (kumi_tcp_conn_lost), as it does once it has the launcher's
 * answer. */
static int kumi_tcp_exit_job(struct kumi_tp *tp, int status)
{
    struct kumi_tcp *s = kumi_tcp_of(tp);

    if (s == NULL)
        return status;
    kumi_tcp_stop_thread(s);
    s->closing = 1;
    if (s->conn != NULL && s->epfd >= 0) {
        double deadline = kumi_tcp_now() + KUMI_TCP_EXIT_FIN_S;
        int    queued;

        kumi_tcp_lock(s);
        for (int pe = 0; pe < s->size; pe++) {
            struct kumi_tcp_conn *c = &s->conn[pe];
            struct kumi_tcp_hdr   h = { .type = KUMI_TCP_FIN };
            if (c->fd >= 0 && c->state == KUMI_TCP_UP)
                kumi_tcp_tx_hdr(s, c, &h);
        }
        do {
            queued = 0;
            kumi_tcp_progress_locked(s, 1);
            for (int pe = 0; pe < s->size; pe++)
                queued += s->conn[pe].fd >= 0 && s->conn[pe].spos != s->conn[pe].slen;
        } while (queued > 0 && kumi_tcp_now() < deadline);
        kumi_tcp_unlock(s);
    }
    return status;
}

static void kumi_tcp_close(struct kumi_tp *tp)
{
    struct kumi_tcp *s = kumi_tcp_of(tp);

    if (s == NULL)
        return;
    kumi_tcp_stop_thread(s);
    kumi_tcp_lost_report(s, kumi_tcp_now(), 1);
    s->closing = 1;
    if (s->conn != NULL && s->epfd >= 0) {
        kumi_tcp_lock(s);
        if (!kumi_tcp_is_failed(s))
            kumi_tcp_goodbye(s);
        kumi_tcp_unlock(s);
    }
    for (int pe = 0; s->conn != NULL && pe < s->size; pe++) {
        if (s->conn[pe].fd >= 0)
            close(s->conn[pe].fd);
        free(s->conn[pe].sbuf);
    }
    for (int i = 0; i < KUMI_TCP_PENDING; i++)
        if (s->pend[i].fd >= 0)
            close(s->pend[i].fd);
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->epfd >= 0)
        close(s->epfd);
    if (s->wakefd >= 0)
        close(s->wakefd);
    if (s->map != NULL)
        munmap(s->map, s->map_len);
    free(s->selfq);
    free(s->stage);
    free(s->conn);
    free(s->dirty);
    free(s->table);
    free(s);
    tp->priv = NULL;
}

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

static int kumi_tcp_put(struct kumi_tp *tp, int pe, enum kumi_seg seg, size_t off,
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
            if (rc == KUMI_OK && kumi_tcp_tx_append(c, p, k) != 0)
                rc = KUMI_ERR_NOMEM;
            if (rc == KUMI_OK && c->slen - c->spos >= KUMI_TCP_FLUSH_AT && !s->in_rx)
                rc = kumi_tcp_flush(s, c);
        } else {
            rc = kumi_tcp_tx_direct(s, c, &h, p, k);
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
        if (rc == KUMI_OK && ((hlen != 0 && kumi_tcp_tx_append(c, hdr, hlen) != 0)
                              || (plen != 0 && kumi_tcp_tx_append(c, payload, plen) != 0)))
            rc = KUMI_ERR_NOMEM;
        if (rc == KUMI_OK && c->slen - c->spos >= KUMI_TCP_FLUSH_AT && !s->in_rx)
            rc = kumi_tcp_flush(s, c);
    }
    kumi_tcp_unlock(s);
    return rc;
}

static int kumi_tcp_am_send(struct kumi_tp *tp, int pe, unsigned handler, const void *payload,
                            size_t len)
{
    return kumi_tcp_am_sendv(tp, pe, handler, NULL, 0, payload, len);
}

static int kumi_tcp_fence(struct kumi_tp *tp)
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
    .fence    = kumi_tcp_fence,
    .quiet    = kumi_tcp_quiet,
    .progress = kumi_tcp_progress,
    .peer_ptr = kumi_tcp_peer_ptr,
    .idle     = kumi_tcp_idle,
    .settle   = kumi_tcp_settle,
    .exit_job = kumi_tcp_exit_job,
    .priority = 10,      /* any job, one host or many: the fallback */
};

/* ---------------------------------------------------------- test hooks */

int kumi_tcp_endpoint(struct kumi_tp *tp, int pe, char *addr, size_t addrlen, int *port)
{
    struct kumi_tcp *s;

    if (tp->ops != &kumi_tp_tcp_ops || tp->size < 2 || pe < 0 || pe >= tp->size)
        return -1;
    s = kumi_tcp_of(tp);
    if (inet_ntop(s->table[pe].family == 6 ? AF_INET6 : AF_INET, s->table[pe].addr, addr,
                  (socklen_t)addrlen) == NULL)
        return -1;
    *port = s->table[pe].port;
    return 0;
}

int kumi_tcp_test_bad_frame(struct kumi_tp *tp, int pe)
{
    struct kumi_tcp *s;
    uint8_t          byte = 0;
    int              rc;

    if (tp->ops != &kumi_tp_tcp_ops || pe == tp->rank)
        return -1;
    s = kumi_tcp_of(tp);
    kumi_tcp_lock(s);
    s->corrupt_next = 1;
    kumi_tcp_unlock(s);
    rc = kumi_tcp_put(tp, pe, KUMI_SEG_HEAP, 0, &byte, 1);
    if (rc == KUMI_OK)
        rc = kumi_tcp_fence(tp);
    return rc == KUMI_OK ? 0 : -1;
}
