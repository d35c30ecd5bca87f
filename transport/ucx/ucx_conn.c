/* ucx_conn.c -- the ucx transport's set-up and tear-down: memory, the UCP
 * context and worker, registration of every remotely accessible segment,
 * the exchange of worker addresses and packed rkeys through the bootstrap,
 * endpoints with error handling, and the endpoints' end. See README.md. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <ucs/config/global_opts.h>

#include "ucx_int.h"

static int kumi_ucx_err(struct kumi_ucx *s, const char *what, ucs_status_t st)
{
    (void)s;
    kumi_tp_log(KUMI_TP_LOG_ERROR, "ucx", "%s: %s", what, ucs_status_string(st));
    return KUMI_ERR_TRANSPORT;
}

/* Whether UCX_TLS lets UCX use its tcp transport: unset, "all", naming
 * "tcp", or a "^" list that does not. A key nobody consumes makes UCX warn
 * ("invalid configuration") at worker creation, as with UCX_TLS=sm,self. */
static int kumi_ucx_tls_tcp(void)
{
    const char *t = getenv("UCX_TLS");
    int         neg, tcp = 0, all = 0;

    if (t == NULL || *t == '\0')
        return 1;
    neg = *t == '^';
    for (t += neg; *t != '\0';) {
        size_t n = strcspn(t, ",:");
        tcp |= n == 3 && strncmp(t, "tcp", 3) == 0;
        all |= n == 3 && strncmp(t, "all", 3) == 0;
        t += n;
        t += strcspn(t, ",");          /* past a ":aux" suffix */
        t += *t == ',';
    }
    return neg ? !tcp : tcp || all;
}

/* UCX's tcp transport sends an RMA put (which it emulates with its own
 * active messages) and every long message in fragments of its
 * TX_SEG_SIZE, 8 KiB by default: one send each and, for a put, one
 * completion message back each, 128 of both for 1 MiB. Its receiver takes
 * fragments up to its RX_SEG_SIZE (64 KiB by default) whole. So fragments
 * as large as the receiver's segment (README: Set-up; a 1 MiB put and its
 * quiet took a quarter of the time): the key applies to the tcp interface
 * only (no other UCX transport has a TX_SEG_SIZE). A user's
 * UCX_TCP_TX_SEG_SIZE wins; one who set only UCX_TCP_RX_SEG_SIZE gets
 * fragments of that size (never more than a receiver with the same
 * setting takes). */
static void kumi_ucx_tcp_seg(ucp_config_t *cfg)
{
    const char *rx = getenv("UCX_TCP_RX_SEG_SIZE");

    if (getenv("UCX_TCP_TX_SEG_SIZE") == NULL && kumi_ucx_tls_tcp())
        (void)ucp_config_modify(cfg, "TX_SEG_SIZE", rx != NULL && *rx != '\0' ? rx
                                                                            : KUMI_UCX_TCP_SEG);
}

/* Memory, context, worker, registrations and the AM handler: everything a
 * peer may touch exists before my address is published. */
int kumi_ucx_setup(struct kumi_ucx *s, const struct kumi_tp_params *p)
{
    struct kumi_tp *tp = s->tp;
    ucp_config_t   *cfg;
    ucs_status_t    st;
    int             rc = kumi_tp_map_private(tp, p, "ucx", &s->map, &s->map_len);

    if (rc != KUMI_OK || p->size == 1)
        return rc;          /* a job of one needs no UCX at all */
    st = ucp_config_read(NULL, NULL, &cfg);
    if (st != UCS_OK)
        return kumi_ucx_err(s, "ucp_config_read", st);
    /* remote atomics must stay atomic with respect to the owner's CPU
     * atomics (transport.h: kumi_tp_amo_apply): a NIC's own atomics are not */
    ucp_config_modify(cfg, "ATOMIC_MODE", "cpu");
    kumi_ucx_tcp_seg(cfg);
    ucp_params_t prm = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED
                      | UCP_PARAM_FIELD_NAME,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM
                    | UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 0,
        .name = "kumi",
    };
    st = ucp_init(&prm, cfg, &s->ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return kumi_ucx_err(s, "ucp_init", st);
    /* one worker per PE, driven by the callers and by the progress
     * thread: UCX locks it (UCS_THREAD_MODE_MULTI) */
    ucp_worker_params_t wp = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_MULTI,
    };
    st = ucp_worker_create(s->ctx, &wp, &s->worker);
    if (st != UCS_OK)
        return kumi_ucx_err(s, "ucp_worker_create", st);
    for (int seg = 0; seg < KUMI_SEG_COUNT; seg++) {
        if (tp->seg_size[seg] == 0 || tp->local[seg] == NULL)
            continue;
        ucp_mem_map_params_t mp = {
            .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
            .address = tp->local[seg],
            .length = tp->seg_size[seg],
        };
        st = ucp_mem_map(s->ctx, &mp, &s->mem[seg]);
        if (st != UCS_OK)
            return kumi_ucx_err(s, "ucp_mem_map", st);
    }
    ucp_am_handler_param_t hp = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB
                      | UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        /* a put of 128 KiB is many eager fragments: one call for all */
        .flags = UCP_AM_FLAG_WHOLE_MSG,
        .id = KUMI_UCX_AM_ID, .cb = kumi_ucx_am_cb, .arg = s,
    };
    st = ucp_worker_set_am_recv_handler(s->worker, &hp);
    if (st != UCS_OK)
        return kumi_ucx_err(s, "ucp_worker_set_am_recv_handler", st);
    st = ucp_worker_get_efd(s->worker, &s->efd);
    if (st != UCS_OK)
        return kumi_ucx_err(s, "ucp_worker_get_efd", st);
    return KUMI_OK;
}

