/*
 * init.c -- kumi_init / kumi_finalize and the runtime's identity calls.
 *
 * Start-up order: configuration (a bad variable fails here, before anything
 * is created), the bootstrap (boot.h: identity, nodes and the failure word
 * from kumirun, a PMIx or PMI-2 launcher, or a singleton job), the flags
 * (KUMI_SYMMETRIC_DATA; the static data range), the transport (KUMI_TRANSPORT
 * or the best available; create my segment, map the peers'), the
 * runtime's LLCM areas and an agree round on the flags, the heap, the world
 * team, and one agree round so that kumi_init returns only when every PE is
 * ready.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

struct kumi_rt kumi_rt = {
    .rank        = -1,
    .failed      = &kumi_rt.local_failed,
    .fail_status = &kumi_rt.local_fail_status,
};

int kumi_rank(void)
{
    return kumi_rt.state == 1 ? kumi_rt.rank : -1;
}

int kumi_size(void)
{
    return kumi_rt.state == 1 ? kumi_rt.size : 0;
}

const char *kumi_transport_name(void)
{
    return kumi_rt.state == 1 ? kumi_rt.tp.ops->name : "none";
}

double kumi_wtime(void)
{
    return kumi_tp_now();
}

static void kumi_rt_warn_unknown(const char *name, const char *suggestion, void *arg)
{
    (void)arg;
    if (kumi_rt.rank <= 0)
        kumi_rt_log(KUMI_LOG_WARN, "unknown variable %s%s%s%s", name,
                    suggestion ? " (did you mean " : "", suggestion ? suggestion : "",
                    suggestion ? "?)" : "");
}

/* Who am I, and where is the job's failure recorded: the bootstrap's
 * answer (boot.h). */
static int kumi_rt_boot_init(void)
{
    int rc = kumi_boot_init(&kumi_rt.boot, kumi_rt.cfg.bootstrap);

    if (rc != KUMI_OK)
        return rc;
    kumi_rt.rank = kumi_rt.boot.rank;
    kumi_rt.size = kumi_rt.boot.size;
    snprintf(kumi_rt.job_id, sizeof(kumi_rt.job_id), "%s", kumi_rt.boot.job_id);
    if (kumi_rt.boot.failed != NULL) {
        kumi_rt.failed      = kumi_rt.boot.failed;
        kumi_rt.fail_status = kumi_rt.boot.fail_status;
    }
    return KUMI_OK;
}

static void kumi_rt_boot_fini(enum kumi_boot_end how)
{
    /* keep what the job learnt: the runtime's pair takes over from the
     * launcher's, which the bootstrap unmaps */
    kumi_rt.local_failed      = *kumi_rt.failed;
    kumi_rt.local_fail_status = *kumi_rt.fail_status;
    kumi_rt.failed            = &kumi_rt.local_failed;
    kumi_rt.fail_status       = &kumi_rt.local_fail_status;
    kumi_boot_fini(&kumi_rt.boot, how, 0);
}

/* The transport KUMI_TRANSPORT names, or the best this job can use. */
static int kumi_rt_transport_pick(const char *call, const struct kumi_tp_params *params)
{
    char why[1024];

    if (kumi_rt.cfg.transport == KUMI_TRANSPORT_AUTO) {
        kumi_rt.tp.ops = kumi_tp_pick(params, why, sizeof(why));
        if (kumi_rt.tp.ops == NULL)
            return kumi_rt_error(KUMI_ERR_UNSUPPORTED, call, "no transport can run this job "
                                 "(%s)", why);
        return KUMI_OK;
    }
    kumi_rt.tp.ops = kumi_tp_builtin(kumi_rt.cfg.transport - 1);
    if (kumi_tp_available(kumi_rt.tp.ops, params, why, sizeof(why)) != KUMI_OK)
        return kumi_rt_error(KUMI_ERR_UNSUPPORTED, call, "KUMI_TRANSPORT=%s: %s",
                             kumi_rt.tp.ops->name, why);
    return KUMI_OK;
}

/* Every PE must start with the same flags (after KUMI_SYMMETRIC_DATA) and,
 * with symmetric static data, the same executable: the data segment's size
 * must match, or the same offset would name different variables. */
