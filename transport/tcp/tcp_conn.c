/*
 * tcp_conn.c -- how tcp connections come to be: the listener (open all job
 * long, so late intruders are turned away too), the rendezvous through
 * kumirun, the full mesh (PE i connects to every PE below it and accepts
 * from every PE above), and the hello check that admits a connection
 * before a single frame of it is read.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tcp_int.h"

static void kumi_tcp_sa_name(const struct sockaddr_storage *ss, char *buf, size_t len)
{
    char a[INET6_ADDRSTRLEN] = "?";
    int  port = 0;

    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const void *)ss;
        inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
        port = ntohs(in->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const void *)ss;
        inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
        port = ntohs(in6->sin6_port);
    }
    snprintf(buf, len, "%s:%d", a, port);
}

static socklen_t kumi_tcp_ep_sa(const struct kumi_tcp_ep *ep, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    if (ep->family == 6) {
        struct sockaddr_in6 *in6 = (void *)ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port   = htons(ep->port);
        memcpy(&in6->sin6_addr, ep->addr, 16);
        return sizeof(*in6);
    }
    struct sockaddr_in *in = (void *)ss;
    in->sin_family = AF_INET;
    in->sin_port   = htons(ep->port);
    memcpy(&in->sin_addr, ep->addr, 4);
    return sizeof(*in);
}

int kumi_tcp_sock_tune(int fd)
{
    int one = 1;

    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
        return -1;
    /* small frames are coalesced by us; the kernel must not wait too */
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int kumi_tcp_setup_listen(struct kumi_tcp *s, const char *addr, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t               sl;

    if (addr == NULL || *addr == '\0')
        addr = "127.0.0.1";
    memset(&s->mine, 0, sizeof(s->mine));
    if (inet_pton(AF_INET, addr, s->mine.addr) == 1) {
        s->mine.family = 4;
    } else if (inet_pton(AF_INET6, addr, s->mine.addr) == 1) {
        s->mine.family = 6;
    } else {
        snprintf(err, errlen, "KUMI_TCP_ADDR=%s is not a numeric IPv4 or IPv6 address", addr);
        return -1;
    }
    sl = kumi_tcp_ep_sa(&s->mine, &ss);   /* port 0: ephemeral */
    s->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&ss, sl) != 0
        || listen(s->lfd, 128) != 0 || getsockname(s->lfd, (struct sockaddr *)&ss, &sl) != 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", addr, strerror(errno));
        return -1;
    }
    s->mine.port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                                 : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return 0;
}

int kumi_tcp_join(struct kumi_tcp *s, const char *rdv, int remote)
{
    char err[256];

    if (kumi_rdv_join(&s->rdv, rdv, s->key, s->rank, s->size, &s->mine, s->table, s->timeout,
                      err, sizeof(err))
        != 0) {
        fprintf(stderr, "kumi[%d]: kumi_init: tcp: cannot join the job's rendezvous at %s: %s\n",
                s->rank, rdv, err);
        return KUMI_ERR_TRANSPORT;
    }
    double now  = kumi_tcp_now();
    s->rdv_on   = 1;
    s->remote   = remote;
    __atomic_store(&s->rdv_next, &now, __ATOMIC_RELAXED);
    return KUMI_OK;
}

/* Connects to every PE below me; the hello waits in the send buffer and
 * goes out when the socket is writable. */
int kumi_tcp_start_connects(struct kumi_tcp *s)
{
    for (int pe = 0; pe < s->rank; pe++) {
        struct kumi_tcp_conn   *c = &s->conn[pe];
        struct sockaddr_storage ss;
        socklen_t               sl = kumi_tcp_ep_sa(&s->table[pe], &ss);
        struct kumi_tcp_hello   h = {
            .magic = KUMI_TCP_MAGIC, .version = KUMI_TCP_VERSION,
            .src_rank = (uint32_t)s->rank, .dst_rank = (uint32_t)pe, .size = (uint32_t)s->size,
        };

        kumi_tcp_sa_name(&ss, c->name, sizeof(c->name));
        c->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (c->fd < 0 || kumi_tcp_sock_tune(c->fd) != 0
            || (connect(c->fd, (struct sockaddr *)&ss, sl) != 0 && errno != EINPROGRESS)) {
            fprintf(stderr, "kumi[%d]: kumi_init: tcp: cannot connect to PE %d at %s: %s\n",
                    s->rank, pe, c->name, strerror(errno));
            return KUMI_ERR_TRANSPORT;
        }
        memcpy(h.key, s->key, sizeof(h.key));
        if (kumi_tcp_tx_append(c, &h, sizeof(h)) != 0)
            return KUMI_ERR_NOMEM;
        c->state = KUMI_TCP_CONNECTING;
        c->pollout = -1;
        kumi_tcp_set_events(s, c, 1);
    }
    return KUMI_OK;
}