/* My blob: [u32 addr_len][u32 rkey_len x SEGS][u64 base x SEGS][address]
 * [rkeys]. Blobs differ in length, the all-gather wants one: lengths
 * first, then every blob padded to the longest. */
#define KUMI_UCX_BLOB_HDR (4 + 4 * KUMI_SEG_COUNT + 8 * KUMI_SEG_COUNT)

static uint8_t *kumi_ucx_blob(struct kumi_ucx *s, uint32_t *len)
{
    struct kumi_tp *tp = s->tp;
    ucp_address_t  *addr;
    size_t          alen, rlen[KUMI_SEG_COUNT] = { 0 };
    void           *rk[KUMI_SEG_COUNT] = { NULL };
    uint8_t        *b = NULL;

    if (ucp_worker_get_address(s->worker, &addr, &alen) != UCS_OK)
        return NULL;
    size_t total = KUMI_UCX_BLOB_HDR + alen;
    for (int seg = 0; seg < KUMI_SEG_COUNT; seg++) {
        if (s->mem[seg] != NULL && ucp_rkey_pack(s->ctx, s->mem[seg], &rk[seg], &rlen[seg]) != UCS_OK)
            goto out;
        total += rlen[seg];
    }
    b = calloc(1, total);
    if (b == NULL)
        goto out;
    uint32_t a32 = (uint32_t)alen;
    memcpy(b, &a32, 4);
    size_t at = KUMI_UCX_BLOB_HDR;
    memcpy(b + at, addr, alen);
    at += alen;
    for (int seg = 0; seg < KUMI_SEG_COUNT; seg++) {
        uint32_t r32 = (uint32_t)rlen[seg];
        uint64_t base = (uint64_t)(uintptr_t)tp->local[seg];
        memcpy(b + 4 + 4 * seg, &r32, 4);
        memcpy(b + 4 + 4 * KUMI_SEG_COUNT + 8 * seg, &base, 8);
        if (rlen[seg] != 0)
            memcpy(b + at, rk[seg], rlen[seg]);
        at += rlen[seg];
    }
    *len = (uint32_t)total;
out:
    for (int seg = 0; seg < KUMI_SEG_COUNT; seg++)
        if (rk[seg] != NULL)
            ucp_rkey_buffer_release(rk[seg]);
    ucp_worker_release_address(s->worker, addr);
    return b;
}

/* One peer's endpoint and rkeys from its blob (checked against its
 * stated lengths: a bootstrap blob is data from elsewhere). */
