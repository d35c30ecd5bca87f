/*
 * rdv.c -- kumirun <-> PE rendezvous and control channel (see rdv.h).
 *
 * Wire format, private to this file, little-endian like wire.h. Every
 * message is an 8-byte header { u8 type, u8 version, u16 0, u32 len }
 * followed by len bytes; each type has one exact length (TABLE: one per
 * job size), checked before a payload byte is read, so a peer can never
 * make either side buffer more than it expects.
 *
 *   HELLO  PE -> kumirun   u32 magic, u32 rank, u32 size, u32 0,
 *                          key[16], endpoint (20)
 *   TABLE  kumirun -> PE   u32 size, size endpoints (20 each)
 *   HB     both ways       empty
 *   FAIL   kumirun -> PE   u32 failed, i32 status (failed may be
 *                          KUMI_TP_FAIL_EXIT | (1 + PE): that PE asked the
 *                          job to end, with status)
 *   BYE    PE -> kumirun   u32 finalized
 *   EXIT   PE -> kumirun   u32 status: end the job (kumi_global_exit);
 *                          kumirun answers every PE, this one too, with FAIL
 *
 * An endpoint is { u8 family, u8 0, u16 port, u8 addr[16] }.
 */
#include "rdv.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RDV_VERSION      2                    /* 2: EXIT                   */
#define RDV_MAGIC        0x5644524bu          /* "KRDV" little-endian      */
#define RDV_HDR          8
#define RDV_EP           20
#define RDV_HELLO_LEN    (16 + KUMI_JOB_KEY_BYTES + RDV_EP)
#define RDV_IN_MAX       128                  /* > header + largest PE message */
#define RDV_PENDING_MAX  64                   /* unauthenticated connections */
#define RDV_HELLO_S      5.0                  /* time to say hello            */
#define RDV_LOG_MAX      10                   /* rejections logged one by one */
#define RDV_MAX_PES      65536

enum { RDV_HELLO = 1, RDV_TABLE, RDV_HB, RDV_FAIL, RDV_BYE, RDV_EXIT };

_Static_assert(sizeof(struct kumi_tcp_ep) == RDV_EP, "endpoint is 20 bytes");

/* ------------------------------------------------------------ common */

double kumi_rdv_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void rdv_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void rdv_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t rdv_get16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t rdv_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void rdv_put_hdr(uint8_t *p, int type, uint32_t len)
{
    p[0] = (uint8_t)type;
    p[1] = RDV_VERSION;
    rdv_put16(p + 2, 0);
    rdv_put32(p + 4, len);
}

static void rdv_put_ep(uint8_t *p, const struct kumi_tcp_ep *ep)
{
    p[0] = ep->family;
    p[1] = 0;
    rdv_put16(p + 2, ep->port);
    memcpy(p + 4, ep->addr, 16);
}

static int rdv_get_ep(const uint8_t *p, struct kumi_tcp_ep *ep)
{
    if ((p[0] != 4 && p[0] != 6) || p[1] != 0 || rdv_get16(p + 2) == 0)
        return -1;
    ep->family   = p[0];
    ep->reserved = 0;
    ep->port     = rdv_get16(p + 2);
    memcpy(ep->addr, p + 4, 16);
    return 0;
}

/* The only length a message of this type may have; -1 for a bad type. */
static long rdv_expected_len(int type, int npes)
{
    switch (type) {
    case RDV_HELLO: return RDV_HELLO_LEN;
    case RDV_TABLE: return 4 + (long)npes * RDV_EP;
    case RDV_HB:    return 0;
    case RDV_FAIL:  return 8;
    case RDV_BYE:   return 4;
    case RDV_EXIT:  return 4;
    default:        return -1;
    }
}

/* Validates a header for a receiver that accepts the types in mask. */
static long rdv_check_hdr(const uint8_t *p, unsigned mask, int npes)
{
    long want = rdv_expected_len(p[0], npes);

    if (p[1] != RDV_VERSION || rdv_get16(p + 2) != 0 || want < 0 ||
        !(mask & (1u << p[0])) || rdv_get32(p + 4) != (uint32_t)want)
        return -1;
    return want;
}

/* The job key must not leak through timing, even though a wrong one only
 * costs a connection. */
static int rdv_key_equal(const uint8_t *a, const uint8_t *b)
{
    volatile uint8_t diff = 0;

    for (int i = 0; i < KUMI_JOB_KEY_BYTES; i++)
        diff |= (uint8_t)(a[i] ^ b[i]);
    return diff == 0;
}