static int kumi_rt_agree_flags(const char *call)
{
    uint64_t v[KUMI_RT_AGREE_N] = { kumi_rt.init_flags, kumi_rt.tp.seg_size[KUMI_SEG_DATA] };
    uint64_t lo[KUMI_RT_AGREE_N], hi[KUMI_RT_AGREE_N];
    int      rc = kumi_rt_agree_n(call, v, lo, hi);

    if (rc != KUMI_OK)
        return rc;
    if (lo[0] != hi[0])
        return kumi_rt_error(KUMI_ERR_INVALID, call, "the PEs started with different flags "
                             "(0x%llx here; 0x%llx to 0x%llx in the job): every PE must pass "
                             "the same flags to kumi_init_ex", (unsigned long long)v[0],
                             (unsigned long long)lo[0], (unsigned long long)hi[0]);
    if (lo[1] != hi[1])
        return kumi_rt_error(KUMI_ERR_INVALID, call, "static data is %llu bytes here, %llu to "
                             "%llu on other PEs: with KUMI_INIT_SYMMETRIC_DATA every PE must "
                             "run the same executable", (unsigned long long)v[1],
                             (unsigned long long)lo[1], (unsigned long long)hi[1]);
    return KUMI_OK;
}

int kumi_init(void)
{
    return kumi_init_ex(0);
}

unsigned kumi_init_flags(void)
{
    return kumi_rt.state == 1 ? kumi_rt.init_flags : 0;
}

int kumi_init_ex(unsigned flags)
{
    static const char call[] = "kumi_init";
    static unsigned   requested;    /* what the program asked for */
    extern char     **environ;
    char              err[256];
    const char       *tname;
    void             *data_base = NULL;
    size_t            data_size = 0;
    int               rc;

    if (kumi_rt.state == 1) {
        if ((flags & ~requested) != 0)
            return kumi_rt_error(KUMI_ERR_STATE, call, "kumi is already initialized without "
                                 "flags 0x%x", flags & ~requested);
        return KUMI_OK;
    }
    if ((flags & ~(unsigned)(KUMI_INIT_SYMMETRIC_DATA | KUMI_INIT_THREADS)) != 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "unknown flags 0x%x", flags);
    if (kumi_rt.state == 2)
        return kumi_rt_error(KUMI_ERR_STATE, call, "kumi was finalized and cannot start again");

    rc = kumi_cfg_load(&kumi_rt.cfg, err, sizeof(err));
    if (rc != KUMI_OK) {
        kumi_rt.cfg.abort_on_error = 0;
        return kumi_rt_error(rc, call, "%s", err);
    }
    rc = kumi_rt_boot_init();
    if (rc != KUMI_OK)
        return rc;
    kumi_cfg_check_unknown(environ, kumi_rt_warn_unknown, NULL);

    /* KUMI_SYMMETRIC_DATA overrides the program's choice */
    requested = flags;
    if (kumi_rt.cfg.symmetric_data == KUMI_SYMDATA_ON)
        flags |= KUMI_INIT_SYMMETRIC_DATA;
    else if (kumi_rt.cfg.symmetric_data == KUMI_SYMDATA_OFF)
        flags &= ~(unsigned)KUMI_INIT_SYMMETRIC_DATA;
    kumi_rt.init_flags = flags;
    if ((flags & KUMI_INIT_SYMMETRIC_DATA)
        && (rc = kumi_rt_symdata_range(call, &data_base, &data_size)) != KUMI_OK)
        goto err_boot;

    memset(&kumi_rt.tp, 0, sizeof(kumi_rt.tp));
    struct kumi_tp_params params = {
        .rank            = kumi_rt.rank,
        .size            = kumi_rt.size,
        .job_id          = kumi_rt.job_id,
        .llcm_size       = kumi_rt.cfg.llcm_size,
        .heap_size       = kumi_rt.cfg.heap_size
                           + kumi_rt_heap_reserve(kumi_rt.cfg.heap_size,
                                                  kumi_rt_team_scratch_bytes()),
        /* kumi_align's largest: an object aligned beyond the base's
         * alignment would get a different offset on each PE */
        .heap_align      = (size_t)1 << 30,
        .data_base       = data_base,
        .data_size       = data_size,
        .connect_timeout = (double)kumi_rt.cfg.startup_timeout,
        .failed          = kumi_rt.failed,
        .fail_status     = kumi_rt.fail_status,
        .boot            = &kumi_rt.boot.tp,
        /* KUMI_INIT_THREADS: kumi_rt.init_flags must be set before this
         * (kumi_init_ex) */
        .threads         = kumi_rt_threads(),
    };
    rc = kumi_rt_transport_pick(call, &params);
    if (rc != KUMI_OK)
        goto err_boot;
    tname = kumi_rt.tp.ops->name;
    rc = kumi_tp_open(&kumi_rt.tp, &params);
    if (rc != KUMI_OK)
        goto err_boot;
    /* the launcher's channel is open once the transport exchanged its
     * address: served from now on, connecting included (ucx's wire-up
     * waits for every peer) */
    kumi_boot_started(&kumi_rt.boot, kumi_rt.tp.serves_boot);
    rc = kumi_tp_connect(&kumi_rt.tp);
    if (rc != KUMI_OK) {
        if (rc == KUMI_ERR_PEER)
            kumi_rt_peer_error(call);
        goto err_tp;
    }
    kumi_rt_wait_setup();

    kumi_rt.llcm_next = 0;
    rc = kumi_rt_sync_setup();
    if (rc == KUMI_OK)
        rc = kumi_rt_agree_flags(call);
    if (rc != KUMI_OK)
        goto err_tp;
    rc = kumi_rt_heap_init();
    if (rc != KUMI_OK)
        goto err_tp;
    rc = kumi_rt_team_world_init();
    if (rc != KUMI_OK)
        goto err_heap;

    kumi_rt.state = 1;
    for (int i = 0; i < kumi_rt_nlayers; i++)
        if (kumi_rt_layers[i]->init != NULL && (rc = kumi_rt_layers[i]->init()) != KUMI_OK) {
            kumi_rt.state = 0;
            goto err_team;
        }
    rc = kumi_rt_agree(call, 0, NULL, NULL);
    if (rc != KUMI_OK) {
        kumi_rt.state = 0;
        goto err_team;
    }
    kumi_rt_log(KUMI_LOG_DEBUG, "PE %d of %d up on %s (job %s, wait policy %d)", kumi_rt.rank,
                kumi_rt.size, tname, kumi_rt.job_id, kumi_rt.wait_policy);
    return KUMI_OK;

err_team:
    kumi_rt_team_world_fini();
err_heap:
    kumi_rt_heap_fini();
err_tp:
    kumi_boot_stop(&kumi_rt.boot);
    kumi_tp_close(&kumi_rt.tp);
    kumi_rt.tp.doorbell = NULL;
err_boot:
    kumi_rt_boot_fini(KUMI_BOOT_END_FAILED);
    return rc;
}

