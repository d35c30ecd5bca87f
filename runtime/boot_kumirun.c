/*
 * boot_kumirun.c -- the bootstrap of a job kumirun started (launch.h is
 * the contract): identity and the node map from its environment, the
 * failure word in its control segment (PEs on this host), and the
 * exchange over its rendezvous (rdv.h), which a PE joins on its first
 * all-gather. Once joined, the rendezvous is the job's control channel
 * too: served by poll (a transport's thread, or boot.c's), it brings
 * kumirun's word that the job fails, and carries kumi_global_exit's
 * request and the final BYE. A PE started on another host (KUMI_REMOTE)
 * has no control segment, and nobody there to kill it: once its job has
 * failed it exits by itself if it has not ended within a grace period.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "boot.h"
#include "rdv.h"
#include "rt.h"

/* a remote PE still alive this long after its job failed exits by itself */
#define KUMI_BOOT_ORPHAN_GRACE_S 3.0
/* ... or this long after a PE asked the job to end (kumi_global_exit):
 * with nothing to report, when kumirun's SIGKILL would reach a PE on its
 * own host (kumirun_supervise.c: notice 0.2 s, grace 1 s) */
#define KUMI_BOOT_ORPHAN_EXIT_S  1.2
/* kumi_global_exit: how long to wait for kumirun's answer */
#define KUMI_BOOT_EXIT_WAIT_S    2.0

struct kumi_boot_kr {
    struct kumi_ctl       *ctl;       /* NULL on another host          */
    size_t                 ctl_bytes;
    int                    remote;
    const char            *rdv;       /* KUMI_RDV                      */
    const char            *key_hex;   /* KUMI_JOB_KEY                  */
    double                 timeout;
    struct kumi_rdv_client c;
    int                    joined;    /* c is (or was) connected       */
    double                 orphan_at; /* remote, job failed: exit then */
    int                    orphan_status;
};

static int kumi_boot_kr_detect(void)
{
    return getenv(KUMI_ENV_JOB_ID) != NULL;
}

static int kumi_boot_kr_env_int(const char *name, long min, long max, long *out)
{
    const char *v = getenv(name);
    char       *end;
    long        x;

    if (v == NULL)
        return KUMI_ERR_INVALID;
    errno = 0;
    x = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || x < min || x > max)
        return KUMI_ERR_INVALID;
    *out = x;
    return KUMI_OK;
}

/* KUMI_NODE_MAP for size ranks into node_of; the number of nodes, or -1
 * when the text is not a map of exactly size ranks whose nodes are
 * numbered in order of first appearance. */
static int kumi_boot_kr_node_map(const char *text, int size, int *node_of)
{
    const char *p = text;
    int         rank = 0, nodes = 0;

    while (*p != '\0') {
        char *end;
        long  node, count;

        if (*p < '0' || *p > '9')
            return -1;
        errno = 0;
        node = strtol(p, &end, 10);
        if (errno != 0 || *end != ':' || end[1] < '0' || end[1] > '9')
            return -1;
        count = strtol(end + 1, &end, 10);
        if (errno != 0 || count < 1 || count > size - rank || node > nodes ||
            (*end != ',' && *end != '\0') || (*end == ',' && end[1] == '\0'))
            return -1;
        if (node == nodes)
            nodes++;
        for (long i = 0; i < count; i++)
            node_of[rank++] = (int)node;
        p = *end == ',' ? end + 1 : end;
    }
    return rank == size ? nodes : -1;
}

static int kumi_boot_kr_bad_env(const char *what, const char *value)
{
    return kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "bad launcher environment (%s=%s): "
                         "start kumi programs with kumirun or alone", what,
                         value != NULL ? value : "(unset)");
}

static int kumi_boot_kr_ctl_map(struct kumi_boot *b, struct kumi_boot_kr *k)
{
    char             name[128];
    int              fd;
    struct kumi_ctl *ctl;
    size_t           bytes = kumi_ctl_bytes((uint32_t)b->size);

    kumi_launch_segname(name, sizeof(name), b->job_id, "ctl");
    fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "cannot open the job's control "
                             "segment %s: %s (was kumirun killed?)", name, strerror(errno));
    ctl = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (ctl == MAP_FAILED)
        return kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "cannot map %s: %s", name,
                             strerror(errno));
    if (__atomic_load_n(&ctl->magic, __ATOMIC_ACQUIRE) != KUMI_CTL_MAGIC
        || ctl->version != KUMI_CTL_VERSION || ctl->npes != (uint32_t)b->size) {
        munmap(ctl, bytes);
        return kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "control segment %s does not match "
                             "this job (kumirun and libkumi of different versions?)", name);
    }
    ctl->pe[b->rank].pid = (int32_t)getpid();
    __atomic_store_n(&ctl->pe[b->rank].state, KUMI_PE_INITIALIZED, __ATOMIC_RELEASE);
    k->ctl         = ctl;
    k->ctl_bytes   = bytes;
    b->failed      = &ctl->failed;
    b->fail_status = &ctl->fail_status;
    return KUMI_OK;
}