/* "a.b.c.d:port" or "[v6]:port" */
static int rdv_parse_addr(const char *text, struct sockaddr_storage *ss, socklen_t *len)
{
    char          host[INET6_ADDRSTRLEN + 2], *end;
    const char   *colon = strrchr(text, ':');
    size_t        hl;
    unsigned long port;

    if (colon == NULL || colon[1] < '0' || colon[1] > '9')
        return -1;
    errno = 0;
    port = strtoul(colon + 1, &end, 10);
    if (errno != 0 || *end != '\0' || port == 0 || port > 65535)
        return -1;
    hl = (size_t)(colon - text);
    if (hl >= 2 && text[0] == '[' && text[hl - 1] == ']') {
        text++;
        hl -= 2;
    }
    if (hl == 0 || hl >= sizeof(host))
        return -1;
    memcpy(host, text, hl);
    host[hl] = '\0';
    memset(ss, 0, sizeof(*ss));
    struct sockaddr_in  *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port   = htons((uint16_t)port);
        *len           = sizeof(*v4);
        return 0;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port   = htons((uint16_t)port);
        *len            = sizeof(*v6);
        return 0;
    }
    return -1;
}

static void rdv_format_addr(const struct sockaddr_storage *ss, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";

    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
        snprintf(buf, len, "%s:%u", host, ntohs(v4->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
        snprintf(buf, len, "[%s]:%u", host, ntohs(v6->sin6_port));
    } else {
        snprintf(buf, len, "?");
    }
}

/* ------------------------------------------------------------ client */

int kumi_rdv_parse_key(const char *hex, uint8_t key[KUMI_JOB_KEY_BYTES])
{
    uint8_t out[KUMI_JOB_KEY_BYTES];

    if (hex == NULL || strlen(hex) != 2 * KUMI_JOB_KEY_BYTES)
        return -1;
    for (int i = 0; i < 2 * KUMI_JOB_KEY_BYTES; i++) {
        char c = hex[i];
        int  v = c >= '0' && c <= '9' ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (v < 0)
            return -1;
        out[i / 2] = (uint8_t)(i % 2 == 0 ? v << 4 : out[i / 2] | v);
    }
    memcpy(key, out, sizeof(out));
    return 0;
}

/* Waits for events on fd until deadline; 1 ready, 0 timed out, -1 error. */
static int rdv_wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double        left = deadline - kumi_rdv_now();
        struct pollfd p    = { .fd = fd, .events = events };
        int           rc;

        if (left <= 0)
            return 0;
        rc = poll(&p, 1, (int)(left * 1000) + 1);
        if (rc > 0)
            return 1;
        if (rc < 0 && errno != EINTR)
            return -1;
    }
}

/* Sends all of buf on a non-blocking socket before deadline. */
static int rdv_send_all(int fd, const uint8_t *buf, size_t len, double deadline)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            if (rdv_wait_fd(fd, POLLOUT, deadline) <= 0)
                return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

/* Reads exactly len bytes before deadline; 0, or -1 with errno (0 = EOF,
 * ETIMEDOUT = silence). */
static int rdv_recv_all(int fd, uint8_t *buf, size_t len, double deadline)
{
    while (len > 0) {
        ssize_t n = recv(fd, buf, len, 0);

        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n == 0) {
            errno = 0;
            return -1;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN) {
            int rc = rdv_wait_fd(fd, POLLIN, deadline);
            if (rc <= 0) {
                errno = rc == 0 ? ETIMEDOUT : errno;
                return -1;
            }
        } else {
            return -1;
        }
    }
    return 0;
}