static int kumi_ucx_peer_from(struct kumi_ucx *s, int pe, const uint8_t *b, uint32_t len)
{
    struct kumi_ucx_peer *p = &s->peer[pe];
    uint32_t              alen, rlen[KUMI_SEG_COUNT];
    uint64_t              total = KUMI_UCX_BLOB_HDR;
    ucs_status_t          st;

    if (len < KUMI_UCX_BLOB_HDR)
        return KUMI_ERR_TRANSPORT;
    memcpy(&alen, b, 4);
    total += alen;
    for (int seg = 0; seg < KUMI_SEG_COUNT; seg++) {
        memcpy(&rlen[seg], b + 4 + 4 * seg, 4);
        memcpy(&p->base[seg], b + 4 + 4 * KUMI_SEG_COUNT + 8 * seg, 8);
        total += rlen[seg];
    }
    if (total > len) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "ucx", "PE %d's address blob is malformed", pe);
        return KUMI_ERR_TRANSPORT;
    }
    ucp_ep_params_t ep = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE
                      | UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .address = (const ucp_address_t *)(b + KUMI_UCX_BLOB_HDR),
        .err_mode = UCP_ERR_HANDLING_MODE_PEER,
        .err_handler = { .cb = kumi_ucx_ep_err, .arg = p },
    };
    /* UCX logs the refusal handled below as an error: not one for kumi
     * (single-threaded here: open) */
    ucs_log_level_t lvl = ucs_global_opts.log_component.log_level;
    if (lvl < UCS_LOG_LEVEL_DEBUG)
        ucs_global_opts.log_component.log_level = UCS_LOG_LEVEL_FATAL;
    st = ucp_ep_create(s->worker, &ep, &p->ep);
    ucs_global_opts.log_component.log_level = lvl;
    if (st == UCS_ERR_UNREACHABLE) {
        /* UCX 1.13's shared-memory transports (posix, sysv, cma) cannot
         * report a dead peer: without error handling they reach it, and a
         * death is the launcher's word alone (README: failures) */
        ep.field_mask &= ~(uint64_t)(UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE
                                     | UCP_EP_PARAM_FIELD_ERR_HANDLER);
        st = ucp_ep_create(s->worker, &ep, &p->ep);
    }
    if (st != UCS_OK)
        return kumi_ucx_err(s, "ucp_ep_create", st);
    size_t at = KUMI_UCX_BLOB_HDR + alen;
    for (int seg = 0; seg < KUMI_SEG_COUNT; seg++) {
        if (rlen[seg] != 0) {
            st = ucp_ep_rkey_unpack(p->ep, b + at, &p->rkey[seg]);
            if (st != UCS_OK)
                return kumi_ucx_err(s, "ucp_ep_rkey_unpack", st);
        }
        at += rlen[seg];
    }
    return KUMI_OK;
}

/* Publishes my worker address and rkeys and makes an endpoint to every
 * peer: two all-gathers (lengths, then the padded blobs). */
int kumi_ucx_exchange(struct kumi_ucx *s)
{
    const struct kumi_tp_boot *b = s->boot;
    uint32_t  mine = 0, max = 0, *lens = calloc((size_t)s->size, 4);
    uint8_t  *blob = kumi_ucx_blob(s, &mine), *pad = NULL, *all = NULL;
    int       rc = KUMI_ERR_NOMEM;

    /* every PE must take part in both all-gathers, even one that failed
     * to make its blob (it publishes length 0 and fails afterwards) */
    if (lens == NULL || b->allgather(b, &mine, lens, 4) != KUMI_OK) {
        rc = KUMI_ERR_TRANSPORT;
        goto out;
    }
    for (int pe = 0; pe < s->size; pe++)
        max = lens[pe] > max ? lens[pe] : max;
    pad = calloc(1, max ? max : 1);
    all = calloc((size_t)s->size, max ? max : 1);
    if (pad != NULL && blob != NULL)
        memcpy(pad, blob, mine);
    if (pad == NULL || all == NULL || b->allgather(b, pad, all, max) != KUMI_OK) {
        rc = KUMI_ERR_TRANSPORT;
        goto out;
    }
    rc = blob != NULL ? KUMI_OK : KUMI_ERR_TRANSPORT;
    for (int pe = 0; pe < s->size && rc == KUMI_OK; pe++) {
        s->peer[pe].s = s;
        s->peer[pe].pe = pe;
        if (pe != s->rank)
            rc = kumi_ucx_peer_from(s, pe, all + (size_t)pe * max, lens[pe]);
    }
out:
    free(lens);
    free(blob);
    free(pad);
    free(all);
    return rc;
}

/* UCP's verdict on an endpoint: the peer is gone (its process died, its
 * connection broke). After its FIN, or while we close, that is expected. */
void kumi_ucx_ep_err(void *arg, ucp_ep_h ep, ucs_status_t status)
{
    struct kumi_ucx_peer *p = arg;
    struct kumi_ucx      *s = p->s;

    (void)ep;
    __atomic_store_n(&p->lost, 1, __ATOMIC_RELEASE);
    if (__atomic_load_n(&p->fin_rx, __ATOMIC_ACQUIRE) || __atomic_load_n(&s->closing, __ATOMIC_ACQUIRE))
        return;
    /* a PE that asked the job to end (kumi_global_exit) leaves without
     * alarm; otherwise one line for the first loss */
    uint32_t f = __atomic_load_n(s->tp->failed, __ATOMIC_ACQUIRE);
    if (!kumi_tp_fail_is_exit(f) && !__atomic_exchange_n(&s->reported, 1, __ATOMIC_ACQ_REL))
        kumi_tp_log(KUMI_TP_LOG_ERROR, "ucx", "lost PE %d: %s", p->pe, ucs_status_string(status));
    kumi_tp_fail(s->tp, 1u + (uint32_t)p->pe, KUMI_TP_STATUS_UNKNOWN);
}

