/*
 * boot.c -- the bootstrap service (boot.h): picking the backend, the
 * exchange built from whichever half a backend has (key-value store or
 * all-gather of blobs), the view transports get (struct kumi_tp_boot), a
 * service thread for a launcher's channel no transport serves, and the
 * singleton backend.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "boot.h"
#include "rt.h"

/* KUMI_BOOTSTRAP's choices after auto, in order; auto tries them so */
static const struct kumi_boot_ops *const kumi_boot_all[] = {
    &kumi_boot_kumirun_ops, &kumi_boot_pmix_ops, &kumi_boot_pmi2_ops, &kumi_boot_singleton_ops,
};

/* ------------------------------------------------------------ the view */

static struct kumi_boot *kumi_boot_of(const struct kumi_tp_boot *tb)
{
    return tb->ctx;
}

static int kumi_boot_tp_put(const struct kumi_tp_boot *tb, const char *key, const void *val,
                            size_t len)
{
    return kumi_boot_put(kumi_boot_of(tb), key, val, len);
}

static int kumi_boot_tp_fence(const struct kumi_tp_boot *tb)
{
    return kumi_boot_fence(kumi_boot_of(tb));
}

static int kumi_boot_tp_get(const struct kumi_tp_boot *tb, int pe, const char *key, void *val,
                            size_t cap, size_t *len)
{
    return kumi_boot_get(kumi_boot_of(tb), pe, key, val, cap, len);
}

static int kumi_boot_tp_allgather(const struct kumi_tp_boot *tb, const void *mine, void *all,
                                  size_t len)
{
    return kumi_boot_allgather(kumi_boot_of(tb), mine, all, len);
}

/* The launcher's channel is served by one thread at a time; a thread
 * that finds it taken (the exchange, or exit_job, which keeps it) skips. */
static int kumi_boot_tp_poll(const struct kumi_tp_boot *tb, double now)
{
    struct kumi_boot *b = kumi_boot_of(tb);
    int               rc;

    if (__atomic_exchange_n(&b->busy, 1, __ATOMIC_ACQUIRE))
        return 0;
    rc = b->ops->poll(b, now);
    __atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
    return rc;
}

