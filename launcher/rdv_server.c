/*
 * rdv_server.c -- kumirun's side of the rendezvous (rdv.h; wire format in
 * rdv_wire.h): authenticates PEs, runs the all-gather rounds, keeps the
 * control channel (heartbeats, FAIL, BYE, EXIT) of every joined PE.
 */
#include "rdv_server.h"
#include "rdv_wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define RDV_IN_SMALL     64                   /* > header + largest control message */
#define RDV_OUT_MAX      4096                 /* control bytes queued for one PE */
#define RDV_PENDING_MAX  64                   /* unauthenticated connections */
#define RDV_LOG_MAX      10                   /* rejections logged one by one */

enum rdv_conn_state { RDV_C_HELLO, RDV_C_JOINED, RDV_C_BYE, RDV_C_DEAD };

struct rdv_conn {
    int      fd;
    int      state;              /* enum rdv_conn_state                 */
    int      rank;               /* -1 until the hello                  */
    int      want_out;           /* EPOLLOUT registered                 */
    double   since, last_rx, last_tx;
    double   ask_at;             /* silent: the owner's quiet fn kept it
                                    until then                          */
    double   credit;             /* stall time added to last_rx since it
                                    was last heard (at most dead_s)     */
    char     peer[INET6_ADDRSTRLEN + 10];
    uint8_t *in;                 /* [0, have) received, in_cap bytes    */
    size_t   have, in_cap;
    uint8_t *out;                /* queued control bytes [out_off, out_len) */
    size_t   out_off, out_len, out_cap;
    /* the round's ALL (the server's one buffer) is owed to this PE:
     * sent whole between two control messages, never inside one */
    int      all_owed, all_sending;
    size_t   all_off;
};

