/*
 * tcp_conn.c -- how tcp connections come to be: the listener (open all job
 * long, so late intruders are turned away too), the exchange of endpoints
 * through the bootstrap, the full mesh (PE i connects to every PE below it and accepts
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
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/random.h>
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
        return KUMI_ERR_TRANSPORT;
    /* small frames are coalesced by us; the kernel must not wait too */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        return KUMI_ERR_TRANSPORT;
    return KUMI_OK;
}

/* A connection whose two ends have the same address stays on this host
 * (loopback, or this host's own address: the kernel routes both through
 * lo). There it uses Reno congestion control, whatever the system's
 * default: on lo nothing is lost to congestion, and BBR (a common default)
 * paces and sizes its window from a bandwidth and round-trip estimate
 * taken as the job starts, which holds a stream of large frames at one of
 * several speeds for the whole run (1 MiB send-bw, 2026-11-27: BBR 158-270
 * us a message from run to run, Reno 94-97; README.md). Best effort: a
 * kernel without Reno keeps its default. */
void kumi_tcp_sock_local(int fd)
{
    struct sockaddr_storage a, b;
    socklen_t               la = sizeof(a), lb = sizeof(b);
    static const char       reno[] = "reno";

    if (getsockname(fd, (struct sockaddr *)&a, &la) != 0
        || getpeername(fd, (struct sockaddr *)&b, &lb) != 0 || a.ss_family != b.ss_family)
        return;
    if (a.ss_family == AF_INET
        && ((struct sockaddr_in *)&a)->sin_addr.s_addr != ((struct sockaddr_in *)&b)->sin_addr.s_addr)
        return;
    if (a.ss_family == AF_INET6
        && memcmp(&((struct sockaddr_in6 *)&a)->sin6_addr, &((struct sockaddr_in6 *)&b)->sin6_addr,
                  sizeof(struct in6_addr)) != 0)
        return;
    if (a.ss_family != AF_INET && a.ss_family != AF_INET6)
        return;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, reno, sizeof(reno) - 1);
}

/* This host's address the other hosts reach: the first IPv4 address of
 * an interface that is up and not loopback; NULL when there is none. */
static const char *kumi_tcp_host_addr(char *buf, size_t len)
{
    struct ifaddrs *ifs, *i;
    const char     *found = NULL;

    if (getifaddrs(&ifs) != 0)
        return NULL;
    for (i = ifs; i != NULL && found == NULL; i = i->ifa_next)
        if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET &&
            (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK) &&
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf,
                      (socklen_t)len) != NULL)
            found = buf;
    freeifaddrs(ifs);
    return found;
}

int kumi_tcp_setup_listen(struct kumi_tcp *s, const char *addr, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t               sl;
    char                    mine[INET6_ADDRSTRLEN];

    /* the launcher's choice; else loopback on one host; else this
     * host's first address that others can reach */
    if ((addr == NULL || *addr == '\0') && s->boot->nodes > 1 &&
        (addr = kumi_tcp_host_addr(mine, sizeof(mine))) == NULL) {
        snprintf(err, errlen, "the job spans %d hosts, and this one has no network address "
                 "that is up (set KUMI_TCP_ADDR)", s->boot->nodes);
        return KUMI_ERR_TRANSPORT;
    }
    if (addr == NULL || *addr == '\0')
        addr = "127.0.0.1";
    memset(&s->mine, 0, sizeof(s->mine));
    if (inet_pton(AF_INET, addr, s->mine.addr) == 1) {
        s->mine.family = 4;
    } else if (inet_pton(AF_INET6, addr, s->mine.addr) == 1) {
        s->mine.family = 6;
    } else {
        snprintf(err, errlen, "KUMI_TCP_ADDR=%s is not a numeric IPv4 or IPv6 address", addr);
        return KUMI_ERR_INVALID;
    }
    sl = kumi_tcp_ep_sa(&s->mine, &ss);   /* port 0: ephemeral */
    s->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&ss, sl) != 0
        || listen(s->lfd, 128) != 0 || getsockname(s->lfd, (struct sockaddr *)&ss, &sl) != 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", addr, strerror(errno));
        return KUMI_ERR_TRANSPORT;
    }
    s->mine.port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                                 : ((struct sockaddr_in6 *)&ss)->sin6_port);
    return KUMI_OK;
}

static void kumi_tcp_ep_encode(uint8_t *p, const struct kumi_tcp_ep *ep, const uint8_t *key)
{
    p[0] = ep->family;
    p[1] = 0;
    p[2] = (uint8_t)ep->port;
    p[3] = (uint8_t)(ep->port >> 8);
    memcpy(p + 4, ep->addr, 16);
    memcpy(p + 20, key, KUMI_JOB_KEY_BYTES);
}

