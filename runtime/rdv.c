/*
 * rdv.c -- the rendezvous with kumirun, PE side (see rdv.h; the wire
 * format is in rdv_wire.h and rdv_wire.c, the server in
 * launcher/rdv_server.c).
 */
#include "rdv_wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ client */

void kumi_rdv_all_free(struct kumi_rdv_all *all)
{
    free(all->data);
    free(all->off);
    free(all->len);
    memset(all, 0, sizeof(*all));
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

    if (kumi_rdv_parse_addr(rdv, &ss, &sl) != 0) {
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
    uint8_t  small[RDV_HDR + 8], *msg = small;
    int      rc;

    if (len > sizeof(small) - RDV_HDR && (msg = malloc(RDV_HDR + len)) == NULL)
        return -1;
    rdv_put_hdr(msg, type, len);
    if (len > 0)
        memcpy(msg + RDV_HDR, payload, len);
    /* control messages are tiny: a full socket buffer here means kumirun
     * stopped reading, which silence detection on its side handles; a
     * round's blob may take longer */
    rc = rdv_send_all(c->fd, msg, RDV_HDR + len, now + (type == RDV_GATHER ? 5.0 : 0.2));
    if (msg != small)
        free(msg);
    if (rc != 0)
        return -1;
    c->last_tx = now;
    return 0;
}

int kumi_rdv_join(struct kumi_rdv_client *c, const char *rdv,
                  const uint8_t key[KUMI_RDV_KEY_BYTES], int rank, int size,
                  double timeout_s, double dead_s, char *err, size_t errlen)
{
    double  deadline = kumi_rdv_now() + timeout_s;
    uint8_t hello[RDV_HDR + RDV_HELLO_LEN], *p = hello + RDV_HDR;

    memset(c, 0, sizeof(*c));
    c->fd = -1;
    snprintf(c->addr, sizeof(c->addr), "%s", rdv);
    if (rank < 0 || size < 1 || size > KUMI_RDV_MAX_PES || rank >= size) {
        snprintf(err, errlen, "rendezvous: bad join arguments (rank %d, size %d)", rank, size);
        return -1;
    }
    c->rank   = rank;
    c->size   = size;
    c->dead_s = dead_s;
    c->fd = rdv_connect(rdv, deadline, err, errlen);
    if (c->fd < 0)
        return -1;
    rdv_put_hdr(hello, RDV_HELLO, RDV_HELLO_LEN);
    rdv_put32(p, RDV_MAGIC);
    rdv_put32(p + 4, (uint32_t)rank);
    rdv_put32(p + 8, (uint32_t)size);
    rdv_put32(p + 12, 0);
    memcpy(p + 16, key, KUMI_RDV_KEY_BYTES);
    c->last_rx = c->last_tx = kumi_rdv_now();
    if (rdv_send_all(c->fd, hello, sizeof(hello), deadline) != 0) {
        snprintf(err, errlen, "rendezvous at %s: cannot send hello: %s", rdv, strerror(errno));
        close(c->fd);
        c->fd = -1;
        return -1;
    }
    return 0;
}

/* kumirun's FAIL as a reason (payload of 8 bytes in buf). */
static void rdv_fail_reason(const struct kumi_rdv_client *c, const uint8_t *buf, char *err,
                            size_t errlen)
{
    uint32_t f = rdv_get32(buf);
    int32_t  s = (int32_t)rdv_get32(buf + 4);

    if (f == KUMI_TP_FAIL_LAUNCHER)
        snprintf(err, errlen, "rendezvous at %s: kumirun is ending the job (status %d)",
                 c->addr, s);
    else if (kumi_tp_fail_is_exit(f))
        snprintf(err, errlen, "rendezvous at %s: PE %u ended the job (kumi_global_exit, "
                 "status %d)", c->addr, (f & ~KUMI_TP_FAIL_EXIT) - 1, s);
    else
        snprintf(err, errlen, "rendezvous at %s: the job is failing: PE %u failed (status %d)",
                 c->addr, f - 1, s);
}

/* Reads ALL's payload (len bytes, header checked) and checks it: the
 * round, the job size, every length, and my own blob as I sent it. */
static int rdv_read_all(struct kumi_rdv_client *c, size_t len, const void *mine,
                        size_t mine_len, struct kumi_rdv_all *all, double deadline)
{
    uint8_t *p = malloc(len);
    size_t   at = 8;

    memset(all, 0, sizeof(*all));
    all->data = p;
    all->off  = calloc((size_t)c->size, sizeof(*all->off));
    all->len  = calloc((size_t)c->size, sizeof(*all->len));
    all->n    = c->size;
    if (p == NULL || all->off == NULL || all->len == NULL)
        goto bad;
    if (rdv_recv_all(c->fd, p, len, deadline) != 0 || rdv_get32(p) != c->round ||
        rdv_get32(p + 4) != (uint32_t)c->size)
        goto bad;
    for (int r = 0; r < c->size; r++) {
        uint32_t l;

        if (len - at < 4 || (l = rdv_get32(p + at)) > KUMI_RDV_BLOB_MAX || len - at - 4 < l)
            goto bad;
        all->off[r] = (uint32_t)(at + 4);
        all->len[r] = l;
        at += 4 + l;
    }
    if (at != len || all->len[c->rank] != mine_len ||
        (mine_len > 0 && memcmp(p + all->off[c->rank], mine, mine_len) != 0))
        goto bad;
    return 0;
bad:
    kumi_rdv_all_free(all);
    return -1;
}

int kumi_rdv_allgather(struct kumi_rdv_client *c, const void *mine, size_t len,
                       struct kumi_rdv_all *all, double timeout_s, char *err, size_t errlen)
{
    double   deadline = kumi_rdv_now() + timeout_s;
    uint8_t *msg;

    if (c->fd < 0) {
        snprintf(err, errlen, "rendezvous at %s: not connected", c->addr);
        return -1;
    }
    if (len > KUMI_RDV_BLOB_MAX || (msg = malloc(4 + len)) == NULL) {
        snprintf(err, errlen, "rendezvous: a blob of %zu bytes (at most %d)", len,
                 KUMI_RDV_BLOB_MAX);
        return -1;
    }
    rdv_put32(msg, c->round);
    if (len > 0)
        memcpy(msg + 4, mine, len);
    if (rdv_client_send(c, RDV_GATHER, msg, (uint32_t)(4 + len), kumi_rdv_now()) != 0) {
        free(msg);
        snprintf(err, errlen, "rendezvous at %s: cannot send: %s", c->addr, strerror(errno));
        goto fail;
    }
    free(msg);

    /* Others may take a while to get here: keep the heartbeat going
     * meanwhile, so that kumirun can tell a slow job from a vanished PE. */
    for (;;) {
        double now = kumi_rdv_now(), wake = c->last_tx + KUMI_RDV_HEARTBEAT_S;
        long   plen;
        int    rc;

        if (now >= deadline) {
            snprintf(err, errlen, "rendezvous at %s: not every PE joined within %.0f s",
                     c->addr, timeout_s);
            goto fail;
        }
        if (now - c->last_rx > c->dead_s) {
            snprintf(err, errlen, "rendezvous at %s: kumirun silent for %.1f s", c->addr,
                     now - c->last_rx);
            goto fail;
        }
        if (now >= wake && rdv_client_send(c, RDV_HB, NULL, 0, now) != 0) {
            snprintf(err, errlen, "rendezvous at %s: connection lost", c->addr);
            goto fail;
        }
        rc = rdv_wait_fd(c->fd, POLLIN, wake < deadline ? wake : deadline);
        if (rc < 0) {
            snprintf(err, errlen, "rendezvous at %s: poll: %s", c->addr, strerror(errno));
            goto fail;
        }
        if (rc == 0)
            continue;
        if (rdv_recv_all(c->fd, c->buf, RDV_HDR, deadline) != 0) {
            if (errno == 0)
                snprintf(err, errlen, "rendezvous at %s closed the connection (wrong job "
                         "key, or the job ended)", c->addr);
            else
                snprintf(err, errlen, "rendezvous at %s: %s", c->addr, strerror(errno));
            goto fail;
        }
        c->last_rx = kumi_rdv_now();
        plen = rdv_check_hdr(c->buf, 1u << RDV_ALL | 1u << RDV_HB | 1u << RDV_FAIL, c->size);
        if (plen < 0) {
            snprintf(err, errlen, "rendezvous at %s sent a malformed message", c->addr);
            goto fail;
        }
        if (c->buf[0] == RDV_HB)
            continue;
        if (c->buf[0] == RDV_FAIL) {
            if (rdv_recv_all(c->fd, c->buf, 8, deadline) != 0)
                snprintf(err, errlen, "rendezvous at %s: the job is failing", c->addr);
            else
                rdv_fail_reason(c, c->buf, err, errlen);
            goto fail;
        }
        if (rdv_read_all(c, (size_t)plen, mine, len, all, deadline) != 0) {
            snprintf(err, errlen, "rendezvous at %s sent a malformed all-gather", c->addr);
            goto fail;
        }
        c->last_rx = kumi_rdv_now();
        c->have    = 0;
        c->round++;
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
        ssize_t n = recv(c->fd, c->buf + c->have, sizeof(c->buf) - c->have, MSG_DONTWAIT);

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
    if (now - c->last_rx > c->dead_s) {
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
        /* blocking reads, as in a round: nothing else runs on this channel now */
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