struct kumi_rdv_server {
    int                 lfd, epfd;
    int                 npes, joined, failing;
    double              dead_s;  /* silence that is a PE lost; hello time */
    uint8_t             key[KUMI_RDV_KEY_BYTES];
    kumi_rdv_event_fn  *fn;
    kumi_rdv_quiet_fn  *quiet;   /* NULL: silence is SILENT at dead_s   */
    void               *arg;
    double              last_service;   /* the previous service, or 0  */
    char                addr[INET6_ADDRSTRLEN + 10];
    struct rdv_conn   **conns;   /* every open connection               */
    int                 nconns, pending;
    struct rdv_conn   **by_rank; /* the joined connection of each PE    */
    uint8_t            *ended;   /* per PE: a final event was delivered */
    unsigned            rejected;
    uint8_t             fail_msg[8];
    /* the current round: each PE's blob, until all have sent theirs */
    uint32_t            round;
    uint8_t           **blob;
    uint32_t           *blob_len;
    int                 gathered;
    /* the last round's ALL message, while some PE is still owed it */
    uint8_t            *all;
    size_t              all_len;
    int                 all_users;
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

static void rdv_all_release(struct kumi_rdv_server *s, struct rdv_conn *k)
{
    if (!k->all_owed)
        return;
    k->all_owed = k->all_sending = 0;
    if (--s->all_users == 0) {
        free(s->all);
        s->all     = NULL;
        s->all_len = 0;
    }
}

static void rdv_conn_close(struct kumi_rdv_server *s, struct rdv_conn *k)
{
    if (k->state == RDV_C_DEAD)
        return;
    if (k->state == RDV_C_HELLO)
        s->pending--;
    if (k->rank >= 0 && s->by_rank[k->rank] == k)
        s->by_rank[k->rank] = NULL;
    rdv_all_release(s, k);
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

/* Writes what the socket takes: the control bytes queued before the ALL
 * owed, then the ALL, then the rest. KUMI_OK, or KUMI_ERR_PEER when the
 * connection broke (its reader will see EOF, or has). */
static int rdv_conn_write(struct kumi_rdv_server *s, struct rdv_conn *k)
{
    for (;;) {
        const uint8_t *p;
        size_t         left;

        if (!k->all_sending && k->out_off == k->out_len && k->all_owed)
            k->all_sending = 1;   /* no control message is half sent */
        if (k->all_sending) {
            p    = s->all + k->all_off;
            left = s->all_len - k->all_off;
        } else {
            p    = k->out + k->out_off;
            left = k->out_len - k->out_off;
        }
        if (left == 0)
            return KUMI_OK;
        ssize_t n = send(k->fd, p, left, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return KUMI_OK;
        if (n <= 0)
            return KUMI_ERR_PEER;
        if (k->all_sending) {
            k->all_off += (size_t)n;
            if (k->all_off == s->all_len)
                rdv_all_release(s, k);
        } else {
            k->out_off += (size_t)n;
            if (k->out_off == k->out_len)
                k->out_off = k->out_len = 0;
        }
    }
}

static void rdv_conn_flush(struct kumi_rdv_server *s, struct rdv_conn *k)
{
    if (rdv_conn_write(s, k) != KUMI_OK) {
        /* broken: nothing more goes out; its reader sees EOF */
        rdv_all_release(s, k);
        k->out_off = k->out_len = 0;
    }
    int want = k->out_len > 0 || k->all_owed;
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

    /* A PE that does not read cannot make us hold more than a few
     * control messages: it is dropped instead. */
    if (need > RDV_OUT_MAX) {
        rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
        return;
    }
    if (need > k->out_cap) {
        uint8_t *p = realloc(k->out, RDV_OUT_MAX);
        if (p == NULL) {
            rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
            return;
        }
        k->out     = p;
        k->out_cap = RDV_OUT_MAX;
    }
    rdv_put_hdr(k->out + k->out_len, type, (uint32_t)len);
    if (len > 0)
        memcpy(k->out + k->out_len + RDV_HDR, payload, len);
    k->out_len = need;
    k->last_tx = now;
    rdv_conn_flush(s, k);
}

/* Every PE sent its blob of the round: one ALL for all of them. */
static void rdv_round_complete(struct kumi_rdv_server *s, double now)
{
    size_t   len = 8;
    uint8_t *msg;

    for (int r = 0; r < s->npes; r++)
        len += 4 + s->blob_len[r];
    msg = malloc(RDV_HDR + len);
    if (msg == NULL || s->all != NULL) {
        /* no memory, or a PE is still owed the last round, which no PE
         * following the protocol allows: the job cannot start */
        free(msg);
        for (int r = 0; r < s->npes; r++)
            if (s->by_rank[r] != NULL)
                rdv_conn_lost(s, s->by_rank[r], KUMI_RDV_EV_INVALID);
        return;
    }
    rdv_put_hdr(msg, RDV_ALL, (uint32_t)len);
    rdv_put32(msg + RDV_HDR, s->round);
    rdv_put32(msg + RDV_HDR + 4, (uint32_t)s->npes);
    size_t at = RDV_HDR + 8;
    for (int r = 0; r < s->npes; r++) {
        rdv_put32(msg + at, s->blob_len[r]);
        if (s->blob_len[r] > 0)
            memcpy(msg + at + 4, s->blob[r], s->blob_len[r]);
        at += 4 + s->blob_len[r];
        free(s->blob[r]);
        s->blob[r]     = NULL;
        s->blob_len[r] = 0;
    }
    s->all      = msg;
    s->all_len  = RDV_HDR + len;
    s->gathered = 0;
    s->round++;
    for (int r = 0; r < s->npes; r++) {
        struct rdv_conn *k = s->by_rank[r];

        if (k == NULL || k->state != RDV_C_JOINED)
            continue;
        k->all_owed = 1;
        k->all_off  = 0;
        k->last_tx  = now;
        s->all_users++;
    }
    for (int r = 0; r < s->npes; r++)
        if (s->by_rank[r] != NULL && s->by_rank[r]->all_owed)
            rdv_conn_flush(s, s->by_rank[r]);
    if (s->all_users == 0) {
        free(s->all);
        s->all = NULL;
    }
}

/* PE k's blob of a round; anything but the current round, once, is a
 * broken protocol. */
static void rdv_on_gather(struct kumi_rdv_server *s, struct rdv_conn *k, const uint8_t *p,
                          size_t len, double now)
{
    int r = k->rank;

    if (s->failing)
        return;   /* FAIL went out: nobody waits for the round */
    if (rdv_get32(p) != s->round || s->blob_len[r] != 0 || s->blob[r] != NULL || k->all_owed) {
        rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
        return;
    }
    len -= 4;
    /* an empty blob is held as a 1-byte allocation so "sent" is known */
    s->blob[r] = malloc(len > 0 ? len : 1);
    if (s->blob[r] == NULL) {
        rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
        return;
    }
    memcpy(s->blob[r], p + 4, len);
    s->blob_len[r] = (uint32_t)len;
    if (++s->gathered == s->npes)
        rdv_round_complete(s, now);
}

static void rdv_on_hello(struct kumi_rdv_server *s, struct rdv_conn *k, const uint8_t *p,
                         double now)
{
    uint32_t rank = rdv_get32(p + 4), size = rdv_get32(p + 8);
    char     why[96];

    if (rdv_get32(p) != RDV_MAGIC || rdv_get32(p + 12) != 0) {
        rdv_log_reject(s, k, "not a kumi rendezvous hello");
    } else if (!rdv_key_equal(p + 16, s->key)) {
        rdv_log_reject(s, k, "wrong job key");
    } else if (size != (uint32_t)s->npes || rank >= size) {
        snprintf(why, sizeof(why), "PE %u of %u, but the job has %d PEs", rank, size, s->npes);
        rdv_log_reject(s, k, why);
    } else if (s->by_rank[rank] != NULL || s->ended[rank]) {
        snprintf(why, sizeof(why), "PE %u already joined", rank);
        rdv_log_reject(s, k, why);
    } else {
        s->pending--;
        k->state          = RDV_C_JOINED;
        k->rank           = (int)rank;
        s->by_rank[rank]  = k;
        s->joined++;
        s->fn(s->arg, (int)rank, KUMI_RDV_EV_JOINED, 0);
        if (s->failing)
            rdv_conn_queue(s, k, RDV_FAIL, s->fail_msg, 8, now);
        return;
    }
    rdv_conn_close(s, k);
}

/* Reads what k sent and acts on each whole message. */
static void rdv_conn_read(struct kumi_rdv_server *s, struct rdv_conn *k, double now)
{
    while (k->state == RDV_C_HELLO || k->state == RDV_C_JOINED || k->state == RDV_C_BYE) {
        ssize_t n = recv(k->fd, k->in + k->have, k->in_cap - k->have, MSG_DONTWAIT);

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
        k->credit  = 0;
        while (k->have >= RDV_HDR && k->state != RDV_C_DEAD) {
            unsigned mask = k->state == RDV_C_HELLO ? 1u << RDV_HELLO
                          : k->state == RDV_C_JOINED ? 1u << RDV_HB | 1u << RDV_BYE
                                                       | 1u << RDV_EXIT | 1u << RDV_GATHER
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
            if (RDV_HDR + (size_t)len > k->in_cap) {
                /* a blob: room for exactly this message (bounded above) */
                uint8_t *p = realloc(k->in, RDV_HDR + (size_t)len);
                if (p == NULL) {
                    rdv_conn_lost(s, k, KUMI_RDV_EV_INVALID);
                    return;
                }
                k->in     = p;
                k->in_cap = RDV_HDR + (size_t)len;
            }
            if (k->have < RDV_HDR + (size_t)len)
                break;
            if (k->in[0] == RDV_HELLO) {
                rdv_on_hello(s, k, k->in + RDV_HDR, now);
            } else if (k->in[0] == RDV_GATHER) {
                rdv_on_gather(s, k, k->in + RDV_HDR, (size_t)len, now);
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
        if (k == NULL || grown == NULL || (k->in = malloc(RDV_IN_SMALL)) == NULL) {
            if (k != NULL)
                free(k->in);
            free(k);
            close(fd);
            continue;
        }
        k->in_cap = RDV_IN_SMALL;
        k->fd     = fd;
        k->rank   = -1;
        k->since  = k->last_rx = k->last_tx = now;
        kumi_rdv_format_addr(&ss, k->peer, sizeof(k->peer));
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

static void rdv_conn_free(struct rdv_conn *k)
{
    free(k->in);
    free(k->out);
    free(k);
}

/* The caller did not service us for gap seconds (rdv_server.h): nobody
 * was listening, so that time is nobody's silence. Called after reading
 * what arrived meanwhile (a PE's words wait in its socket, so this only
 * matters when the PE stalled too). One stall is forgiven whole; stalls
 * that keep coming, dead_s in all per silence, so a server that keeps
 * stalling still ends a silent PE within about 2 x dead_s. */
static void rdv_server_stall(struct kumi_rdv_server *s, double now, double gap)
{
    for (int i = 0; i < s->nconns; i++) {
        struct rdv_conn *k   = s->conns[i];
        double           add = rdv_stall_credit(gap, s->dead_s, k->credit);

        if (k->state == RDV_C_DEAD || add <= 0)
            continue;
        k->credit += add;
        k->since   = k->since + add < now ? k->since + add : now;
        k->last_rx = k->last_rx + add < now ? k->last_rx + add : now;
    }
}

void kumi_rdv_server_service(struct kumi_rdv_server *s, double now)
{
    struct epoll_event evs[64];
    int                n, w = 0;

    /* everything that arrived first (a batch holds 64 events; more PEs
     * may have spoken), so no PE is judged silent on unread words */
    for (int batch = 0; batch <= s->nconns / 64 + 1; batch++) {
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
        if (n < 64)
            break;
    }
    if (s->last_service > 0 && now - s->last_service > KUMI_RDV_STALL_S)
        rdv_server_stall(s, now, now - s->last_service);
    s->last_service = now;

    /* Silent PEs, the longest silent first: when a host vanishes, its PEs
     * fell silent before the ones that then blocked waiting for them, and
     * the owner reports only the first. The owner may keep one (quiet):
     * then it is asked again later, and the next one is looked at. Once
     * the job is ending, a quiet PE is no news. */
    while (!s->failing) {
        struct rdv_conn *oldest = NULL;

        for (int i = 0; i < s->nconns; i++) {
            struct rdv_conn *k = s->conns[i];
            if (k->state == RDV_C_JOINED && now - k->last_rx > s->dead_s && now >= k->ask_at &&
                (oldest == NULL || k->last_rx < oldest->last_rx))
                oldest = k;
        }
        if (oldest == NULL)
            break;
        if (s->quiet != NULL) {
            double wait = s->quiet(s->arg, oldest->rank, now - oldest->last_rx);

            if (wait > 0) {
                oldest->ask_at = now + wait;
                continue;
            }
        }
        rdv_conn_lost(s, oldest, KUMI_RDV_EV_SILENT);
    }
    for (int i = 0; i < s->nconns; i++) {
        struct rdv_conn *k = s->conns[i];

        if (k->state == RDV_C_HELLO && now - k->since > s->dead_s) {
            rdv_log_reject(s, k, "no hello in time");
            rdv_conn_close(s, k);
        } else if (k->state == RDV_C_JOINED && now - k->last_tx >= KUMI_RDV_HEARTBEAT_S) {
            rdv_conn_queue(s, k, RDV_HB, NULL, 0, now);
        }
    }
    /* free the connections closed in this round, now that no event
     * of the batch can point at them */
    for (int i = 0; i < s->nconns; i++) {
        if (s->conns[i]->state == RDV_C_DEAD)
            rdv_conn_free(s->conns[i]);
        else
            s->conns[w++] = s->conns[i];
    }
    s->nconns = w;
}

void kumi_rdv_server_fail(struct kumi_rdv_server *s, uint32_t failed, int32_t status)
{
    double now = kumi_tp_now();

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
                         const uint8_t key[KUMI_RDV_KEY_BYTES], double dead_s,
                         kumi_rdv_event_fn *fn, void *arg, char *err, size_t errlen)
{
    struct kumi_rdv_server *s;
    struct sockaddr_storage ss;
    socklen_t               sl;
    char                    with_port[INET6_ADDRSTRLEN + 8];
    struct epoll_event      ev = { .events = EPOLLIN, .data.ptr = NULL };
    int                     rc = KUMI_ERR_TRANSPORT;   /* unless said */

    if (npes < 1 || npes > KUMI_RDV_MAX_PES) {
        snprintf(err, errlen, "rendezvous: %d PEs is out of range", npes);
        return KUMI_ERR_INVALID;
    }
    snprintf(with_port, sizeof(with_port), strchr(addr, ':') ? "[%s]:1" : "%s:1", addr);
    if (kumi_rdv_parse_addr(with_port, &ss, &sl) != KUMI_OK) {
        snprintf(err, errlen, "rendezvous: '%s' is not a numeric IP address", addr);
        return KUMI_ERR_INVALID;
    }
    ((struct sockaddr_in *)&ss)->sin_port = 0;   /* same offset in sockaddr_in6 */
    s = calloc(1, sizeof(*s));
    if (s != NULL)
        s->lfd = s->epfd = -1;
    if (s == NULL || (s->by_rank = calloc((size_t)npes, sizeof(*s->by_rank))) == NULL ||
        (s->ended = calloc((size_t)npes, 1)) == NULL ||
        (s->blob = calloc((size_t)npes, sizeof(*s->blob))) == NULL ||
        (s->blob_len = calloc((size_t)npes, sizeof(*s->blob_len))) == NULL) {
        snprintf(err, errlen, "rendezvous: out of memory");
        rc = KUMI_ERR_NOMEM;
        goto fail;
    }
    s->npes   = npes;
    s->dead_s = dead_s;
    s->fn     = fn;
    s->arg  = arg;
    memcpy(s->key, key, KUMI_RDV_KEY_BYTES);
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
    kumi_rdv_format_addr(&ss, s->addr, sizeof(s->addr));
    *out = s;
    return KUMI_OK;
fail:
    kumi_rdv_server_close(s);
    return rc;
}

void kumi_rdv_server_set_quiet(struct kumi_rdv_server *s, kumi_rdv_quiet_fn *fn)
{
    s->quiet = fn;
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
        rdv_conn_free(s->conns[i]);
    }
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->epfd >= 0)
        close(s->epfd);
    for (int r = 0; s->blob != NULL && r < s->npes; r++)
        free(s->blob[r]);
    free(s->blob);
    free(s->blob_len);
    free(s->all);
    free(s->conns);
    free(s->by_rank);
    free(s->ended);
    free(s);
}
