/*
 * kumi_bench_tcp.c -- the limits of the socket path, for transports that do
 * not map peers' memory (tcp): what PEs 0 and 1 get from one plain loopback
 * TCP socket with no runtime in the loop.
 *
 *   one-way  PE 0 sends 8 bytes, PE 1 sends them back (TCP_NODELAY on
 *            both ends; the receiver spins on a non-blocking recv, as a
 *            polling runtime does, so no thread wake-up is counted); half
 *            a round trip is the floor under an 8-byte message: a kick, a
 *            flag, a barrier step.
 *   stream   PE 0 sends 1 MiB messages back to back over the socket, PE 1
 *            receives each one whole into one reused buffer; PE 0's clock
 *            stops at PE 1's one-byte reply after the last message. The
 *            floor under any bulk transfer (put, get, collectives, rings).
 *
 * PE 0 listens on 127.0.0.1 (an ephemeral port) and publishes the port in
 * symmetric memory; PE 1 reads it with kumi_get and connects. Where that
 * fails (PEs on two hosts: loopback does not reach PE 0) the limits are
 * not measured and x_limit is `-`; the run goes on.
 */
#include "kumi_bench.h"
#include "kumi_bench_trials.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define KB_TCP_MSG        ((size_t)1 << 20)
#define KB_TCP_ACCEPT_MS  5000

static _Noreturn void kb_tcp_die(const char *what)
{
    fprintf(stderr, "kumi-bench[%d]: limit: tcp %s: %s\n", kb.me, what, strerror(errno));
    exit(1);
}

static void kb_tcp_send(int fd, const void *buf, size_t n)
{
    const char *p = buf;

    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            kb_tcp_die("send");
        p += k;
        n -= (size_t)k;
    }
}

/* Receives exactly n bytes: blocking (MSG_WAITALL), or spinning on a
 * non-blocking recv (spin: the latency floor of a polling receiver). */
static void kb_tcp_recv_how(int fd, void *buf, size_t n, int spin)
{
    char *p = buf;

    while (n > 0) {
        ssize_t k = recv(fd, p, n, spin ? MSG_DONTWAIT : MSG_WAITALL);
        if (k < 0 && (errno == EINTR || (spin && (errno == EAGAIN || errno == EWOULDBLOCK))))
            continue;
        if (k == 0)
            errno = ECONNRESET;
        if (k <= 0)
            kb_tcp_die("recv");
        p += k;
        n -= (size_t)k;
    }
}

static void kb_tcp_recv(int fd, void *buf, size_t n)
{
    kb_tcp_recv_how(fd, buf, n, 0);
}

static void kb_tcp_recv_spin(int fd, void *buf, size_t n)
{
    kb_tcp_recv_how(fd, buf, n, 1);
}

