/*
 * rdv.c -- the rendezvous with kumirun, PE side (see rdv.h; the wire
 * format is in rdv_wire.h and rdv_wire.c, the server in
 * launcher/rdv_server.c).
 */
#include "rdv_wire.h"
#include "rt.h"   /* kumi_rt_log */

#include <arpa/inet.h>
#include <dirent.h>
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

/* Waits for events on fd until deadline: KUMI_OK (ready), KUMI_ERR_TIMEOUT,
 * or KUMI_ERR_TRANSPORT (poll failed; errno). */
static int rdv_wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double        left = deadline - kumi_tp_now();
        struct pollfd p    = { .fd = fd, .events = events };
        int           rc;

        if (left <= 0)
            return KUMI_ERR_TIMEOUT;
        rc = poll(&p, 1, (int)(left * 1000) + 1);
        if (rc > 0)
            return KUMI_OK;
        if (rc < 0 && errno != EINTR)
            return KUMI_ERR_TRANSPORT;
    }
}

/* Sends all of buf on a non-blocking socket before deadline: KUMI_OK,
 * KUMI_ERR_TIMEOUT, or KUMI_ERR_TRANSPORT (errno). */
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
            int rc = rdv_wait_fd(fd, POLLOUT, deadline);
            if (rc != KUMI_OK)
                return rc;
        } else {
            return KUMI_ERR_TRANSPORT;
        }
    }
    return KUMI_OK;
}

/* Reads exactly len bytes before deadline: KUMI_OK, or an error with
 * errno set (KUMI_ERR_PEER with errno 0: EOF; KUMI_ERR_TIMEOUT with
 * ETIMEDOUT: silence; KUMI_ERR_TRANSPORT: recv or poll failed). */
static int rdv_recv_all(int fd, uint8_t *buf, size_t len, double deadline)
{
    while (len > 0) {
        ssize_t n = recv(fd, buf, len, 0);

        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        } else if (n == 0) {
            errno = 0;
            return KUMI_ERR_PEER;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN) {
            int rc = rdv_wait_fd(fd, POLLIN, deadline);
            if (rc != KUMI_OK) {
                errno = rc == KUMI_ERR_TIMEOUT ? ETIMEDOUT : errno;
                return rc;
            }
        } else {
            return KUMI_ERR_TRANSPORT;
        }
    }
    return KUMI_OK;
}

/* Connects to rdv ("addr:port") before deadline; KUMI_OK with the socket
 * in *out, or an error with a reason in err. */
static int rdv_connect(const char *rdv, double deadline, int *out, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t               sl;
    int                     fd, soerr = 0, rc;
    socklen_t               el = sizeof(soerr);

    if (kumi_rdv_parse_addr(rdv, &ss, &sl) != KUMI_OK) {
        snprintf(err, errlen, "rendezvous address '%s' is not addr:port", rdv);
        return KUMI_ERR_INVALID;
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "rendezvous %s: socket: %s", rdv, strerror(errno));
        return KUMI_ERR_TRANSPORT;
    }
    if (connect(fd, (struct sockaddr *)&ss, sl) != 0 && errno != EINPROGRESS) {
        snprintf(err, errlen, "cannot reach the rendezvous at %s: %s", rdv, strerror(errno));
        close(fd);
        return KUMI_ERR_TRANSPORT;
    }
    rc = rdv_wait_fd(fd, POLLOUT, deadline);
    if (rc != KUMI_OK || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &el) != 0 || soerr != 0) {
        snprintf(err, errlen, "cannot reach the rendezvous at %s: %s", rdv,
                 rc == KUMI_ERR_TIMEOUT ? "timed out" : strerror(soerr != 0 ? soerr : errno));
        close(fd);
        return rc == KUMI_ERR_TIMEOUT ? KUMI_ERR_TIMEOUT : KUMI_ERR_TRANSPORT;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    *out = fd;
    return KUMI_OK;
}