struct kumi_rt_layer *kumi_rt_layers[KUMI_RT_LAYERS_MAX];
int                   kumi_rt_nlayers;

void kumi_rt_layer_add(struct kumi_rt_layer *layer)
{
    if (kumi_rt_nlayers == KUMI_RT_LAYERS_MAX)
        kumi_rt_abort("too many layers above the runtime (KUMI_RT_LAYERS_MAX)");
    kumi_rt_layers[kumi_rt_nlayers++] = layer;
}

void kumi_rt_layers_report(void)
{
    static int reported;   /* finalize, then a global exit: once */

    if (reported++)
        return;
    for (int i = 0; i < kumi_rt_nlayers; i++)
        if (kumi_rt_layers[i]->report != NULL)
            kumi_rt_layers[i]->report();
}

int kumi_finalize(void)
{
    static const char call[] = "kumi_finalize";
    int rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    kumi_tp_quiet(&kumi_rt.tp);
    /* after this agree no PE touches another's memory again */
    rc = kumi_rt_agree(call, 0, NULL, NULL);
    kumi_rt_layers_report();
    for (int i = kumi_rt_nlayers - 1; i >= 0; i--)
        if (kumi_rt_layers[i]->fini != NULL)
            kumi_rt_layers[i]->fini();
    kumi_rt_team_world_fini();
    kumi_rt_heap_fini();
    kumi_rt.tp.finalized = rc == KUMI_OK;
    kumi_boot_stop(&kumi_rt.boot);
    kumi_tp_close(&kumi_rt.tp);
    kumi_rt.tp.doorbell = NULL;   /* gone with the transport */
    kumi_rt_boot_fini(rc == KUMI_OK ? KUMI_BOOT_END_FINALIZED : KUMI_BOOT_END_FAILED);
    kumi_rt.state = 2;
    return rc;
}
