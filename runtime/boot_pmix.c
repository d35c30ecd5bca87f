/*
 * boot_pmix.c -- the bootstrap of a job a PMIx launcher started (Open MPI's
 * mpirun, prterun, srun --mpi=pmix): rank and size from PMIx, the
 * exchange as PMIx's key-value store (PMIx_Put, PMIx_Commit, a fence that
 * collects the data, PMIx_Get), the nodes from each PE's host name (one
 * all-gather at start-up, so every launcher's numbering is kumi's: in
 * order of each node's lowest PE).
 *
 * The job id that names this host's shm objects is "<pid>-<hash of the
 * PMIx namespace>", pid being the parent of this node's lowest PE (the
 * launcher's daemon: mpirun, orted, slurmstepd): unique among the host's
 * jobs, the same on every PE of the host, and what kumi_launch_sweep_stale
 * judges segments by once that process is gone. The node's lowest PE runs
 * that sweep at start-up, since no kumirun will.
 *
 * Failures: the launcher ends the job itself when a PE dies (Open MPI 4.1
 * sends SIGTERM, then SIGKILL, to every other PE); what PMIx tells us
 * (a PE aborted or terminated, the job ended, the launcher lost) goes into
 * the job's failure word, so waits return KUMI_ERR_PEER meanwhile. Losing
 * the launcher (mpirun killed) leaves nobody to end this PE: it exits by
 * itself if it is still alive KUMI_BOOT_PMIX_ORPHAN_S later.
 * kumi_global_exit(status) is PMIx_Abort(status): the launcher ends every
 * PE and exits with the status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "rt.h"

static int kumi_boot_px_detect(void)
{
    return getenv("PMIX_NAMESPACE") != NULL && getenv("PMIX_RANK") != NULL;
}

#ifdef KUMI_HAVE_PMIX

#include <pthread.h>
#include <pmix.h>
#include <time.h>

#define KUMI_BOOT_PMIX_ORPHAN_S 3.0
/* mpirun takes 1-2 s to end the job by signal after a PE died; a PE that
 * lost that PE's connection reports it (and usually exits non-zero) only
 * after this, so mpirun names the dead PE as the cause */
#define KUMI_BOOT_PMIX_VERDICT_S 3.0

struct kumi_boot_px {
    pmix_proc_t me;
    size_t      evh;
    int         evh_on;
};

static struct kumi_boot *kumi_boot_px_self;   /* for the event handler */

static int kumi_boot_px_error(const char *what, pmix_status_t st)
{
    return kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "PMIx bootstrap: %s: %s", what,
                         PMIx_Error_string(st));
}

static void *kumi_boot_px_orphan(void *arg)
{
    struct timespec t = { (time_t)KUMI_BOOT_PMIX_ORPHAN_S,
                          (long)((KUMI_BOOT_PMIX_ORPHAN_S - (time_t)KUMI_BOOT_PMIX_ORPHAN_S) * 1e9) };

    (void)arg;
    nanosleep(&t, NULL);
    fprintf(stderr, "kumi[%d]: lost the PMIx launcher and did not end within %.0f s; exiting "
            "(a PE does not outlive its launcher)\n", kumi_rt.rank, KUMI_BOOT_PMIX_ORPHAN_S);
    _exit(1);
}