static int rdv_connect(const char *rdv, double deadline, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t               sl;
    int                     fd, soerr = 0, rc;
    socklen_t               el = sizeof(soerr);

    if (rdv_parse_addr(rdv, &ss, &sl) != 0) {
        snprintf(err, errlen, "rendezvous address '%s' is not addr:port", rdv);
        return -1;
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "rendezvous %s: socket: %s", rdv, strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&ss, sl) != 0 && errno != EINPROGRESS) {
        snprintf(err, errlen, "cannot reach the rendezvous at %s: %s", rdv, strerror(errno));
        close(fd);
        return -1;
    }
    rc = rdv_wait_fd(fd, POLLOUT, deadline);
    if (rc <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &el) != 0 || soerr != 0) {
        snprintf(err, errlen, "cannot reach the rendezvous at %s: %s", rdv,
                 rc == 0 ? "timed out" : strerror(soerr != 0 ? soerr : errno));
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

static int rdv_client_send(struct kumi_rdv_client *c, int type, const uint8_t *payload,
                           uint32_t len, double now)
{
    uint8_t msg[RDV_HDR + 8];

    rdv_put_hdr(msg, type, len);
    if (len > 0)
        memcpy(msg + RDV_HDR, payload, len);
    /* tiny messages: a full socket buffer here means kumirun stopped
     * reading, which silence detection on its side handles */
    if (rdv_send_all(c->fd, msg, RDV_HDR + len, now + 0.2) != 0)
        return -1;
    c->last_tx = now;
    return 0;
}

/* Reads the TABLE payload (header already checked) into table. */
static int rdv_read_table(int fd, int size, const struct kumi_tcp_ep *mine, int rank,
                          struct kumi_tcp_ep *table, double deadline, const char *rdv,
                          char *err, size_t errlen)
{
    uint8_t buf[RDV_EP * 32];

    if (rdv_recv_all(fd, buf, 4, deadline) != 0 || rdv_get32(buf) != (uint32_t)size)
        goto bad;
    for (int i = 0; i < size; i += 32) {
        int n = size - i < 32 ? size - i : 32;

        if (rdv_recv_all(fd, buf, (size_t)n * RDV_EP, deadline) != 0)
            goto bad;
        for (int k = 0; k < n; k++)
            if (rdv_get_ep(buf + k * RDV_EP, &table[i + k]) != 0)
                goto bad;
    }
    if (table[rank].family != mine->family || table[rank].port != mine->port ||
        memcmp(table[rank].addr, mine->addr, 16) != 0)
        goto bad;
    return 0;
bad:
    snprintf(err, errlen, "rendezvous at %s sent a malformed endpoint table", rdv);
    return -1;
}

int kumi_rdv_join(struct kumi_rdv_client *c, const char *rdv,
                  const uint8_t key[KUMI_JOB_KEY_BYTES], int rank, int size,
                  const struct kumi_tcp_ep *mine, struct kumi_tcp_ep *table,
                  double timeout_s, char *err, size_t errlen)
{
    double  deadline = kumi_rdv_now() + timeout_s;
    uint8_t hello[RDV_HDR + RDV_HELLO_LEN], *p = hello + RDV_HDR;

    memset(c, 0, sizeof(*c));
    c->fd = -1;
    if (rank < 0 || size < 1 || size > RDV_MAX_PES || rank >= size ||
        (mine->family != 4 && mine->family != 6) || mine->port == 0) {
        snprintf(err, errlen, "rendezvous: bad join arguments (rank %d, size %d, family %u, "
                 "port %u)", rank, size, mine->family, mine->port);
        return -1;
    }
    c->fd = rdv_connect(rdv, deadline, err, errlen);
    if (c->fd < 0)
        return -1;

    rdv_put_hdr(hello, RDV_HELLO, RDV_HELLO_LEN);
    rdv_put32(p, RDV_MAGIC);
    rdv_put32(p + 4, (uint32_t)rank);
    rdv_put32(p + 8, (uint32_t)size);
    rdv_put32(p + 12, 0);
    memcpy(p + 16, key, KUMI_JOB_KEY_BYTES);
    rdv_put_ep(p + 16 + KUMI_JOB_KEY_BYTES, mine);
    c->last_rx = c->last_tx = kumi_rdv_now();
    if (rdv_send_all(c->fd, hello, sizeof(hello), deadline) != 0) {
        snprintf(err, errlen, "rendezvous at %s: cannot send hello: %s", rdv, strerror(errno));
        goto fail;
    }

    /* Others may take a while to join: keep the heartbeat going meanwhile,
     * so that kumirun can tell a slow job from a vanished PE. */
    for (;;) {
        double now = kumi_rdv_now(), wake = c->last_tx + KUMI_RDV_HEARTBEAT_S;
        long   len;
        int    rc;

        if (now >= deadline) {
            snprintf(err, errlen, "rendezvous at %s: not every PE joined within %.0f s",
                     rdv, timeout_s);
            goto fail;
        }
        if (now - c->last_rx > KUMI_RDV_DEAD_S) {
            snprintf(err, errlen, "rendezvous at %s: kumirun silent for %.1f s", rdv,
                     now - c->last_rx);
            goto fail;
        }
        if (now >= wake && rdv_client_send(c, RDV_HB, NULL, 0, now) != 0) {
            snprintf(err, errlen, "rendezvous at %s: connection lost", rdv);
            goto fail;
        }
        rc = rdv_wait_fd(c->fd, POLLIN, wake < deadline ? wake : deadline);
        if (rc < 0) {
            snprintf(err, errlen, "rendezvous at %s: poll: %s", rdv, strerror(errno));
            goto fail;
        }
        if (rc == 0)
            continue;
        if (rdv_recv_all(c->fd, c->buf, RDV_HDR, deadline) != 0) {
            if (errno == 0)
                snprintf(err, errlen, "rendezvous at %s closed the connection (wrong job "
                         "key, or the job ended)", rdv);
            else
                snprintf(err, errlen, "rendezvous at %s: %s", rdv, strerror(errno));
            goto fail;
        }
        c->last_rx = kumi_rdv_now();
        len = rdv_check_hdr(c->buf, 1u << RDV_TABLE | 1u << RDV_HB | 1u << RDV_FAIL, size);
        if (len < 0) {
            snprintf(err, errlen, "rendezvous at %s sent a malformed message", rdv);
            goto fail;
        }
        if (c->buf[0] == RDV_HB)
            continue;
        if (c->buf[0] == RDV_FAIL) {
            if (rdv_recv_all(c->fd, c->buf, 8, deadline) != 0)
                snprintf(err, errlen, "rendezvous at %s: the job is failing", rdv);
            else if (rdv_get32(c->buf) == KUMI_TP_FAIL_LAUNCHER)
                snprintf(err, errlen, "rendezvous at %s: kumirun is ending the job "
                         "(status %d)", rdv, (int32_t)rdv_get32(c->buf + 4));
            else if (kumi_tp_fail_is_exit(rdv_get32(c->buf)))
                snprintf(err, errlen, "rendezvous at %s: PE %u ended the job "
                         "(kumi_global_exit, status %d)", rdv,
                         (rdv_get32(c->buf) & ~KUMI_TP_FAIL_EXIT) - 1,
                         (int32_t)rdv_get32(c->buf + 4));
            else
                snprintf(err, errlen, "rendezvous at %s: the job is failing: PE %u failed "
                         "(status %d)", rdv, rdv_get32(c->buf) - 1,
                         (int32_t)rdv_get32(c->buf + 4));
            goto fail;
        }
        if (rdv_read_table(c->fd, size, mine, rank, table, deadline, rdv, err, errlen) != 0)
            goto fail;
        c->last_rx = kumi_rdv_now();
        c->have    = 0;
        return 0;
    }
fail:
    close(c->fd);
    c->fd = -1;
    return -1;
}

static int rdv_client_lost(struct kumi_rdv_client *c, const char *why, uint32_t *failed,
                           int32_t *status)
{
    if (why != NULL)
        fprintf(stderr, "kumi: rendezvous with kumirun lost (%s); the job is failing\n", why);
    if (c->fd >= 0)
        close(c->fd);
    c->fd   = -1;
    *failed = KUMI_TP_FAIL_LAUNCHER;
    *status = 1;
    return 1;
}

int kumi_rdv_service(struct kumi_rdv_client *c, double now, uint32_t *failed,
                     int32_t *status)
{
    if (c->fd < 0)
        return rdv_client_lost(c, NULL, failed, status);
    for (;;) {
        ssize_t n = recv(c->fd, c->buf + c->have, sizeof(c->buf) - c->have, 0);

        if (n == 0)
            return rdv_client_lost(c, "connection closed", failed, status);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN)
                break;
            return rdv_client_lost(c, strerror(errno), failed, status);
        }
        c->have   += (size_t)n;
        c->last_rx = now;
        /* whole messages out of buf; a partial one stays for next time */
        while (c->have >= RDV_HDR) {
            long len = rdv_check_hdr(c->buf, 1u << RDV_HB | 1u << RDV_FAIL, 1);

            if (len < 0)
                return rdv_client_lost(c, "malformed message", failed, status);
            if (c->have < RDV_HDR + (size_t)len)
                break;
            if (c->buf[0] == RDV_FAIL) {
                uint32_t f = rdv_get32(c->buf + RDV_HDR);
                int32_t  s = (int32_t)rdv_get32(c->buf + RDV_HDR + 4);

                if (f == 0 || s < 0 || s > 255)
                    return rdv_client_lost(c, "malformed FAIL", failed, status);
                close(c->fd);
                c->fd   = -1;
                *failed = f;
                *status = s;
                return 1;
            }
            memmove(c->buf, c->buf + RDV_HDR + len, c->have - RDV_HDR - (size_t)len);
            c->have -= RDV_HDR + (size_t)len;
        }
    }
    if (now - c->last_rx > KUMI_RDV_DEAD_S) {
        char why[64];
        snprintf(why, sizeof(why), "no heartbeat for %.1f s", now - c->last_rx);
        return rdv_client_lost(c, why, failed, status);
    }
    if (now - c->last_tx >= KUMI_RDV_HEARTBEAT_S && rdv_client_send(c, RDV_HB, NULL, 0, now) != 0)
        return rdv_client_lost(c, "cannot send", failed, status);
    return 0;
}

