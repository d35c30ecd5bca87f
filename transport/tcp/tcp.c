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
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "tcp.h"
#include "tcp_int.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the wire is little-endian");

static __thread struct kumi_tcp *kumi_tcp_held;   /* engine lock held by this thread */

int kumi_tcp_is_failed(struct kumi_tcp *s)
{
    return __atomic_load_n(s->tp->failed, __ATOMIC_ACQUIRE) != 0;
}

/* ------------------------------------------------------------- the lock */

int kumi_tcp_trylock(struct kumi_tcp *s)
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

/* With threads, a caller kept waiting here keeps the heartbeats going
 * (kumi_tcp_boot_poll): the holder may be deep in one long round of the
 * engine (a batch of get requests for 1 MiB each is 128 MiB of replies
 * to copy), with every other thread of the PE queued behind it. */
void kumi_tcp_lock(struct kumi_tcp *s)
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

void kumi_tcp_unlock(struct kumi_tcp *s)
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
    c->sent_round = ~0u;
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

void kumi_tcp_conn_close(struct kumi_tcp *s, struct kumi_tcp_conn *c)
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
            kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "bad frame from PE %d (%s): %s", c->pe,
                        c->name, why);
        else if (!c->fin_rx && !kumi_tp_fail_is_exit(__atomic_load_n(s->tp->failed, __ATOMIC_ACQUIRE))
                 && __atomic_compare_exchange_n(&s->lost_state, &none, 1, 0, __ATOMIC_ACQUIRE,
                                                __ATOMIC_RELAXED)) {
            snprintf(s->lost_line, sizeof(s->lost_line), "lost connection to PE %d (%s): %s",
                     c->pe, c->name, why);
            s->lost_until = kumi_tp_now() + KUMI_TCP_LOST_REPORT_S;
            __atomic_store_n(&s->lost_state, 2, __ATOMIC_RELEASE);
        }
        kumi_tp_fail(s->tp, (uint32_t)c->pe + 1, KUMI_TP_STATUS_UNKNOWN);
    }
    kumi_tcp_conn_close(s, c);
}

/* ------------------------------------------------------ open / connect */

int kumi_tcp_open(struct kumi_tp *tp, const struct kumi_tp_params *p)
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
    kumi_tp_take_params(tp, p, s);
    tp->progress_mask = 0;           /* frames arrive only through progress */
    tp->doorbell      = &s->bell;
    s->threads        = p->threads;
    s->lim = (struct kumi_frame_limits){
        .seg_size = { p->llcm_size, p->heap_size, p->data_size },
        .max_payload = KUMI_TCP_MAX_PAYLOAD,
        .am_handlers = KUMI_TP_AM_MAX_HANDLERS, .tags = KUMI_FRAME_TAGS, .window = KUMI_TCP_WINDOW,
    };
    rc = kumi_tp_map_private(tp, p, "tcp", &s->map, &s->map_len);
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
        s->conn[pe].rx.place = kumi_tcp_on_place;
    }
    if (p->size == 1)
        return KUMI_OK;              /* a job of one needs no sockets */

    rc = KUMI_ERR_TRANSPORT;
    s->stage = malloc(KUMI_TCP_STAGE);
    if (s->stage == NULL) {
        rc = KUMI_ERR_NOMEM;
        goto err;
    }
    if (kumi_tcp_setup_listen(s, p->boot->host_addr, err, sizeof(err)) != KUMI_OK) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "%s", err);
        goto err;
    }
    rc = kumi_tcp_exchange(s);
    if (rc != KUMI_OK)
        goto err;
    tp->serves_boot = 1;   /* the progress thread polls the bootstrap */
    return KUMI_OK;
err:
    kumi_tp_close(tp);
    return rc;
}

int kumi_tcp_connect(struct kumi_tp *tp)
{
    struct kumi_tcp   *s = kumi_tcp_of(tp);
    double             deadline = kumi_tp_now() + s->timeout;
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
        if (kumi_tp_now() > deadline) {
            kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "only %d of %d PEs connected within %.0f s "
                        "(KUMI_STARTUP_TIMEOUT)", up, s->size, s->timeout);
            rc = KUMI_ERR_TIMEOUT;
            break;
        }
        kumi_tcp_progress_locked(s, 10);
        if (kumi_tp_now() >= s->boot_next) {
            kumi_tcp_boot_tick(s, kumi_tp_now());
            kumi_tcp_pend_sweep(s, kumi_tp_now());
        }
    }
    kumi_tcp_unlock(s);
    if (rc != KUMI_OK)
        return rc;
    if (pthread_create(&s->thread, NULL, kumi_tcp_thread, s) != 0) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "cannot start the progress thread");
        return KUMI_ERR_TRANSPORT;
    }
    s->thread_on = 1;
    return KUMI_OK;
}

/* Queues FIN to every peer whose connection is up (the caller holds the
 * lock or is the only thread left). */
static void kumi_tcp_fin_all(struct kumi_tcp *s)
{
    for (int pe = 0; pe < s->size; pe++) {
        struct kumi_tcp_conn *c = &s->conn[pe];
        struct kumi_tcp_hdr   h = { .type = KUMI_TCP_FIN };
        if (c->fd >= 0 && c->state == KUMI_TCP_UP)
            kumi_tcp_tx_hdr(s, c, &h);
    }
}