void kumi_tcp_connecting_ready(struct kumi_tcp *s, struct kumi_tcp_conn *c)
{
    int       e = 0;
    socklen_t l = sizeof(e);

    if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &l) != 0)
        e = errno;
    if (e != 0) {
        kumi_tcp_conn_lost(s, c, "cannot connect: %s", strerror(e));
        return;
    }
    c->state = KUMI_TCP_UP;      /* frames may follow the hello at once */
    kumi_tcp_flush(s, c);
}

static void kumi_tcp_reject(struct kumi_tcp *s, int slot, const char *why)
{
    struct kumi_tcp_pend *p = &s->pend[slot];

    if (s->rejected++ < KUMI_TCP_REJECT_LOG)
        fprintf(stderr, "kumi[%d]: tcp: rejected connection from %s: %s%s\n", s->rank, p->name,
                why, s->rejected == KUMI_TCP_REJECT_LOG ? " (further rejections not logged)" : "");
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, p->fd, NULL);
    close(p->fd);
    p->fd = -1;
}

void kumi_tcp_accept(struct kumi_tcp *s)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t               sl = sizeof(ss);
        int                     fd = accept4(s->lfd, (struct sockaddr *)&ss, &sl,
                                             SOCK_NONBLOCK | SOCK_CLOEXEC);
        int                     slot = -1;

        if (fd < 0)
            return;
        for (int i = 0; i < KUMI_TCP_PENDING && slot < 0; i++)
            if (s->pend[i].fd < 0)
                slot = i;
        if (slot < 0) {
            if (s->rejected++ < KUMI_TCP_REJECT_LOG)
                fprintf(stderr, "kumi[%d]: tcp: rejected a connection: too many without a "
                        "hello\n", s->rank);
            close(fd);
            continue;
        }
        struct kumi_tcp_pend *p = &s->pend[slot];
        p->fd       = fd;
        p->have     = 0;
        p->deadline = kumi_tcp_now() + KUMI_TCP_HELLO_S;
        kumi_tcp_sa_name(&ss, p->name, sizeof(p->name));
        kumi_tcp_sock_tune(fd);
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = KUMI_TCP_EV(KUMI_TCP_EV_PEND, slot) };
        epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
    }
}