int kumi_rdv_request_exit(struct kumi_rdv_client *c, int status, double timeout_s,
                          uint32_t *failed, int32_t *job_status)
{
    double  now = kumi_rdv_now(), deadline = now + timeout_s;
    uint8_t v[4];

    if (c->fd < 0)
        return 0;
    rdv_put32(v, (uint32_t)status);
    if (rdv_client_send(c, RDV_EXIT, v, 4, now) != 0)
        return kumi_rdv_service(c, now, failed, job_status);   /* closed: why */
    while (now < deadline) {
        /* blocking reads, as in join: nothing else runs on this channel now */
        struct pollfd p = { .fd = c->fd, .events = POLLIN };
        int           ms = (int)((deadline - now) * 1000) + 1;

        if (poll(&p, 1, ms < 100 ? ms : 100) < 0 && errno != EINTR)
            break;
        now = kumi_rdv_now();
        if (kumi_rdv_service(c, now, failed, job_status) != 0)
            return 1;
    }
    close(c->fd);
    c->fd = -1;
    return 0;
}

void kumi_rdv_leave(struct kumi_rdv_client *c, int finalized)
{
    uint8_t v[4];

    if (c->fd < 0)
        return;
    rdv_put32(v, finalized ? 1 : 0);
    rdv_client_send(c, RDV_BYE, v, 4, kumi_rdv_now());
    shutdown(c->fd, SHUT_WR);
    close(c->fd);
    c->fd = -1;
}