/* Says FIN to every peer and waits (bounded) for theirs, so no byte in
 * flight is lost to a reset. */
static void kumi_tcp_goodbye(struct kumi_tcp *s)
{
    double deadline = kumi_tp_now() + 2.0;
    int    open;

    kumi_tcp_fin_all(s);
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
    } while (open > 0 && kumi_tp_now() < deadline);
}

void kumi_tcp_stop_thread(struct kumi_tcp *s)
{
    uint64_t one = 1;

    if (!s->thread_on)
        return;
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    kumi_tcp_futex_wake(&s->park);
    if (write(s->wakefd, &one, sizeof(one)) < 0)
        kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "eventfd: %s", strerror(errno));
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
int kumi_tcp_exit_job(struct kumi_tp *tp, int status)
{
    struct kumi_tcp *s = kumi_tcp_of(tp);

    if (s == NULL)
        return status;
    kumi_tcp_stop_thread(s);
    s->closing = 1;
    if (s->conn != NULL && s->epfd >= 0) {
        double deadline = kumi_tp_now() + KUMI_TCP_EXIT_FIN_S;
        int    queued;

        kumi_tcp_lock(s);
        kumi_tcp_fin_all(s);
        do {
            queued = 0;
            kumi_tcp_progress_locked(s, 1);
            for (int pe = 0; pe < s->size; pe++)
                queued += s->conn[pe].fd >= 0 && s->conn[pe].spos != s->conn[pe].slen;
        } while (queued > 0 && kumi_tp_now() < deadline);
        kumi_tcp_unlock(s);
    }
    return status;
}

void kumi_tcp_close(struct kumi_tp *tp)
{
    struct kumi_tcp *s = kumi_tcp_of(tp);

    if (s == NULL)
        return;
    kumi_tcp_stop_thread(s);
    kumi_tcp_lost_report(s, kumi_tp_now(), 1);
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

/* ---------------------------------------------------------- test hooks */

int kumi_tcp_endpoint(struct kumi_tp *tp, int pe, char *addr, size_t addrlen, int *port)
{
    struct kumi_tcp *s;

    if (tp->ops->open != kumi_tcp_open || tp->size < 2 || pe < 0 || pe >= tp->size)
        return KUMI_ERR_INVALID;
    s = kumi_tcp_of(tp);
    if (inet_ntop(s->table[pe].family == 6 ? AF_INET6 : AF_INET, s->table[pe].addr, addr,
                  (socklen_t)addrlen) == NULL)
        return KUMI_ERR_INVALID;
    *port = s->table[pe].port;
    return KUMI_OK;
}

int kumi_tcp_test_bad_frame(struct kumi_tp *tp, int pe)
{
    struct kumi_tcp *s;
    uint8_t          byte = 0;
    int              rc;

    if (tp->ops->open != kumi_tcp_open || pe == tp->rank)
        return KUMI_ERR_INVALID;
    s = kumi_tcp_of(tp);
    kumi_tcp_lock(s);
    s->corrupt_next = 1;
    kumi_tcp_unlock(s);
    rc = kumi_tcp_put(tp, pe, KUMI_SEG_HEAP, 0, &byte, 1);
    if (rc == KUMI_OK)
        rc = kumi_tcp_fence(tp);
    return rc;
}

int kumi_tcp_test_counts(struct kumi_tp *tp, int pe, size_t *unsent, uint64_t *staged)
{
    struct kumi_tcp *s;

    if (tp->ops->open != kumi_tcp_open || pe == tp->rank || pe < 0 || pe >= tp->size)
        return KUMI_ERR_INVALID;
    s = kumi_tcp_of(tp);
    kumi_tcp_lock(s);
    *unsent = s->conn[pe].slen - s->conn[pe].spos;
    *staged = s->conn[pe].rx_staged;
    kumi_tcp_unlock(s);
    return KUMI_OK;
}

int kumi_tcp_test_calls(struct kumi_tp *tp, struct kumi_tcp_calls *out)
{
    struct kumi_tcp *s;

    if (tp->ops->open != kumi_tcp_open)
        return KUMI_ERR_INVALID;
    s = kumi_tcp_of(tp);
    kumi_tcp_lock(s);
    *out = (struct kumi_tcp_calls){ .epolls = s->rx_epolls, .recvs = s->rx_recvs,
                                    .recvs_empty = s->rx_empty, .trailing = s->rx_trailing,
                                    .writes = s->tx_writes };
    kumi_tcp_unlock(s);
    return KUMI_OK;
}

int kumi_tcp_test_cc(struct kumi_tp *tp, int pe, char *name, size_t len)
{
    struct kumi_tcp *s;
    socklen_t        l = (socklen_t)len;
    int              rc = KUMI_OK;

    if (tp->ops->open != kumi_tcp_open || pe == tp->rank || pe < 0 || pe >= tp->size || len == 0)
        return KUMI_ERR_INVALID;
    s = kumi_tcp_of(tp);
    kumi_tcp_lock(s);
    memset(name, 0, len);
    if (s->conn[pe].fd < 0 || getsockopt(s->conn[pe].fd, IPPROTO_TCP, TCP_CONGESTION, name, &l) != 0)
        rc = KUMI_ERR_TRANSPORT;
    name[len - 1] = '\0';
    kumi_tcp_unlock(s);
    return rc;
}