static void kumi_boot_lock(struct kumi_boot *b)
{
    while (__atomic_exchange_n(&b->busy, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static void kumi_boot_unlock(struct kumi_boot *b)
{
    __atomic_store_n(&b->busy, 0, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ the exchange */

int kumi_boot_put(struct kumi_boot *b, const char *key, const void *val, size_t len)
{
    if (b->ops->kv_put != NULL)
        return b->ops->kv_put(b, key, val, len);
    return kumi_boot_kv_append(&b->pending, &b->pending_len, &b->pending_cap, key, val, len);
}

int kumi_boot_fence(struct kumi_boot *b)
{
    struct kumi_boot_blobs *grown;
    int                     rc;

    if (b->ops->kv_fence != NULL)
        return b->ops->kv_fence(b);
    grown = realloc(b->rounds, (size_t)(b->nrounds + 1) * sizeof(*grown));
    if (grown == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "bootstrap: no memory for a fence");
    b->rounds = grown;
    memset(&b->rounds[b->nrounds], 0, sizeof(b->rounds[0]));
    kumi_boot_lock(b);
    rc = b->ops->gather(b, b->pending, b->pending_len, &b->rounds[b->nrounds]);
    kumi_boot_unlock(b);
    if (rc != KUMI_OK)
        return rc;
    b->nrounds++;
    b->pending_len = 0;
    return KUMI_OK;
}

int kumi_boot_get(struct kumi_boot *b, int pe, const char *key, void *val, size_t cap,
                  size_t *len)
{
    if (pe < 0 || pe >= b->size)
        return KUMI_ERR_INVALID;
    if (b->ops->kv_get != NULL)
        return b->ops->kv_get(b, pe, key, val, cap, len);
    /* the newest fence that carried the key from pe */
    for (int i = b->nrounds - 1; i >= 0; i--) {
        const struct kumi_boot_blobs *r = &b->rounds[i];
        const uint8_t                *v;
        size_t                        vl;
        int                           found;

        found = kumi_boot_kv_find(r->data + r->off[pe], r->len[pe], key, &v, &vl);
        if (found < 0)
            return kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "bootstrap: PE %d's data "
                                 "of fence %d is malformed", pe, i);
        if (found == 0)
            continue;
        if (vl > cap)
            return kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "bootstrap: PE %d's '%s' is "
                                 "%zu bytes, more than the %zu expected", pe, key, vl, cap);
        memcpy(val, v, vl);
        *len = vl;
        return KUMI_OK;
    }
    return KUMI_ERR_INVALID;
}

int kumi_boot_allgather(struct kumi_boot *b, const void *mine, void *all, size_t len)
{
    int rc;

    if (b->ops->gather != NULL) {
        struct kumi_boot_blobs got = { 0 };

        kumi_boot_lock(b);
        rc = b->ops->gather(b, mine, len, &got);
        kumi_boot_unlock(b);
        if (rc != KUMI_OK)
            return rc;
        for (int pe = 0; pe < b->size && rc == KUMI_OK; pe++) {
            if (got.len[pe] != len)
                rc = kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "bootstrap: PE %d gave %u "
                                   "bytes to an all-gather of %zu (different kumi versions or "
                                   "settings?)", pe, got.len[pe], len);
            else
                memcpy((uint8_t *)all + (size_t)pe * len, got.data + got.off[pe], len);
        }
        got.free(&got);
        return rc;
    }
    /* over the key-value store: one key per all-gather */
    char key[32];
    snprintf(key, sizeof(key), "kumi.ag%u", b->ag_seq++);
    if ((rc = kumi_boot_put(b, key, mine, len)) != KUMI_OK || (rc = kumi_boot_fence(b)) != KUMI_OK)
        return rc;
    for (int pe = 0; pe < b->size; pe++) {
        size_t got = 0;

        if (pe == b->rank) {
            memcpy((uint8_t *)all + (size_t)pe * len, mine, len);
            continue;
        }
        rc = kumi_boot_get(b, pe, key, (uint8_t *)all + (size_t)pe * len, len, &got);
        if (rc == KUMI_OK && got != len)
            rc = KUMI_ERR_INVALID;
        if (rc != KUMI_OK)
            return kumi_rt_error(rc, "kumi_init", "bootstrap (%s): no all-gather data of %zu "
                                 "bytes from PE %d", b->ops->name, len, pe);
    }
    return KUMI_OK;
}

/* ------------------------------------------------------------ the thread */

static void *kumi_boot_thread(void *arg)
{
    struct kumi_boot *b = arg;
    struct timespec   nap = { 0, (long)(KUMI_TP_BOOT_POLL_S * 1e9) };

    while (!__atomic_load_n(&b->stop, __ATOMIC_ACQUIRE)) {
        b->tp.poll(&b->tp, kumi_tp_now());
        nanosleep(&nap, NULL);
    }
    return NULL;
}

void kumi_boot_started(struct kumi_boot *b, int tp_serves)
{
    pthread_t *t;

    if (tp_serves || b->ops->poll == NULL || b->ops->needs_poll == NULL ||
        !b->ops->needs_poll(b) || (t = malloc(sizeof(*t))) == NULL)
        return;
    b->stop = 0;
    if (pthread_create(t, NULL, kumi_boot_thread, b) != 0) {
        free(t);
        kumi_rt_log(KUMI_LOG_WARN, "bootstrap: cannot start the thread that serves the "
                    "launcher's channel; it may take this PE for dead");
        return;
    }
    b->thread    = t;
    b->thread_on = 1;
}

void kumi_boot_stop(struct kumi_boot *b)
{
    if (!b->thread_on)
        return;
    __atomic_store_n(&b->stop, 1, __ATOMIC_RELEASE);
    pthread_join(*(pthread_t *)b->thread, NULL);
    free(b->thread);
    b->thread    = NULL;
    b->thread_on = 0;
}

/* ------------------------------------------------------------ the rest */

int kumi_boot_init(struct kumi_boot *b, int choice)
{
    const struct kumi_boot_ops *ops = NULL;
    int                         rc;

    memset(b, 0, sizeof(*b));
    if (choice != KUMI_BOOT_AUTO) {
        ops = kumi_boot_all[choice - 1];
    } else {
        for (size_t i = 0; ops == NULL && i < sizeof(kumi_boot_all) / sizeof(kumi_boot_all[0]); i++)
            if (kumi_boot_all[i]->detect())
                ops = kumi_boot_all[i];
    }
    b->ops = ops;
    rc = ops->init(b);
    if (rc != KUMI_OK) {
        free(b->node_of);
        b->node_of = NULL;
        return rc;
    }
    b->tp = (struct kumi_tp_boot){
        .name = ops->name, .nodes = b->nodes, .node_of = b->node_of,
        .local_rank = b->local_rank, .local_size = b->local_size, .job_id = b->job_id,
        .host_addr = b->host_addr[0] != '\0' ? b->host_addr : NULL,
        .put = kumi_boot_tp_put, .fence = kumi_boot_tp_fence, .get = kumi_boot_tp_get,
        .allgather = kumi_boot_tp_allgather,
        .poll = ops->poll != NULL ? kumi_boot_tp_poll : NULL, .ctx = b,
    };
    return KUMI_OK;
}

void kumi_boot_exit_claim(struct kumi_boot *b, int *pe, int *status)
{
    if (b->ops->exit_claim != NULL)
        b->ops->exit_claim(b, pe, status);
}

int kumi_boot_exit_job(struct kumi_boot *b, int status)
{
    kumi_boot_stop(b);
    if (b->ops->exit_job == NULL)
        return status;
    /* the channel is this thread's from now on: a transport's poll skips */
    kumi_boot_lock(b);
    return b->ops->exit_job(b, status);
}

void kumi_boot_fini(struct kumi_boot *b, enum kumi_boot_end how, int status)
{
    if (b->ops == NULL)
        return;
    kumi_boot_stop(b);
    if (how != KUMI_BOOT_END_EXIT)
        kumi_boot_lock(b);   /* (exit_job holds it already) */
    b->ops->fini(b, how, status);
    for (int i = 0; i < b->nrounds; i++)
        b->rounds[i].free(&b->rounds[i]);
    free(b->rounds);
    free(b->pending);
    free(b->node_of);
    b->rounds  = NULL;
    b->pending = NULL;
    b->node_of = NULL;
    b->ops     = NULL;
}

/* ------------------------------------------------------------ helpers */

void kumi_boot_job_id(struct kumi_boot *b, long pid, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a */

    for (const char *p = name; *p != '\0'; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    snprintf(b->job_id, sizeof(b->job_id), "%ld-%016llx", pid, (unsigned long long)h);
}

void kumi_boot_record_fail(uint32_t failed, int32_t status)
{
    struct kumi_tp t = { .failed = kumi_rt.failed, .fail_status = kumi_rt.fail_status,
                         .doorbell = kumi_rt.tp.doorbell };

    kumi_tp_fail(&t, failed, status);
}

int kumi_boot_count_oversubscribed(int local_size)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);

    return cpus > 0 && local_size > cpus;
}

/* What each PE tells the others at start-up when the launcher does not
 * say which PEs share a host. */
struct kumi_boot_host {
    char    name[56];
    int64_t pid;
};

int kumi_boot_nodes_by_name(struct kumi_boot *b, const char *host, long my_pid, long *base_pid)
{
    struct kumi_boot_host  mine = { .pid = my_pid }, *all;
    int                    rc;

    snprintf(mine.name, sizeof(mine.name), "%s", host);
    b->node_of = calloc((size_t)b->size, sizeof(*b->node_of));
    all        = calloc((size_t)b->size, sizeof(*all));
    if (b->node_of == NULL || all == NULL) {
        free(all);
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "bootstrap: no memory for the node "
                             "map of %d PEs", b->size);
    }
    /* not yet b->tp: the view is filled after init */
    rc = kumi_boot_allgather(b, &mine, all, sizeof(mine));
    if (rc != KUMI_OK) {
        free(all);
        return rc;
    }
    b->nodes = 0;
    for (int pe = 0; pe < b->size; pe++) {
        all[pe].name[sizeof(all[pe].name) - 1] = '\0';
        b->node_of[pe] = -1;
        for (int q = 0; q < pe && b->node_of[pe] < 0; q++)
            if (strcmp(all[q].name, all[pe].name) == 0)
                b->node_of[pe] = b->node_of[q];
        if (b->node_of[pe] < 0)
            b->node_of[pe] = b->nodes++;
    }
    b->local_rank = b->local_size = 0;
    *base_pid = -1;
    for (int pe = 0; pe < b->size; pe++) {
        if (b->node_of[pe] != b->node_of[b->rank])
            continue;
        if (*base_pid < 0)
            *base_pid = (long)all[pe].pid;   /* my node's lowest PE's */
        if (pe < b->rank)
            b->local_rank++;
        b->local_size++;
    }
    free(all);
    return KUMI_OK;
}