/* ------------------------------------------------------------ server */

enum rdv_conn_state { RDV_C_HELLO, RDV_C_JOINED, RDV_C_BYE, RDV_C_DEAD };

struct rdv_conn {
    int      fd;
    int      state;              /* enum rdv_conn_state                 */
    int      rank;               /* -1 until the hello                  */
    int      want_out;           /* EPOLLOUT registered                 */
    double   since, last_rx, last_tx;
    char     peer[INET6_ADDRSTRLEN + 10];
    size_t   have;
    uint8_t  in[RDV_IN_MAX];
    uint8_t *out;                /* queued bytes [out_off, out_len)     */
    size_t   out_off, out_len, out_cap;
};

struct kumi_rdv_server {
    int                 lfd, epfd;
    int                 npes, joined, table_sent, failing;
    uint8_t             key[KUMI_JOB_KEY_BYTES];
    kumi_rdv_event_fn  *fn;
    void               *arg;
    char                addr[INET6_ADDRSTRLEN + 10];
    struct rdv_conn   **conns;   /* every open connection               */
    int                 nconns, pending;
    struct rdv_conn   **by_rank; /* the joined connection of each PE    */
    uint8_t            *ended;   /* per PE: a final event was delivered */
    struct kumi_tcp_ep *table;
    unsigned            rejected;
    uint8_t             fail_msg[8];
};

static void rdv_log_reject(struct kumi_rdv_server *s, const struct rdv_conn *k, const char *why)
{
    if (++s->rejected <= RDV_LOG_MAX)
        fprintf(stderr, "kumirun: rendezvous: rejected a connection from %s: %s\n",
                k->peer, why);
    if (s->rejected == RDV_LOG_MAX)
        fprintf(stderr, "kumirun: rendezvous: further rejected connections are not "
                        "logged\n");
}

static void rdv_conn_close(struct kumi_rdv_server *s, struct rdv_conn *k)
{
    if (k->state == RDV_C_DEAD)
        return;
    if (k->state == RDV_C_HELLO)
        s->pending--;
    if (k->rank >= 0 && s->by_rank[k->rank] == k)
        s->by_rank[k->rank] = NULL;
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, k->fd, NULL);
    close(k->fd);
    k->fd    = -1;
    k->state = RDV_C_DEAD;   /* freed at the end of the service round */
}

/* The PE behind k is gone for a reason its owner must hear, once. */
static void rdv_conn_lost(struct kumi_rdv_server *s, struct rdv_conn *k,
                          enum kumi_rdv_event ev)
{
    int rank = k->rank;

    rdv_conn_close(s, k);
    if (rank >= 0 && !s->ended[rank]) {
        s->ended[rank] = 1;
        s->fn(s->arg, rank, ev, 0);
    }
}

static void rdv_conn_flush(struct kumi_rdv_server *s, struct rdv_conn *k)
{
    while (k->out_off < k->out_len) {
        ssize_t n = send(k->fd, k->out + k->out_off, k->out_len - k->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            k->out_off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            break;
        } else {
            /* the reader will see EOF or already has */
            k->out_off = k->out_len;
            break;
        }
    }
    if (k->out_off == k->out_len)
        k->out_off = k->out_len = 0;
    int want = k->out_len > 0;
    if (want != k->want_out) {
        struct epoll_event ev = { .events = EPOLLIN | (want ? EPOLLOUT : 0), .data.ptr = k };
        epoll_ctl(s->epfd, EPOLL_CTL_MOD, k->fd, &ev);
        k->want_out = want;
    }
}