/* Endpoints, keys, registrations, worker, context, memory: whatever
 * exists, in reverse. Endpoints close by force: close() already had the
 * goodbye (every peer's FIN), or the job failed and nobody waits. */
void kumi_ucx_teardown(struct kumi_ucx *s)
{
    kumi_ucx_thread_stop(s);
    __atomic_store_n(&s->closing, 1, __ATOMIC_RELEASE);
    for (int pe = 0; s->peer != NULL && pe < s->size; pe++) {
        struct kumi_ucx_peer *p = &s->peer[pe];
        for (int seg = 0; seg < KUMI_SEG_COUNT; seg++)
            if (p->rkey[seg] != NULL)
                ucp_rkey_destroy(p->rkey[seg]);
        if (p->ep != NULL) {
            ucp_request_param_t rp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                       .flags = UCP_EP_CLOSE_FLAG_FORCE };
            kumi_ucx_wait_until(s, ucp_ep_close_nbx(p->ep, &rp), kumi_ucx_now() + 1.0);
        }
    }
    for (int seg = 0; seg < KUMI_SEG_COUNT; seg++)
        if (s->mem[seg] != NULL)
            ucp_mem_unmap(s->ctx, s->mem[seg]);
    if (s->worker != NULL)
        ucp_worker_destroy(s->worker);
    if (s->ctx != NULL)
        ucp_cleanup(s->ctx);
    if (s->cfd >= 0)       /* as long as the worker: idle() may still wake */
        close(s->cfd);
    s->cfd = -1;
    if (s->map != NULL)
        munmap(s->map, s->map_len);
}

/* Whether a caller is inside a kumi wait now: it polled at least twice
 * since the thread last looked (*seen: the count then), the last time
 * within KUMI_UCX_ACTIVE_NS (a wait polls every few us). One poll is not
 * enough: a program that computes and calls kumi now and then
 * (kumi_test) polls once, and the request that woke the thread may come
 * right after it. Neither is a recent poll alone: the thread's own wake
 * may have preempted a waiting caller on a shared CPU, whose last poll is
 * then recent too. */
static int kumi_ucx_caller_polls(struct kumi_ucx *s, uint32_t *seen)
{
    uint32_t polls = __atomic_load_n(&s->polls, __ATOMIC_RELAXED), was = *seen;
    uint64_t last = __atomic_load_n(&s->poll_ns, __ATOMIC_RELAXED);

    *seen = polls;
    return polls - was >= 2 && kumi_ucx_ns() - last < (uint64_t)KUMI_UCX_ACTIVE_NS;
}

/* The caller's time spent runnable but not running (ns; the second field
 * of its schedstat), or 0 when it cannot be read: then the naps stay at
 * KUMI_UCX_NAP_MAX_NS, as if the CPU were shared. */
static uint64_t kumi_ucx_caller_wait(int fd)
{
    char               buf[96];
    unsigned long long run, wait;
    ssize_t            n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;

    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? (uint64_t)wait : 0;
}

/* Takes the wakes (idle(), stop) that cut the thread's nap or wait short:
 * one read resets the eventfd's counter. Called once poll found it
 * readable, and only this thread reads it: the count itself is of no use */
static void kumi_ucx_wake_clear(struct kumi_ucx *s)
{
    uint64_t v;

    if (read(s->cfd, &v, sizeof(v)) < 0) {
        /* not readable after all (EAGAIN): nothing to clear */
    }
}

/* The progress thread. Two spinning PEs on two cores cannot afford a third
 * poller, nor a thread woken by every message a spinning caller is about
 * to take itself: so while a caller polls (kumi_ucx_caller_polls: it is
 * inside a kumi wait) the thread naps KUMI_UCX_NAP_NS at a time and leaves
 * the worker alone. Otherwise (the program computes, or a caller sleeps on
 * its doorbell: wait policy block) it drives the worker until idle, arms
 * it and blocks in poll() on its wakeup fd, so a peer's get, atomic, probe
 * or DSM request aimed at a computing PE wakes it at once (over UCX's tcp
 * even RMA and AMOs need this PE's progress), and rings the doorbell when
 * messages were applied. On every wake it looks again: a caller that polls
 * meanwhile (woken by the same message) sends it back to its naps before
 * it touches the worker. Who drives the worker is settled by `driving`
 * (kumi_ucx_serve), never by UCX's spinlock. */