/* Constant time: how long a wrong key takes says nothing about it. */
static int kumi_tcp_key_ok(const uint8_t *a, const uint8_t *b)
{
    volatile uint8_t d = 0;

    for (int i = 0; i < KUMI_JOB_KEY_BYTES; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

void kumi_tcp_pend_read(struct kumi_tcp *s, int slot)
{
    struct kumi_tcp_pend  *p = &s->pend[slot];
    struct kumi_tcp_hello *h = &p->hello;
    struct kumi_tcp_conn  *c;
    ssize_t                n;

    /* exactly the hello: anything after it is frames, read by the engine */
    n = recv(p->fd, (uint8_t *)h + p->have, sizeof(*h) - p->have, 0);
    if (n == 0) {
        kumi_tcp_reject(s, slot, "closed before its hello");
        return;
    }
    if (n < 0) {
        if (errno != EAGAIN && errno != EINTR)
            kumi_tcp_reject(s, slot, strerror(errno));
        return;
    }
    p->have += (size_t)n;
    if (h->magic != KUMI_TCP_MAGIC && p->have >= sizeof(h->magic)) {
        kumi_tcp_reject(s, slot, "not a kumi hello");
        return;
    }
    if (p->have < sizeof(*h))
        return;
    if (h->version != KUMI_TCP_VERSION || h->reserved != 0 || h->reserved2 != 0) {
        kumi_tcp_reject(s, slot, "unsupported hello version");
        return;
    }
    if (!kumi_tcp_key_ok(h->key, s->key)) {
        kumi_tcp_reject(s, slot, "wrong job key");
        return;
    }
    if (h->dst_rank != (uint32_t)s->rank || h->size != (uint32_t)s->size
        || h->src_rank >= (uint32_t)s->size || h->src_rank <= (uint32_t)s->rank) {
        kumi_tcp_reject(s, slot, "hello names the wrong PEs or job size");
        return;
    }
    c = &s->conn[h->src_rank];
    if (c->state != KUMI_TCP_DOWN) {
        kumi_tcp_reject(s, slot, "that PE is already connected");
        return;
    }
    c->fd    = p->fd;
    c->state = KUMI_TCP_UP;
    snprintf(c->name, sizeof(c->name), "%s", p->name);
    p->fd = -1;
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = KUMI_TCP_EV(KUMI_TCP_EV_CONN, c->pe) };
    epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
    c->pollout = 0;
}

void kumi_tcp_pend_sweep(struct kumi_tcp *s, double now)
{
    for (int i = 0; i < KUMI_TCP_PENDING; i++)
        if (s->pend[i].fd >= 0 && now > s->pend[i].deadline)
            kumi_tcp_reject(s, i, "no hello in time");
}

void kumi_tcp_lost_report(struct kumi_tcp *s, double now, int final)
{
    uint32_t held = 2, failed;

    if (__atomic_load_n(&s->lost_state, __ATOMIC_ACQUIRE) != 2)
        return;
    /* kumirun (or the rendezvous) writes the status, then failed: a status
     * seen now means failed is settled by the next tick */
    if (!final && !s->lost_verdict && now < s->lost_until) {
        s->lost_verdict = __atomic_load_n(s->tp->fail_status, __ATOMIC_ACQUIRE)
                          != KUMI_TP_STATUS_UNKNOWN;
        return;
    }
    failed = __atomic_load_n(s->tp->failed, __ATOMIC_ACQUIRE);
    if (__atomic_compare_exchange_n(&s->lost_state, &held, 3, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED) && !kumi_tp_fail_is_exit(failed))
        fprintf(stderr, "%s\n", s->lost_line);
}

/* The rendezvous channel: heartbeats both ways, and kumirun's word that
 * the job fails (or its silence). Served by one thread at a time without
 * the engine's lock (main before the progress thread starts, then the
 * holder of rdv_busy: kumi_tcp_rdv_poll), every 10 ms: the service is one non-blocking
 * read, and kumirun's FAIL notice waits no longer than that. */
void kumi_tcp_rdv_tick(struct kumi_tcp *s, double now)
{
    uint32_t failed = 0;
    int32_t  status = 1;

    kumi_tcp_lost_report(s, now, 0);

    /* A PE on another host has nobody to kill it once its job is gone
     * (ssh does not forward kumirun's SIGKILL): one that has not ended by
     * itself within the grace (a program computing without kumi calls, or
     * stuck outside kumi) ends here. */
    if (s->orphan_at > 0 && now >= s->orphan_at && !s->closing) {
        if (!kumi_tp_fail_is_exit(__atomic_load_n(s->tp->failed, __ATOMIC_ACQUIRE)))
            fprintf(stderr, "kumi[%d]: tcp: the job failed and this PE did not end within "
                    "%.0f s; exiting (a PE on another host does not outlive its job)\n",
                    s->rank, KUMI_TCP_ORPHAN_GRACE_S);
        _exit(s->orphan_status);
    }
    if (!s->rdv_on)
        return;
    double next = now + 0.01;
    __atomic_store(&s->rdv_next, &next, __ATOMIC_RELAXED);
    if (kumi_rdv_service(&s->rdv, now, &failed, &status) != 0) {
        s->rdv_on = 0;
        if (!s->closing) {
            if (failed == 0)
                failed = KUMI_TP_FAIL_LAUNCHER;
            kumi_tp_fail(s->tp, failed, status);
            if (s->remote && kumi_tp_fail_is_exit(failed)) {
                s->orphan_at     = now + KUMI_TCP_ORPHAN_EXIT_S;
                s->orphan_status = status;   /* 0..255, the status asked for */
            } else if (s->remote) {
                s->orphan_at     = now + KUMI_TCP_ORPHAN_GRACE_S;
                s->orphan_status = status > 0 && status < 256 ? status : 1;
            }
        }
    }
}