/* ------------------------------------------------------------ singleton */

static int kumi_boot_single_detect(void)
{
    return 1;
}

static int kumi_boot_single_init(struct kumi_boot *b)
{
    uint64_t rnd = 0;

    if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
        rnd = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
    snprintf(b->job_id, sizeof(b->job_id), "%d-%016llx", (int)getpid(),
             (unsigned long long)rnd);
    b->rank = 0;
    b->size = 1;
    b->nodes = 1;
    b->local_size = 1;
    b->node_of = calloc(1, sizeof(*b->node_of));
    if (b->node_of == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "no memory");
    return KUMI_OK;
}

static void kumi_boot_single_free(struct kumi_boot_blobs *all)
{
    free(all->data);
    free(all->off);
    free(all->len);
}

/* a job of one: everybody's blob is mine */
static int kumi_boot_single_gather(struct kumi_boot *b, const void *mine, size_t len,
                                   struct kumi_boot_blobs *all)
{
    (void)b;
    all->data = malloc(len > 0 ? len : 1);
    all->off  = calloc(1, sizeof(*all->off));
    all->len  = calloc(1, sizeof(*all->len));
    all->n    = 1;
    all->free = kumi_boot_single_free;
    if (all->data == NULL || all->off == NULL || all->len == NULL) {
        kumi_boot_single_free(all);
        return KUMI_ERR_NOMEM;
    }
    memcpy(all->data, mine, len);
    all->len[0] = (uint32_t)len;
    return KUMI_OK;
}

static void kumi_boot_single_fini(struct kumi_boot *b, enum kumi_boot_end how, int status)
{
    (void)b;
    (void)how;
    (void)status;
}

const struct kumi_boot_ops kumi_boot_singleton_ops = {
    .name   = "singleton",
    .detect = kumi_boot_single_detect,
    .init   = kumi_boot_single_init,
    .gather = kumi_boot_single_gather,
    .fini   = kumi_boot_single_fini,
};