static void rdv_conn_queue(struct kumi_rdv_server *s, struct rdv_conn *k, int type,
                           const uint8_t *payload, size_t len, double now)
{
    size_t need = k->out_len + RDV_HDR + len;
    /* A PE that does not read cannot make us hold more than one table
     * plus some small messages: it is dropped instead. */
    size_t limit = RDV_HDR + 4 + (size_t)s->npes * RDV_EP + 4096;

    if (need > limit) {
        rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
        return;
    }
    if (need > k->out_cap) {
        uint8_t *p = realloc(k->out, need);
        if (p == NULL) {
            rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
            return;
        }
        k->out     = p;
        k->out_cap = need;
    }
    rdv_put_hdr(k->out + k->out_len, type, (uint32_t)len);
    if (len > 0)
        memcpy(k->out + k->out_len + RDV_HDR, payload, len);
    k->out_len = need;
    k->last_tx = now;
    rdv_conn_flush(s, k);
}

static void rdv_send_table(struct kumi_rdv_server *s, double now)
{
    size_t   len = 4 + (size_t)s->npes * RDV_EP;
    uint8_t *msg = malloc(len);

    if (msg == NULL)
        return;   /* retried on the next service round */
    rdv_put32(msg, (uint32_t)s->npes);
    for (int r = 0; r < s->npes; r++)
        rdv_put_ep(msg + 4 + (size_t)r * RDV_EP, &s->table[r]);
    for (int r = 0; r < s->npes; r++)
        if (s->by_rank[r] != NULL && s->by_rank[r]->state == RDV_C_JOINED)
            rdv_conn_queue(s, s->by_rank[r], RDV_TABLE, msg, len, now);
    free(msg);
    s->table_sent = 1;
}

static void rdv_on_hello(struct kumi_rdv_server *s, struct rdv_conn *k, const uint8_t *p,
                         double now)
{
    struct kumi_tcp_ep ep;
    uint32_t           rank = rdv_get32(p + 4), size = rdv_get32(p + 8);
    char               why[96];

    if (rdv_get32(p) != RDV_MAGIC || rdv_get32(p + 12) != 0) {
        rdv_log_reject(s, k, "not a kumi rendezvous hello");
    } else if (!rdv_key_equal(p + 16, s->key)) {
        rdv_log_reject(s, k, "wrong job key");
    } else if (size != (uint32_t)s->npes || rank >= size) {
        snprintf(why, sizeof(why), "PE %u of %u, but the job has %d PEs", rank, size, s->npes);
        rdv_log_reject(s, k, why);
    } else if (rdv_get_ep(p + 16 + KUMI_JOB_KEY_BYTES, &ep) != 0) {
        snprintf(why, sizeof(why), "PE %u published a malformed endpoint", rank);
        rdv_log_reject(s, k, why);
    } else if (s->by_rank[rank] != NULL || s->ended[rank] || s->table[rank].family != 0) {
        snprintf(why, sizeof(why), "PE %u already joined", rank);
        rdv_log_reject(s, k, why);
    } else {
        s->pending--;
        k->state          = RDV_C_JOINED;
        k->rank           = (int)rank;
        s->by_rank[rank]  = k;
        s->table[rank]    = ep;
        s->joined++;
        s->fn(s->arg, (int)rank, KUMI_RDV_EV_JOINED, 0);
        if (s->failing)
            rdv_conn_queue(s, k, RDV_FAIL, s->fail_msg, 8, now);
        else if (s->joined == s->npes)
            rdv_send_table(s, now);
        return;
    }
    rdv_conn_close(s, k);
}