static int kb_tcp_nodelay(int fd)
{
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* PE 0: a listening socket on 127.0.0.1; *port 0 on failure. */
static int kb_tcp_listen(uint64_t *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t          len = sizeof a;
    int                fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    *port = 0;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1) != 0
        || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        fprintf(stderr, "kumi-bench[0]: limit: tcp listen on 127.0.0.1: %s\n", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* PE 1: connects to PE 0's port on 127.0.0.1; -1 on failure. */
static int kb_tcp_connect(uint64_t port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int                fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0 || kb_tcp_nodelay(fd) != 0) {
        fprintf(stderr, "kumi-bench[1]: limit: tcp connect to 127.0.0.1:%llu: %s\n",
                (unsigned long long)port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* PE 0: the connection PE 1 made, within KB_TCP_ACCEPT_MS; -1 if none. */
static int kb_tcp_accept(int lfd)
{
    struct pollfd p = { .fd = lfd, .events = POLLIN };
    int           fd = -1;

    if (poll(&p, 1, KB_TCP_ACCEPT_MS) == 1)
        fd = accept(lfd, NULL, NULL);
    if (fd >= 0 && kb_tcp_nodelay(fd) != 0) {
        close(fd);
        fd = -1;
    }
    if (fd < 0)
        fprintf(stderr, "kumi-bench[0]: limit: tcp accept: %s\n",
                errno ? strerror(errno) : "PE 1 did not connect");
    return fd;
}

/* The socket between PEs 0 and 1 (-1 on other PEs); collective. Returns
 * KUMI_OK on every PE when both ends have it, else KUMI_ERR_UNSUPPORTED. */
static int kb_tcp_pair(uint64_t *sym_port, int *out)
{
    uint64_t port = 0;
    int      lfd = -1, fd = -1, rc;

    if (kb.me == 0) {
        lfd = kb_tcp_listen(&port);
        *sym_port = port;
    }
    kb_barrier("limit");
    if (kb.me == 1) {
        if ((rc = kumi_get(&port, sym_port, sizeof port, 0)) != KUMI_OK)
            kb_die("limit", "kumi_get", rc);
        fd = port != 0 ? kb_tcp_connect(port) : -1;
    }
    kb_barrier("limit");   /* PE 1 has connected (or given up) */
    if (kb.me == 0 && lfd >= 0) {
        errno = 0;
        fd = kb_tcp_accept(lfd);
        close(lfd);
    }
    rc = kb_agree("limit", "socket", kb.me > 1 || fd >= 0 ? KUMI_OK : KUMI_ERR_UNSUPPORTED);
    if (rc != KUMI_OK && fd >= 0) {
        close(fd);
        fd = -1;
    }
    *out = fd;
    return rc;
}

struct kb_tcp_run {
    int      fd;
    uint64_t v;     /* one-way: the value going round        */
    uint64_t m;     /* stream: the next message's number     */
    uint8_t *buf;   /* stream: one message                   */
};

static void kb_tcp_oneway_trial(void *arg, long n)
{
    struct kb_tcp_run *r = arg;

    for (long i = 0; i < n; i++) {
        if (kb.me == 0) {
            r->v++;
            kb_tcp_send(r->fd, &r->v, sizeof r->v);
            kb_tcp_recv_spin(r->fd, &r->v, sizeof r->v);
        } else {
            kb_tcp_recv_spin(r->fd, &r->v, sizeof r->v);
            kb_tcp_send(r->fd, &r->v, sizeof r->v);
        }
    }
}

static void kb_tcp_oneway(struct kb_stat *st, int fd, int trials, long rounds)
{
    struct kb_tcp_run r = { .fd = fd };

    st->bytes = sizeof r.v;
    kb_trials(st, trials, rounds, 2, kb_tcp_oneway_trial, &r);
}

/* Message numbers run on across trials; each message's first word carries
 * its number, checked by PE 1: a broken stream is an error, not a number. */
static void kb_tcp_stream_trial(void *arg, long n)
{
    struct kb_tcp_run *r = arg;
    uint8_t           *buf = r->buf;
    char               done = 1;

    for (long i = 0; i < n; i++, r->m++) {
        if (kb.me == 0) {
            memcpy(buf, &r->m, sizeof r->m);
            kb_tcp_send(r->fd, buf, KB_TCP_MSG);
        } else {
            uint64_t got;
            kb_tcp_recv(r->fd, buf, KB_TCP_MSG);
            memcpy(&got, buf, sizeof got);
            if (got != r->m) {
                fprintf(stderr, "kumi-bench[1]: limit: tcp message %llu arrived as %llu\n",
                        (unsigned long long)r->m, (unsigned long long)got);
                exit(1);
            }
        }
    }
    if (kb.me == 0)   /* the clock stops when the last byte is in */
        kb_tcp_recv(r->fd, &done, 1);
    else
        kb_tcp_send(r->fd, &done, 1);
}

static void kb_tcp_stream(struct kb_stat *st, int fd, int trials, long msgs)
{
    struct kb_tcp_run r = { .fd = fd };

    st->bytes = KB_TCP_MSG;
    if (kb.me < 2) {
        r.buf = kb_xmalloc("limit", KB_TCP_MSG);
        memset(r.buf, 0x5a, KB_TCP_MSG);
    }
    kb_trials(st, trials, msgs, 1, kb_tcp_stream_trial, &r);
    free(r.buf);
}

int kb_limit_tcp(struct kb_limit *lim, int full, long rounds)
{
    uint64_t *port = kb_sym_alloc("limit", sizeof *port);
    int       fd, rc = kb_tcp_pair(port, &fd);

    if (rc == KUMI_OK) {
        kb_tcp_oneway(&lim->oneway, fd, full ? 10 : 5, full ? rounds : 500);
        kb_tcp_stream(&lim->stream, fd, full ? 10 : 3, full ? 256 : 32);
    }
    if (fd >= 0)
        close(fd);
    kumi_free(port);
    return rc;
}