static int kumi_boot_kr_init(struct kumi_boot *b)
{
    const char          *job = getenv(KUMI_ENV_JOB_ID), *map = getenv(KUMI_ENV_NODE_MAP);
    const char          *remote = getenv(KUMI_ENV_REMOTE), *over = getenv(KUMI_ENV_OVERSUB);
    const char          *addr = getenv(KUMI_ENV_TCP_ADDR);
    struct kumi_boot_kr *k;
    long                 rank, size;
    int                  rc;

    if (job == NULL || strlen(job) >= sizeof(b->job_id) || strpbrk(job, "/") != NULL)
        return kumi_boot_kr_bad_env(KUMI_ENV_JOB_ID, job);
    if (kumi_boot_kr_env_int(KUMI_ENV_SIZE, 1, 1 << 20, &size) != KUMI_OK)
        return kumi_boot_kr_bad_env(KUMI_ENV_SIZE, getenv(KUMI_ENV_SIZE));
    if (kumi_boot_kr_env_int(KUMI_ENV_RANK, 0, size - 1, &rank) != KUMI_OK)
        return kumi_boot_kr_bad_env(KUMI_ENV_RANK, getenv(KUMI_ENV_RANK));
    snprintf(b->job_id, sizeof(b->job_id), "%s", job);
    b->rank = (int)rank;
    b->size = (int)size;
    kumi_rt.rank = b->rank;   /* messages from here on name the PE */
    b->node_of = calloc((size_t)size, sizeof(*b->node_of));
    k = calloc(1, sizeof(*k));
    if (b->node_of == NULL || k == NULL) {
        free(k);
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "no memory for the node map of %ld "
                             "PEs", size);
    }
    /* without a map: every PE on one node */
    b->nodes = 1;
    if (map != NULL && (b->nodes = kumi_boot_kr_node_map(map, b->size, b->node_of)) < 0) {
        free(k);
        return kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "bad launcher environment "
                             "(%s=%s for %d PEs): start kumi programs with kumirun or alone",
                             KUMI_ENV_NODE_MAP, map, b->size);
    }
    for (int pe = 0; pe < b->size; pe++) {
        if (b->node_of[pe] != b->node_of[b->rank])
            continue;
        b->local_rank += pe < b->rank;
        b->local_size++;
    }
    b->oversubscribed = over != NULL && over[0] == '1';
    b->verdict_s      = 1.0;
    if (addr != NULL)
        snprintf(b->host_addr, sizeof(b->host_addr), "%s", addr);
    k->remote  = remote != NULL && strcmp(remote, "1") == 0;
    k->rdv     = getenv(KUMI_ENV_RDV);
    k->key_hex = getenv(KUMI_ENV_JOB_KEY);
    k->timeout = (double)kumi_rt.cfg.startup_timeout;
    k->c.fd    = -1;
    b->priv    = k;
    /* another host: failures come over the rendezvous */
    if (!k->remote && (rc = kumi_boot_kr_ctl_map(b, k)) != KUMI_OK) {
        free(k);
        b->priv = NULL;
        return rc;
    }
    return KUMI_OK;
}

static void kumi_boot_kr_free(struct kumi_boot_blobs *all)
{
    struct kumi_rdv_all r = { .data = all->data, .off = all->off, .len = all->len, .n = all->n };

    kumi_rdv_all_free(&r);
}

static int kumi_boot_kr_gather(struct kumi_boot *b, const void *mine, size_t len,
                               struct kumi_boot_blobs *all)
{
    struct kumi_boot_kr *k = b->priv;
    struct kumi_rdv_all  r;
    uint8_t              key[KUMI_RDV_KEY_BYTES];
    char                 err[256];

    if (!k->joined) {
        if (k->rdv == NULL || kumi_rdv_parse_key(k->key_hex, key) != 0)
            return kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "bootstrap: this job's "
                                 "exchange needs %s and %s from kumirun, which are missing or "
                                 "malformed", KUMI_ENV_RDV, KUMI_ENV_JOB_KEY);
        if (kumi_rdv_join(&k->c, k->rdv, key, b->rank, b->size, k->timeout,
                          (double)kumi_rt.cfg.heartbeat_timeout, err,
                          sizeof(err)) != 0)
            return kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "cannot join the job's "
                                 "rendezvous at %s: %s", k->rdv, err);
        k->joined = 1;
        /* kumirun on this host: its silence while it lives is not its loss
         * (rdv.h); its pid leads the job id (launch.h) */
        if (!k->remote)
            k->c.launcher = strtol(b->job_id, NULL, 10);
    }
    if (kumi_rdv_allgather(&k->c, mine, len, &r, k->timeout, err, sizeof(err)) != 0)
        return kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "bootstrap: %s", err);
    *all = (struct kumi_boot_blobs){ .data = r.data, .off = r.off, .len = r.len, .n = r.n,
                                     .free = kumi_boot_kr_free };
    return KUMI_OK;
}