/* Reads what k sent and acts on each whole message. */
static void rdv_conn_read(struct kumi_rdv_server *s, struct rdv_conn *k, double now)
{
    while (k->state == RDV_C_HELLO || k->state == RDV_C_JOINED || k->state == RDV_C_BYE) {
        ssize_t n = recv(k->fd, k->in + k->have, sizeof(k->in) - k->have, MSG_DONTWAIT);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            if (k->state == RDV_C_JOINED)
                rdv_conn_lost(s, k, KUMI_RDV_EV_EOF);
            else if (k->state == RDV_C_HELLO && k->have > 0)
                rdv_log_reject(s, k, "closed in the middle of a hello");
            rdv_conn_close(s, k);   /* no-op when lost above */
            return;
        }
        k->have   += (size_t)n;
        k->last_rx = now;
        while (k->have >= RDV_HDR && k->state != RDV_C_DEAD) {
            unsigned mask = k->state == RDV_C_HELLO ? 1u << RDV_HELLO
                          : k->state == RDV_C_JOINED ? 1u << RDV_HB | 1u << RDV_BYE
                                                       | 1u << RDV_EXIT
                          : 1u << RDV_HB;
            long     len  = rdv_check_hdr(k->in, mask, s->npes);

            if (len < 0) {
                if (k->state == RDV_C_HELLO) {
                    rdv_log_reject(s, k, "not a kumi rendezvous hello");
                    rdv_conn_close(s, k);
                } else {
                    rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
                }
                return;
            }
            if (k->have < RDV_HDR + (size_t)len)
                break;
            if (k->in[0] == RDV_HELLO) {
                rdv_on_hello(s, k, k->in + RDV_HDR, now);
            } else if (k->in[0] == RDV_BYE) {
                uint32_t fin = rdv_get32(k->in + RDV_HDR);
                if (fin > 1) {
                    rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
                    return;
                }
                k->state = RDV_C_BYE;
                if (!s->ended[k->rank]) {
                    s->ended[k->rank] = 1;
                    s->fn(s->arg, k->rank, KUMI_RDV_EV_BYE, (int)fin);
                }
            } else if (k->in[0] == RDV_EXIT) {
                uint32_t status = rdv_get32(k->in + RDV_HDR);
                if (status > 255) {
                    rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
                    return;
                }
                /* the PE stays joined (it waits for the FAIL that answers
                 * it, and may still say BYE), but its end is no news now */
                if (!s->ended[k->rank]) {
                    s->ended[k->rank] = 1;
                    s->fn(s->arg, k->rank, KUMI_RDV_EV_EXIT, (int)status);
                }
            }
            if (k->state == RDV_C_DEAD)
                return;
            memmove(k->in, k->in + RDV_HDR + len, k->have - RDV_HDR - (size_t)len);
            k->have -= RDV_HDR + (size_t)len;
        }
    }
}

static void rdv_accept(struct kumi_rdv_server *s, double now)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t               sl = sizeof(ss);
        int                     fd = accept4(s->lfd, (struct sockaddr *)&ss, &sl,
                                             SOCK_NONBLOCK | SOCK_CLOEXEC);
        struct rdv_conn        *k;

        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return;   /* EAGAIN, or out of descriptors: try again later */
        }
        k = calloc(1, sizeof(*k));
        struct rdv_conn **grown = realloc(s->conns, (size_t)(s->nconns + 1) * sizeof(*grown));
        if (grown != NULL)
            s->conns = grown;
        if (k == NULL || grown == NULL) {
            free(k);
            close(fd);
            continue;
        }
        k->fd    = fd;
        k->rank  = -1;
        k->since = k->last_rx = k->last_tx = now;
        rdv_format_addr(&ss, k->peer, sizeof(k->peer));
        s->conns[s->nconns++] = k;
        s->pending++;
        if (s->pending > RDV_PENDING_MAX) {
            rdv_log_reject(s, k, "too many connections waiting to say hello");
            rdv_conn_close(s, k);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = k };
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
            rdv_conn_close(s, k);
    }
}

void kumi_rdv_server_service(struct kumi_rdv_server *s, double now)
{
    struct epoll_event evs[64];
    int                n, w = 0;

    n = epoll_wait(s->epfd, evs, 64, 0);
    for (int i = 0; i < n; i++) {
        struct rdv_conn *k = evs[i].data.ptr;

        if (k == NULL) {
            rdv_accept(s, now);
            continue;
        }
        if (k->state == RDV_C_DEAD)
            continue;
        if (evs[i].events & EPOLLOUT)
            rdv_conn_flush(s, k);
        if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
            rdv_conn_read(s, k, now);
    }

    /* Silent PEs, the longest silent first: when a host vanishes, its PEs
     * fell silent before the ones that then blocked waiting for them, and
     * the owner reports only the first. Once the job is ending, a quiet
     * PE is no news. */
    while (!s->failing) {
        struct rdv_conn *oldest = NULL;

        for (int i = 0; i < s->nconns; i++) {
            struct rdv_conn *k = s->conns[i];
            if (k->state == RDV_C_JOINED && now - k->last_rx > KUMI_RDV_DEAD_S &&
                (oldest == NULL || k->last_rx < oldest->last_rx))
                oldest = k;
        }
        if (oldest == NULL)
            break;
        rdv_conn_lost(s, oldest, KUMI_RDV_EV_SILENT);
    }
    for (int i = 0; i < s->nconns; i++) {
        struct rdv_conn *k = s->conns[i];

        if (k->state == RDV_C_HELLO && now - k->since > RDV_HELLO_S) {
            rdv_log_reject(s, k, "no hello within 5 s");
            rdv_conn_close(s, k);
        } else if (k->state == RDV_C_JOINED && now - k->last_tx >= KUMI_RDV_HEARTBEAT_S) {
            rdv_conn_queue(s, k, RDV_HB, NULL, 0, now);
        }
    }
    /* free the connections closed in this round, now that no event
     * of the batch can point at them */
    for (int i = 0; i < s->nconns; i++) {
        if (s->conns[i]->state == RDV_C_DEAD) {
            free(s->conns[i]->out);
            free(s->conns[i]);
        } else {
            s->conns[w++] = s->conns[i];
        }
    }
    s->nconns = w;
}