static int rdv_client_send(struct kumi_rdv_client *c, int type, const uint8_t *payload,
                           uint32_t len, double now)
{
    uint8_t  small[RDV_HDR + 8], *msg = small;
    int      rc;

    if (len > sizeof(small) - RDV_HDR && (msg = malloc(RDV_HDR + len)) == NULL)
        return KUMI_ERR_NOMEM;
    rdv_put_hdr(msg, type, len);
    if (len > 0)
        memcpy(msg + RDV_HDR, payload, len);
    /* control messages are tiny: a full socket buffer here means kumirun
     * stopped reading, which silence detection on its side handles; a
     * round's blob may take longer */
    rc = rdv_send_all(c->fd, msg, RDV_HDR + len, now + (type == RDV_GATHER ? 5.0 : 0.2));
    if (msg != small)
        free(msg);
    if (rc != KUMI_OK)
        return rc;
    c->last_tx = now;
    return KUMI_OK;
}

int kumi_rdv_join(struct kumi_rdv_client *c, const char *rdv,
                  const uint8_t key[KUMI_RDV_KEY_BYTES], int rank, int size,
                  double timeout_s, double dead_s, char *err, size_t errlen)
{
    double  deadline = kumi_tp_now() + timeout_s;
    uint8_t hello[RDV_HDR + RDV_HELLO_LEN], *p = hello + RDV_HDR;
    int     rc;

    memset(c, 0, sizeof(*c));
    c->fd = -1;
    snprintf(c->addr, sizeof(c->addr), "%s", rdv);
    if (rank < 0 || size < 1 || size > KUMI_RDV_MAX_PES || rank >= size) {
        snprintf(err, errlen, "rendezvous: bad join arguments (rank %d, size %d)", rank, size);
        return KUMI_ERR_INVALID;
    }
    c->rank   = rank;
    c->size   = size;
    c->dead_s = dead_s;
    rc = rdv_connect(rdv, deadline, &c->fd, err, errlen);
    if (rc != KUMI_OK)
        return rc;
    rdv_put_hdr(hello, RDV_HELLO, RDV_HELLO_LEN);
    rdv_put32(p, RDV_MAGIC);
    rdv_put32(p + 4, (uint32_t)rank);
    rdv_put32(p + 8, (uint32_t)size);
    rdv_put32(p + 12, 0);
    memcpy(p + 16, key, KUMI_RDV_KEY_BYTES);
    c->last_rx = c->last_tx = kumi_tp_now();
    rc = rdv_send_all(c->fd, hello, sizeof(hello), deadline);
    if (rc != KUMI_OK) {
        snprintf(err, errlen, "rendezvous at %s: cannot send hello: %s", rdv,
                 rc == KUMI_ERR_TIMEOUT ? "timed out" : strerror(errno));
        close(c->fd);
        c->fd = -1;
        return rc;
    }
    return KUMI_OK;
}

/* ------------------------------------------------------------ liveness */

/* One thread's state letter from /proc/PID/task/TID/stat, or 0. */
static char rdv_task_state(long pid, const char *tid)
{
    char  path[320], buf[512];
    FILE *f;
    char *close_paren;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%ld/task/%s/stat", pid, tid);
    if ((f = fopen(path, "re")) == NULL)
        return 0;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "tid (comm) S ...": comm may hold spaces and parentheses */
    close_paren = strrchr(buf, ')');
    return close_paren != NULL && close_paren[1] == ' ' ? close_paren[2] : 0;
}

char kumi_rdv_proc_state(long pid)
{
    static const char order[] = "RDTS";   /* most telling first */
    char              path[64], best = 0;
    DIR              *d;
    struct dirent    *e;

    if (pid <= 0)
        return 0;
    snprintf(path, sizeof(path), "/proc/%ld/task", pid);
    if ((d = opendir(path)) == NULL)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char st;

        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        st = rdv_task_state(pid, e->d_name);
        if (st == 't')
            st = 'T';   /* traced: stopped by a debugger */
        else if (st == 'I')
            st = 'S';   /* idle kernel-style sleep */
        if (st == 'Z' || st == 'X' || strchr(order, st) == NULL)
            continue;   /* a zombie group leader, or an exiting thread */
        if (best == 0 || strchr(order, st) < strchr(order, best))
            best = st;
    }
    closedir(d);
    return best;
}

/* A client serving after a gap of its own (its thread starved, its
 * process stopped): what arrived meanwhile is read by now, and the time
 * it was not listening is not the launcher's silence (rdv.h). */