static int kumi_boot_kr_needs_poll(struct kumi_boot *b)
{
    struct kumi_boot_kr *k = b->priv;

    return k->joined;
}

static int kumi_boot_kr_poll(struct kumi_boot *b, double now)
{
    struct kumi_boot_kr *k = b->priv;
    uint32_t             failed = 0;
    int32_t              status = 1;

    /* Nobody else can kill a PE on another host once its job is gone
     * (ssh does not forward kumirun's SIGKILL): one that has not ended by
     * itself within the grace (a program computing without kumi calls,
     * or stuck outside kumi) ends here. */
    if (k->orphan_at > 0 && now >= k->orphan_at) {
        if (!kumi_tp_fail_is_exit(__atomic_load_n(kumi_rt.failed, __ATOMIC_ACQUIRE)))
            fprintf(stderr, "kumi[%d]: the job failed and this PE did not end within %.0f s; "
                    "exiting (a PE on another host does not outlive its job)\n", b->rank,
                    KUMI_BOOT_ORPHAN_GRACE_S);
        _exit(k->orphan_status);
    }
    if (!k->joined || k->c.fd < 0)
        return k->orphan_at > 0;
    if (kumi_rdv_service(&k->c, now, &failed, &status) == 0)
        return 0;
    if (failed == 0)
        failed = KUMI_TP_FAIL_LAUNCHER;
    kumi_boot_record_fail(failed, status);
    if (k->remote && kumi_tp_fail_is_exit(failed)) {
        k->orphan_at     = now + KUMI_BOOT_ORPHAN_EXIT_S;
        k->orphan_status = status;   /* 0..255, the status asked for */
    } else if (k->remote) {
        k->orphan_at     = now + KUMI_BOOT_ORPHAN_GRACE_S;
        k->orphan_status = status > 0 && status < 256 ? status : 1;
    }
    return 1;
}

/* Of concurrent requests the first in the segment wins, so this PE, the
 * others and kumirun all end with the same status. */
static void kumi_boot_kr_exit_claim(struct kumi_boot *b, int *pe, int *status)
{
    struct kumi_boot_kr *k = b->priv;
    uint64_t             req = 0, mine;

    if (k->ctl == NULL)
        return;
    mine = kumi_ctl_exit_req(*pe, *status);
    if (!__atomic_compare_exchange_n(&k->ctl->exit_req, &req, mine, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        *pe     = kumi_ctl_exit_req_pe(req);
        *status = kumi_ctl_exit_req_status(req);
    }
}

/* kumirun hears of it over the rendezvous (the only way from another
 * host) and answers every PE, this one last of all, naming the request
 * that won. */
static int kumi_boot_kr_exit_job(struct kumi_boot *b, int status)
{
    struct kumi_boot_kr *k = b->priv;
    uint32_t             failed;
    int32_t              job_status;

    if (k->joined && k->c.fd >= 0 &&
        kumi_rdv_request_exit(&k->c, status, KUMI_BOOT_EXIT_WAIT_S, &failed, &job_status) == 1
        && kumi_tp_fail_is_exit(failed))
        status = job_status;   /* the request kumirun heard first */
    return status;
}

static void kumi_boot_kr_fini(struct kumi_boot *b, enum kumi_boot_end how, int status)
{
    struct kumi_boot_kr *k = b->priv;

    (void)status;
    if (k == NULL)
        return;
    if (how == KUMI_BOOT_END_EXIT)
        return;   /* exit follows: the segment goes with the process */
    if (k->joined)
        kumi_rdv_leave(&k->c, how == KUMI_BOOT_END_FINALIZED);
    if (k->ctl != NULL) {
        if (how == KUMI_BOOT_END_FINALIZED)
            __atomic_store_n(&k->ctl->pe[b->rank].state, KUMI_PE_FINALIZED, __ATOMIC_RELEASE);
        munmap(k->ctl, k->ctl_bytes);
    }
    free(k);
    b->priv = NULL;
}

const struct kumi_boot_ops kumi_boot_kumirun_ops = {
    .name       = "kumirun",
    .detect     = kumi_boot_kr_detect,
    .init       = kumi_boot_kr_init,
    .gather     = kumi_boot_kr_gather,
    .poll       = kumi_boot_kr_poll,
    .needs_poll = kumi_boot_kr_needs_poll,
    .exit_claim = kumi_boot_kr_exit_claim,
    .exit_job   = kumi_boot_kr_exit_job,
    .fini       = kumi_boot_kr_fini,
};