static int kumi_tcp_ep_decode(const uint8_t *p, struct kumi_tcp_ep *ep)
{
    uint16_t port = (uint16_t)(p[2] | p[3] << 8);

    if ((p[0] != 4 && p[0] != 6) || p[1] != 0 || port == 0)
        return KUMI_ERR_INVALID;
    ep->family   = p[0];
    ep->reserved = 0;
    ep->port     = port;
    memcpy(ep->addr, p + 4, 16);
    return KUMI_OK;
}

int kumi_tcp_exchange(struct kumi_tcp *s)
{
    const struct kumi_tp_boot *b = s->boot;
    uint8_t                    mine[KUMI_TCP_BOOT_BYTES], key[KUMI_JOB_KEY_BYTES], *all;
    int                        rc;

    /* PE 0's key is the job's: nobody outside the job learns it (the
     * bootstrap's exchange is private to the job) */
    if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "cannot make a key: getrandom: %s",
                    strerror(errno));
        return KUMI_ERR_TRANSPORT;
    }
    kumi_tcp_ep_encode(mine, &s->mine, key);
    all = malloc((size_t)s->size * KUMI_TCP_BOOT_BYTES);
    if (all == NULL)
        return KUMI_ERR_NOMEM;
    rc = b->allgather(b, mine, all, KUMI_TCP_BOOT_BYTES);
    for (int pe = 0; rc == KUMI_OK && pe < s->size; pe++)
        if (kumi_tcp_ep_decode(all + (size_t)pe * KUMI_TCP_BOOT_BYTES, &s->table[pe]) != KUMI_OK) {
            kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "PE %d published a malformed endpoint "
                        "(through the %s bootstrap)", pe, b->name);
            rc = KUMI_ERR_TRANSPORT;
        }
    if (rc == KUMI_OK)
        memcpy(s->key, all + 20, KUMI_JOB_KEY_BYTES);
    memset(key, 0, sizeof(key));
    memset(mine, 0, sizeof(mine));
    free(all);
    if (rc != KUMI_OK)
        return rc;
    double now  = kumi_tp_now();
    s->boot_on  = b->poll != NULL;
    __atomic_store(&s->boot_next, &now, __ATOMIC_RELAXED);
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
        if (c->fd < 0 || kumi_tcp_sock_tune(c->fd) != KUMI_OK
            || (connect(c->fd, (struct sockaddr *)&ss, sl) != 0 && errno != EINPROGRESS)) {
            kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "cannot connect to PE %d at %s: %s", pe,
                        c->name, strerror(errno));
            return KUMI_ERR_TRANSPORT;
        }
        memcpy(h.key, s->key, sizeof(h.key));
        if (kumi_tcp_tx_append(c, &h, sizeof(h)) != KUMI_OK)
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
    kumi_tcp_sock_local(c->fd);
    kumi_tcp_flush(s, c);
}

static void kumi_tcp_reject(struct kumi_tcp *s, int slot, const char *why)
{
    struct kumi_tcp_pend *p = &s->pend[slot];

    if (s->rejected++ < KUMI_TCP_REJECT_LOG)
        kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "rejected connection from %s: %s%s", p->name, why,
                    s->rejected == KUMI_TCP_REJECT_LOG ? " (further rejections not logged)" : "");
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
                kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "rejected a connection: too many without "
                            "a hello");
            close(fd);
            continue;
        }
        struct kumi_tcp_pend *p = &s->pend[slot];
        p->fd       = fd;
        p->have     = 0;
        p->deadline = kumi_tp_now() + KUMI_TCP_HELLO_S;
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
    kumi_tcp_sock_local(c->fd);
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
    /* the launcher (or its channel) writes the status, then failed: a status
     * seen now means failed is settled by the next tick */
    if (!final && !s->lost_verdict && now < s->lost_until) {
        s->lost_verdict = __atomic_load_n(s->tp->fail_status, __ATOMIC_ACQUIRE)
                          != KUMI_TP_STATUS_UNKNOWN;
        return;
    }
    failed = __atomic_load_n(s->tp->failed, __ATOMIC_ACQUIRE);
    if (__atomic_compare_exchange_n(&s->lost_state, &held, 3, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED) && !kumi_tp_fail_is_exit(failed))
        kumi_tp_log(KUMI_TP_LOG_ERROR, "tcp", "%s", s->lost_line);
}

/* The bootstrap's channel to the launcher (kumirun's rendezvous:
 * heartbeats both ways, its word that the job fails, or its silence), and
 * the lost-connection line held for that word. Served by one thread at a
 * time without the engine's lock (main before the progress thread
 * starts, then the holder of boot_busy: kumi_tcp_boot_poll), every 10 ms:
 * the service is one non-blocking read, and the launcher's FAIL notice
 * waits no longer than that. */
void kumi_tcp_boot_tick(struct kumi_tcp *s, double now)
{
    kumi_tcp_lost_report(s, now, 0);
    double next = now + KUMI_TP_BOOT_POLL_S;
    __atomic_store(&s->boot_next, &next, __ATOMIC_RELAXED);
    if (s->boot_on && !s->closing)
        s->boot->poll(s->boot, now);
}