static void rdv_client_stall(struct kumi_rdv_client *c, double now)
{
    double gap = now - c->last_service;
    double add = rdv_stall_credit(gap, c->dead_s, c->credit);

    if (c->last_service > 0 && gap > KUMI_RDV_STALL_S && add > 0) {
        c->credit  += add;
        c->last_rx += add;
        if (c->last_rx > now)
            c->last_rx = now;
    }
    c->last_service = now;
}

/* Is kumirun's silence its loss? Past dead_s, unless it runs on this
 * host and its process is alive (looked at twice a second), which bounds
 * the silence by KUMI_RDV_ALIVE_FACTOR x dead_s instead (rdv.h). */
static int rdv_client_silent(struct kumi_rdv_client *c, double now)
{
    double quiet = now - c->last_rx;

    if (quiet <= c->dead_s)
        return 0;
    if (c->launcher <= 0 || quiet > c->dead_s * KUMI_RDV_ALIVE_FACTOR)
        return 1;
    if (now >= c->look_at) {
        c->look_at        = now + KUMI_RDV_HEARTBEAT_S;
        c->launcher_alive = kumi_rdv_proc_state(c->launcher) != 0;
        if (c->launcher_alive)
            kumi_rt_log(KUMI_LOG_DEBUG, "rendezvous: kumirun (pid %ld) silent for %.1f s "
                        "but alive; waiting", c->launcher, quiet);
    }
    return !c->launcher_alive;
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
 * round, the job size, every length, and my own blob as I sent it.
 * KUMI_OK, KUMI_ERR_NOMEM, or KUMI_ERR_TRANSPORT (unreadable or malformed). */
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
    if (p == NULL || all->off == NULL || all->len == NULL) {
        kumi_rdv_all_free(all);
        return KUMI_ERR_NOMEM;
    }
    if (rdv_recv_all(c->fd, p, len, deadline) != KUMI_OK || rdv_get32(p) != c->round ||
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
    return KUMI_OK;
bad:
    kumi_rdv_all_free(all);
    return KUMI_ERR_TRANSPORT;
}

int kumi_rdv_allgather(struct kumi_rdv_client *c, const void *mine, size_t len,
                       struct kumi_rdv_all *all, double timeout_s, char *err, size_t errlen)
{
    double   deadline = kumi_tp_now() + timeout_s;
    uint8_t *msg;
    int      status = KUMI_ERR_TRANSPORT;   /* of a failed round, unless said */

    if (c->fd < 0) {
        snprintf(err, errlen, "rendezvous at %s: not connected", c->addr);
        return KUMI_ERR_STATE;
    }
    if (len > KUMI_RDV_BLOB_MAX) {
        snprintf(err, errlen, "rendezvous: a blob of %zu bytes (at most %d)", len,
                 KUMI_RDV_BLOB_MAX);
        return KUMI_ERR_INVALID;
    }
    if ((msg = malloc(4 + len)) == NULL) {
        snprintf(err, errlen, "rendezvous: out of memory for a blob of %zu bytes", len);
        return KUMI_ERR_NOMEM;
    }
    rdv_put32(msg, c->round);
    if (len > 0)
        memcpy(msg + 4, mine, len);
    if (rdv_client_send(c, RDV_GATHER, msg, (uint32_t)(4 + len), kumi_tp_now()) != KUMI_OK) {
        free(msg);
        snprintf(err, errlen, "rendezvous at %s: cannot send: %s", c->addr, strerror(errno));
        goto fail;
    }
    free(msg);

    /* Others may take a while to get here: keep the heartbeat going
     * meanwhile, so that kumirun can tell a slow job from a vanished PE. */
    for (;;) {
        double now = kumi_tp_now(), wake = c->last_tx + KUMI_RDV_HEARTBEAT_S;
        long   plen;
        int    rc;

        if (now >= deadline) {
            snprintf(err, errlen, "rendezvous at %s: not every PE joined within %.0f s",
                     c->addr, timeout_s);
            status = KUMI_ERR_TIMEOUT;
            goto fail;
        }
        rdv_client_stall(c, now);
        if (rdv_client_silent(c, now)) {
            snprintf(err, errlen, "rendezvous at %s: kumirun silent for %.1f s", c->addr,
                     now - c->last_rx);
            status = KUMI_ERR_PEER;
            goto fail;
        }
        if (now >= wake && rdv_client_send(c, RDV_HB, NULL, 0, now) != KUMI_OK) {
            snprintf(err, errlen, "rendezvous at %s: connection lost", c->addr);
            goto fail;
        }
        rc = rdv_wait_fd(c->fd, POLLIN, wake < deadline ? wake : deadline);
        if (rc == KUMI_ERR_TIMEOUT)
            continue;
        if (rc != KUMI_OK) {
            snprintf(err, errlen, "rendezvous at %s: poll: %s", c->addr, strerror(errno));
            goto fail;
        }
        rc = rdv_recv_all(c->fd, c->buf, RDV_HDR, deadline);
        if (rc != KUMI_OK) {
            status = rc;
            if (errno == 0)
                snprintf(err, errlen, "rendezvous at %s closed the connection (wrong job "
                         "key, or the job ended)", c->addr);
            else
                snprintf(err, errlen, "rendezvous at %s: %s", c->addr, strerror(errno));
            goto fail;
        }
        c->last_rx = kumi_tp_now();
        c->credit  = 0;
        plen = rdv_check_hdr(c->buf, 1u << RDV_ALL | 1u << RDV_HB | 1u << RDV_FAIL, c->size);
        if (plen < 0) {
            snprintf(err, errlen, "rendezvous at %s sent a malformed message", c->addr);
            goto fail;
        }
        if (c->buf[0] == RDV_HB)
            continue;
        if (c->buf[0] == RDV_FAIL) {
            if (rdv_recv_all(c->fd, c->buf, 8, deadline) != KUMI_OK)
                snprintf(err, errlen, "rendezvous at %s: the job is failing", c->addr);
            else
                rdv_fail_reason(c, c->buf, err, errlen);
            status = KUMI_ERR_PEER;
            goto fail;
        }
        rc = rdv_read_all(c, (size_t)plen, mine, len, all, deadline);
        if (rc != KUMI_OK) {
            snprintf(err, errlen, rc == KUMI_ERR_NOMEM ? "rendezvous at %s: out of memory for "
                     "an all-gather" : "rendezvous at %s sent a malformed all-gather", c->addr);
            status = rc;
            goto fail;
        }
        c->last_rx = kumi_tp_now();
        c->have    = 0;
        c->round++;
        return KUMI_OK;
    }
fail:
    close(c->fd);
    c->fd = -1;
    return status;
}

static int rdv_client_lost(struct kumi_rdv_client *c, const char *why, uint32_t *failed,
                           int32_t *status)
{
    if (why != NULL)
        kumi_rt_log(KUMI_LOG_ERROR, "rendezvous with kumirun lost (%s); the job is failing", why);
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
        c->credit  = 0;
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
    rdv_client_stall(c, now);
    if (rdv_client_silent(c, now)) {
        char why[96];
        snprintf(why, sizeof(why), "no heartbeat for %.1f s%s", now - c->last_rx,
                 c->launcher > 0 && c->launcher_alive ? " although kumirun runs" : "");
        return rdv_client_lost(c, why, failed, status);
    }
    if (now - c->last_tx >= KUMI_RDV_HEARTBEAT_S
        && rdv_client_send(c, RDV_HB, NULL, 0, now) != KUMI_OK)
        return rdv_client_lost(c, "cannot send", failed, status);
    return 0;
}

int kumi_rdv_request_exit(struct kumi_rdv_client *c, int status, double timeout_s,
                          uint32_t *failed, int32_t *job_status)
{
    double  now = kumi_tp_now(), deadline = now + timeout_s;
    uint8_t v[4];

    if (c->fd < 0)
        return 0;
    rdv_put32(v, (uint32_t)status);
    if (rdv_client_send(c, RDV_EXIT, v, 4, now) != KUMI_OK)
        return kumi_rdv_service(c, now, failed, job_status);   /* closed: why */
    while (now < deadline) {
        /* blocking reads, as in a round: nothing else runs on this channel now */
        struct pollfd p = { .fd = c->fd, .events = POLLIN };
        int           ms = (int)((deadline - now) * 1000) + 1;

        if (poll(&p, 1, ms < 100 ? ms : 100) < 0 && errno != EINTR)
            break;
        now = kumi_tp_now();
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
    rdv_client_send(c, RDV_BYE, v, 4, kumi_tp_now());
    shutdown(c->fd, SHUT_WR);
    close(c->fd);
    c->fd = -1;
}