/* PMIx's progress thread: the job fails. */
static void kumi_boot_px_event(size_t id, pmix_status_t st, const pmix_proc_t *src,
                               pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                               size_t nresults, pmix_event_notification_cbfunc_fn_t cb,
                               void *cbdata)
{
    struct kumi_boot *b = kumi_boot_px_self;
    uint32_t          failed = KUMI_TP_FAIL_LAUNCHER;
    int32_t           status = KUMI_TP_STATUS_UNKNOWN;

    (void)id;
    (void)results;
    (void)nresults;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
            info[i].value.type == PMIX_PROC && info[i].value.data.proc != NULL &&
            info[i].value.data.proc->rank < (pmix_rank_t)b->size)
            failed = 1 + info[i].value.data.proc->rank;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE) && info[i].value.type == PMIX_INT)
            status = info[i].value.data.integer;
    }
    if (failed == KUMI_TP_FAIL_LAUNCHER && src != NULL && src->rank < (pmix_rank_t)b->size &&
        PMIX_CHECK_NSPACE(src->nspace, ((struct kumi_boot_px *)b->priv)->me.nspace) &&
        st != PMIX_ERR_LOST_CONNECTION && st != PMIX_EVENT_JOB_END)
        failed = 1 + src->rank;
    if (st == PMIX_ERR_LOST_CONNECTION) {
        pthread_t      t;
        pthread_attr_t a;

        status = 1;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        pthread_create(&t, &a, kumi_boot_px_orphan, NULL);
        pthread_attr_destroy(&a);
    }
    kumi_rt_log(KUMI_LOG_INFO, "PMIx: %s (PE %d); the job is failing", PMIx_Error_string(st),
                failed == KUMI_TP_FAIL_LAUNCHER ? -1 : (int)failed - 1);
    kumi_boot_record_fail(failed, status);
    if (cb != NULL)
        cb(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int kumi_boot_px_get_u32(const pmix_proc_t *p, const char *key, uint32_t *out)
{
    pmix_value_t *v = NULL;
    pmix_status_t st = PMIx_Get(p, key, NULL, 0, &v);

    if (st != PMIX_SUCCESS)
        return st;
    st = PMIX_ERR_BAD_PARAM;
    if (v->type == PMIX_UINT32) {
        *out = v->data.uint32;
        st   = PMIX_SUCCESS;
    }
    PMIX_VALUE_RELEASE(v);
    return st;
}

static int kumi_boot_px_init(struct kumi_boot *b)
{
    struct kumi_boot_px *x = calloc(1, sizeof(*x));
    pmix_proc_t          job;
    pmix_status_t        st;
    pmix_status_t        codes[] = { PMIX_ERR_PROC_ABORTED, PMIX_EVENT_PROC_TERMINATED,
                                     PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_EVENT_JOB_END,
                                     PMIX_ERR_LOST_CONNECTION };
    uint32_t             size = 0;
    char                 host[256] = "";
    long                 base_pid = -1;
    const char          *addr = getenv(KUMI_ENV_TCP_ADDR);
    int                  rc;

    if (x == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "no memory");
    st = PMIx_Init(&x->me, NULL, 0);
    if (st != PMIX_SUCCESS) {
        free(x);
        return kumi_boot_px_error("PMIx_Init (is the launcher's PMIx server gone?)", st);
    }
    b->priv = x;
    kumi_boot_px_self = b;
    PMIX_LOAD_PROCID(&job, x->me.nspace, PMIX_RANK_WILDCARD);
    st = kumi_boot_px_get_u32(&job, PMIX_JOB_SIZE, &size);
    if (st != PMIX_SUCCESS || size < 1 || size > (1u << 20) || x->me.rank >= size) {
        rc = kumi_boot_px_error("the job's size (PMIX_JOB_SIZE)", st);
        goto fail;
    }
    b->rank = (int)x->me.rank;
    b->size = (int)size;
    kumi_rt.rank = b->rank;
    st = PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), NULL, 0,
                                     kumi_boot_px_event, NULL, NULL);
    if (st >= 0) {
        x->evh    = (size_t)st;
        x->evh_on = 1;
    }

    pmix_value_t *v = NULL;
    if (PMIx_Get(&x->me, PMIX_HOSTNAME, NULL, 0, &v) == PMIX_SUCCESS) {
        if (v->type == PMIX_STRING && v->data.string != NULL)
            snprintf(host, sizeof(host), "%s", v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    if (host[0] == '\0' && gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "?");
    host[sizeof(host) - 1] = '\0';
    rc = kumi_boot_nodes_by_name(b, host, (long)getppid(), &base_pid);
    if (rc != KUMI_OK)
        goto fail;
    kumi_boot_job_id(b, base_pid, x->me.nspace);
    b->oversubscribed = kumi_boot_count_oversubscribed(b->local_size);
    b->verdict_s      = KUMI_BOOT_PMIX_VERDICT_S;
    if (addr != NULL)
        snprintf(b->host_addr, sizeof(b->host_addr), "%s", addr);
    if (b->local_rank == 0)
        kumi_launch_sweep_stale();   /* no kumirun does it here */
    return KUMI_OK;
fail:
    /* not finalized: the launcher sees a PE that failed */
    if (x->evh_on)
        PMIx_Deregister_event_handler(x->evh, NULL, NULL);
    free(x);
    b->priv = NULL;
    return rc;
}

static int kumi_boot_px_put(struct kumi_boot *b, const char *key, const void *val, size_t len)
{
    pmix_value_t  v;
    pmix_status_t st;

    (void)b;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type                = PMIX_BYTE_OBJECT;
    v.data.bo.bytes       = (char *)val;   /* PMIx_Put copies it */
    v.data.bo.size        = len;
    st = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (st != PMIX_SUCCESS)
        return kumi_boot_px_error("PMIx_Put", st);
    return KUMI_OK;
}

static int kumi_boot_px_fence(struct kumi_boot *b)
{
    pmix_info_t   info;
    bool          collect = true;
    pmix_status_t st;

    (void)b;
    st = PMIx_Commit();
    if (st != PMIX_SUCCESS)
        return kumi_boot_px_error("PMIx_Commit", st);
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    st = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (st != PMIX_SUCCESS)
        return kumi_boot_px_error("PMIx_Fence (did a PE fail?)", st);
    return KUMI_OK;
}

static int kumi_boot_px_get(struct kumi_boot *b, int pe, const char *key, void *val, size_t cap,
                            size_t *len)
{
    struct kumi_boot_px *x = b->priv;
    pmix_proc_t          p;
    pmix_value_t        *v = NULL;
    pmix_status_t        st;
    int                  rc = KUMI_OK;

    PMIX_LOAD_PROCID(&p, x->me.nspace, (pmix_rank_t)pe);
    st = PMIx_Get(&p, key, NULL, 0, &v);
    if (st == PMIX_ERR_NOT_FOUND)
        return KUMI_ERR_INVALID;
    if (st != PMIX_SUCCESS)
        return kumi_boot_px_error("PMIx_Get", st);
    if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size > cap) {
        rc = kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "PMIx bootstrap: PE %d's '%s' is not "
                           "the %zu bytes expected", pe, key, cap);
    } else {
        if (v->data.bo.size > 0)
            memcpy(val, v->data.bo.bytes, v->data.bo.size);
        *len = v->data.bo.size;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

static void kumi_boot_px_fini(struct kumi_boot *b, enum kumi_boot_end how, int status)
{
    struct kumi_boot_px *x = b->priv;

    if (x == NULL)
        return;
    if (how == KUMI_BOOT_END_EXIT) {
        /* the launcher ends every PE (this one too, perhaps before exit
         * returns): what was printed goes out first */
        fflush(NULL);
        PMIx_Abort(status, "kumi_global_exit", NULL, 0);
        return;
    }
    if (x->evh_on)
        PMIx_Deregister_event_handler(x->evh, NULL, NULL);
    /* a PE that failed leaves without PMIx_Finalize: the launcher then
     * ends the job even if the program exits 0, as kumirun does */
    if (how == KUMI_BOOT_END_FINALIZED)
        PMIx_Finalize(NULL, 0);
    kumi_boot_px_self = NULL;
    free(x);
    b->priv = NULL;
}

const struct kumi_boot_ops kumi_boot_pmix_ops = {
    .name     = "pmix",
    .detect   = kumi_boot_px_detect,
    .init     = kumi_boot_px_init,
    .kv_put   = kumi_boot_px_put,
    .kv_fence = kumi_boot_px_fence,
    .kv_get   = kumi_boot_px_get,
    .fini     = kumi_boot_px_fini,
};

#else /* !KUMI_HAVE_PMIX */

static int kumi_boot_px_init(struct kumi_boot *b)
{
    (void)b;
    return kumi_rt_error(KUMI_ERR_UNSUPPORTED, "kumi_init", "started by a PMIx launcher "
                         "(PMIX_NAMESPACE is set), but this libkumi was built without PMIx "
                         "(install libpmix-dev and rebuild; or start the job with kumirun)");
}

static void kumi_boot_px_fini(struct kumi_boot *b, enum kumi_boot_end how, int status)
{
    (void)b;
    (void)how;
    (void)status;
}

const struct kumi_boot_ops kumi_boot_pmix_ops = {
    .name   = "pmix",
    .detect = kumi_boot_px_detect,
    .init   = kumi_boot_px_init,
    .fini   = kumi_boot_px_fini,
};

#endif /* KUMI_HAVE_PMIX */