static void *kumi_ucx_thread(void *arg)
{
    struct kumi_ucx *s = arg;
    uint32_t         seen = __atomic_load_n(&s->polls, __ATOMIC_RELAXED);
    long             nap = KUMI_UCX_NAP_NS;
    char             path[64];
    int              sfd = -1;
    uint64_t         waited = 0;
    unsigned         calm = 0;

    /* naps as asked, not plus the default 50 us of slack */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
    /* single-threaded jobs only: with KUMI_INIT_THREADS any thread may be
     * the one polling */
    snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", s->caller_tid);
    if (!s->threads && s->caller_tid > 0)
        sfd = open(path, O_RDONLY | O_CLOEXEC);
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        int armed, n = -1;
        if (!kumi_ucx_caller_polls(s, &seen) || __atomic_load_n(&s->sleeping, __ATOMIC_ACQUIRE))
            n = kumi_ucx_serve(s, &armed);
        if (n < 0) {          /* a caller polls, or drives (perhaps preempted there) */
            struct timespec ts = { 0, nap };
            struct pollfd   pf = { .fd = s->cfd, .events = POLLIN };
            /* a nap that idle() or stop cut short: look again at once */
            if (ppoll(&pf, 1, &ts, NULL) > 0) {
                kumi_ucx_wake_clear(s);
                nap = KUMI_UCX_NAP_NS;
                waited = 0;
                calm = 0;
                continue;
            }
            /* the caller still at it: each nap twice the last, up to
             * KUMI_UCX_NAP_MAX_NS (every wake costs the caller's CPU), on
             * to KUMI_UCX_NAP_QUIET_NS while nothing else wanted its CPU */
            if (nap < KUMI_UCX_NAP_MAX_NS / 2) {
                nap *= 2;
            } else if (sfd < 0) {
                nap = KUMI_UCX_NAP_MAX_NS;   /* no schedstat: as if shared */
            } else {
                /* the caller's run-queue wait over the nap just ended (the
                 * reading before it: the end of the nap before) */
                uint64_t w = kumi_ucx_caller_wait(sfd);
                int      quiet = waited != 0 && w >= waited && w - waited < KUMI_UCX_QUIET_WAIT_NS;
                waited = w;
                /* grown only after KUMI_UCX_CALM_NAPS quiet ones in a row:
                 * the wakes' boost itself quiets a shared CPU for a while,
                 * and 1.6 ms naps on one lost the boost again (stalls) */
                calm = quiet ? calm + 1 : 0;
                if (calm < KUMI_UCX_CALM_NAPS)
                    nap = KUMI_UCX_NAP_MAX_NS;
                else if (nap < KUMI_UCX_NAP_QUIET_NS / 2)
                    nap *= 2;
                else
                    nap = KUMI_UCX_NAP_QUIET_NS;
            }
            continue;
        }
        nap = KUMI_UCX_NAP_NS;
        waited = 0;
        calm = 0;
        if (n != 0 || !armed)
            continue;
        struct pollfd pf[2] = { { .fd = s->efd, .events = POLLIN }, { .fd = s->cfd, .events = POLLIN } };
        if (poll(pf, s->cfd >= 0 ? 2 : 1, 1) > 0 && (pf[1].revents & POLLIN))
            kumi_ucx_wake_clear(s);
    }
    if (sfd >= 0)
        close(sfd);
    return NULL;
}

void kumi_ucx_thread_wake(struct kumi_ucx *s)
{
    uint64_t one = 1;

    if (s->cfd >= 0 && write(s->cfd, &one, sizeof(one)) < 0) {
        /* a full counter: it is readable anyway */
    }
    if (s->worker != NULL)
        ucp_worker_signal(s->worker);
}

int kumi_ucx_thread_start(struct kumi_ucx *s)
{
    /* without it no idle() or stop could cut a nap short: the thread
     * would serve a caller gone to sleep only when its nap ends */
    s->cfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->cfd < 0) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "ucx", "cannot start the progress thread: eventfd: %s",
                    strerror(errno));
        return KUMI_ERR_TRANSPORT;
    }
    if (pthread_create(&s->thread, NULL, kumi_ucx_thread, s) != 0) {
        kumi_tp_log(KUMI_TP_LOG_ERROR, "ucx", "cannot start the progress thread");
        return KUMI_ERR_TRANSPORT;
    }
    s->thread_on = 1;
    return KUMI_OK;
}

void kumi_ucx_thread_stop(struct kumi_ucx *s)
{
    if (!s->thread_on)
        return;
    __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
    kumi_ucx_thread_wake(s);
    pthread_join(s->thread, NULL);
    s->thread_on = 0;
}