void kumi_rdv_server_fail(struct kumi_rdv_server *s, uint32_t failed, int32_t status)
{
    double now = kumi_rdv_now();

    if (s == NULL || s->failing)
        return;
    s->failing = 1;
    rdv_put32(s->fail_msg, failed);
    rdv_put32(s->fail_msg + 4, (uint32_t)status);
    for (int i = 0; i < s->nconns; i++)
        if (s->conns[i]->state == RDV_C_JOINED)
            rdv_conn_queue(s, s->conns[i], RDV_FAIL, s->fail_msg, 8, now);
}

int kumi_rdv_server_open(struct kumi_rdv_server **out, const char *addr, int npes,
                         const uint8_t key[KUMI_JOB_KEY_BYTES],
                         kumi_rdv_event_fn *fn, void *arg, char *err, size_t errlen)
{
    struct kumi_rdv_server *s;
    struct sockaddr_storage ss;
    socklen_t               sl;
    char                    with_port[INET6_ADDRSTRLEN + 8];
    struct epoll_event      ev = { .events = EPOLLIN, .data.ptr = NULL };

    if (npes < 1 || npes > RDV_MAX_PES) {
        snprintf(err, errlen, "rendezvous: %d PEs is out of range", npes);
        return -1;
    }
    snprintf(with_port, sizeof(with_port), strchr(addr, ':') ? "[%s]:1" : "%s:1", addr);
    if (rdv_parse_addr(with_port, &ss, &sl) != 0) {
        snprintf(err, errlen, "rendezvous: '%s' is not a numeric IP address", addr);
        return -1;
    }
    ((struct sockaddr_in *)&ss)->sin_port = 0;   /* same offset in sockaddr_in6 */
    s = calloc(1, sizeof(*s));
    if (s != NULL)
        s->lfd = s->epfd = -1;
    if (s == NULL || (s->by_rank = calloc((size_t)npes, sizeof(*s->by_rank))) == NULL ||
        (s->ended = calloc((size_t)npes, 1)) == NULL ||
        (s->table = calloc((size_t)npes, sizeof(*s->table))) == NULL) {
        snprintf(err, errlen, "rendezvous: out of memory");
        goto fail;
    }
    s->npes = npes;
    s->fn   = fn;
    s->arg  = arg;
    memcpy(s->key, key, KUMI_JOB_KEY_BYTES);
    s->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&ss, sl) != 0 ||
        listen(s->lfd, npes < 128 ? 128 : npes) != 0 ||
        getsockname(s->lfd, (struct sockaddr *)&ss, &sl) != 0) {
        snprintf(err, errlen, "rendezvous: cannot listen on %s: %s", addr, strerror(errno));
        goto fail;
    }
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (s->epfd < 0 || epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &ev) != 0) {
        snprintf(err, errlen, "rendezvous: epoll: %s", strerror(errno));
        goto fail;
    }
    rdv_format_addr(&ss, s->addr, sizeof(s->addr));
    *out = s;
    return 0;
fail:
    kumi_rdv_server_close(s);
    return -1;
}

const char *kumi_rdv_server_address(const struct kumi_rdv_server *s)
{
    return s->addr;
}

int kumi_rdv_server_fd(const struct kumi_rdv_server *s)
{
    return s->epfd;
}

int kumi_rdv_server_joined(const struct kumi_rdv_server *s)
{
    return s->joined;
}

void kumi_rdv_server_close(struct kumi_rdv_server *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->nconns; i++) {
        if (s->conns[i]->fd >= 0)
            close(s->conns[i]->fd);
        free(s->conns[i]->out);
        free(s->conns[i]);
    }
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->epfd >= 0)
        close(s->epfd);
    free(s->conns);
    free(s->by_rank);
    free(s->ended);
    free(s->table);
    free(s);
}
