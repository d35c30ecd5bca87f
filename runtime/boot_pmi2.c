/*
 * boot_pmi2.c -- the bootstrap of a job Slurm started with PMI-2 (srun
 * --mpi=pmi2; PMI_FD, PMI_RANK and PMI_SIZE in the environment). Slurm's
 * libpmi2 is loaded at run time (dlopen "libpmi2.so.0", found as any
 * library: ld.so.conf, LD_LIBRARY_PATH), so neither the build nor a kumi
 * program that never runs under Slurm needs it.
 *
 * The exchange is PMI-2's key-value store: PMI2_KVS_Put, PMI2_KVS_Fence,
 * PMI2_KVS_Get. The store is the job's, not each PE's, so a key is put as
 * "<key>@<rank>"; values are strings, so blobs travel as hex, which bounds
 * a value to KUMI_BOOT_PMI2_VAL_MAX bytes. Nodes come from each
 * PE's host name (one all-gather at start-up); the job id from the parent
 * of the node's lowest PE (slurmstepd) and PMI-2's job id, as under PMIx
 * (boot_pmix.c). kumi_global_exit(status) is PMI2_Abort: Slurm ends the
 * step (srun reports the abort; the status is not passed on: srun exits
 * with its own code).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot.h"
#include "rt.h"

#define KUMI_BOOT_PMI2_LIB     "libpmi2.so.0"
#define KUMI_BOOT_PMI2_VALLEN  1024               /* PMI2_MAX_VALLEN */
#define KUMI_BOOT_PMI2_KEYLEN  64                 /* PMI2_MAX_KEYLEN */
#define KUMI_BOOT_PMI2_VAL_MAX (KUMI_BOOT_PMI2_VALLEN / 2 - 1)
#define KUMI_BOOT_PMI2_SUCCESS 0

/* The PMI-2 calls kumi uses (Slurm's pmi2.h). */
struct kumi_boot_p2 {
    void *lib;
    int (*init)(int *spawned, int *size, int *rank, int *appnum);
    int (*finalize)(void);
    int (*abort)(int flag, const char msg[]);
    int (*job_getid)(char jobid[], int jobid_size);
    int (*kvs_put)(const char key[], const char value[]);
    int (*kvs_fence)(void);
    int (*kvs_get)(const char *jobid, int src_pmi_id, const char key[], char value[],
                   int maxvalue, int *vallen);
    char jobid[256];
};

static int kumi_boot_p2_detect(void)
{
    return getenv("PMI_FD") != NULL && getenv("PMI_RANK") != NULL && getenv("PMI_SIZE") != NULL;
}

static int kumi_boot_p2_load(struct kumi_boot_p2 *p)
{
    p->lib = dlopen(KUMI_BOOT_PMI2_LIB, RTLD_NOW | RTLD_LOCAL);
    if (p->lib == NULL)
        return kumi_rt_error(KUMI_ERR_UNSUPPORTED, "kumi_init", "the PMI-2 bootstrap (srun "
                             "--mpi=pmi2) needs %s, which cannot be loaded: %s (install "
                             "Slurm's libpmi2-0, or start the job with srun --mpi=pmix or "
                             "kumirun)", KUMI_BOOT_PMI2_LIB, dlerror());
#define KUMI_BOOT_P2_SYM(field, name)                                                       \
    if ((*(void **)&p->field = dlsym(p->lib, name)) == NULL)                              \
        return kumi_rt_error(KUMI_ERR_UNSUPPORTED, "kumi_init", "%s has no %s: not a PMI-2 " \
                             "library", KUMI_BOOT_PMI2_LIB, name);
    KUMI_BOOT_P2_SYM(init, "PMI2_Init")
    KUMI_BOOT_P2_SYM(finalize, "PMI2_Finalize")
    KUMI_BOOT_P2_SYM(abort, "PMI2_Abort")
    KUMI_BOOT_P2_SYM(job_getid, "PMI2_Job_GetId")
    KUMI_BOOT_P2_SYM(kvs_put, "PMI2_KVS_Put")
    KUMI_BOOT_P2_SYM(kvs_fence, "PMI2_KVS_Fence")
    KUMI_BOOT_P2_SYM(kvs_get, "PMI2_KVS_Get")
#undef KUMI_BOOT_P2_SYM
    return KUMI_OK;
}

static int kumi_boot_p2_init(struct kumi_boot *b)
{
    struct kumi_boot_p2 *p = calloc(1, sizeof(*p));
    int                  spawned = 0, size = 0, rank = -1, appnum = 0, rc;
    char                 host[256];
    long                 base_pid = -1;
    const char          *addr = getenv(KUMI_ENV_TCP_ADDR);

    if (p == NULL)
        return kumi_rt_error(KUMI_ERR_NOMEM, "kumi_init", "no memory");
    b->priv = p;
    if ((rc = kumi_boot_p2_load(p)) != KUMI_OK)
        goto fail;
    if ((rc = p->init(&spawned, &size, &rank, &appnum)) != KUMI_BOOT_PMI2_SUCCESS ||
        size < 1 || size > (1 << 20) || rank < 0 || rank >= size) {
        rc = kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "PMI-2 bootstrap: PMI2_Init failed "
                           "(error %d; rank %d of %d)", rc, rank, size);
        goto fail;
    }
    if (p->job_getid(p->jobid, sizeof(p->jobid)) != KUMI_BOOT_PMI2_SUCCESS)
        snprintf(p->jobid, sizeof(p->jobid), "pmi2-%s", getenv("PMI_JOBID") ? getenv("PMI_JOBID") : "?");
    p->jobid[sizeof(p->jobid) - 1] = '\0';
    b->rank      = rank;
    b->size      = size;
    kumi_rt.rank = rank;
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "?");
    host[sizeof(host) - 1] = '\0';
    rc = kumi_boot_nodes_by_name(b, host, (long)getppid(), &base_pid);
    if (rc != KUMI_OK)
        goto fail;
    kumi_boot_job_id(b, base_pid, p->jobid);
    b->oversubscribed = kumi_boot_count_oversubscribed(b->local_size);
    b->verdict_s      = 3.0;
    if (addr != NULL)
        snprintf(b->host_addr, sizeof(b->host_addr), "%s", addr);
    if (b->local_rank == 0)
        kumi_launch_sweep_stale();
    return KUMI_OK;
fail:
    if (p->lib != NULL)
        dlclose(p->lib);
    free(p);
    b->priv = NULL;
    return rc;
}

/* PMI-2's store is one per job, not one per PE: a key carries its PE */
static void kumi_boot_p2_key(char *out, const char *key, int pe)
{
    snprintf(out, KUMI_BOOT_PMI2_KEYLEN, "%s@%d", key, pe);
}

static int kumi_boot_p2_put(struct kumi_boot *b, const char *key, const void *val, size_t len)
{
    struct kumi_boot_p2 *p = b->priv;
    char                 hex[KUMI_BOOT_PMI2_VALLEN], pkey[KUMI_BOOT_PMI2_KEYLEN];
    int                  rc;

    if (len > KUMI_BOOT_PMI2_VAL_MAX)
        return kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "PMI-2 bootstrap: '%s' is %zu "
                             "bytes; PMI-2 carries at most %d", key, len, KUMI_BOOT_PMI2_VAL_MAX);
    for (size_t i = 0; i < len; i++)
        snprintf(hex + 2 * i, 3, "%02x", ((const uint8_t *)val)[i]);
    hex[2 * len] = '\0';
    kumi_boot_p2_key(pkey, key, b->rank);
    rc = p->kvs_put(pkey, hex);
    if (rc != KUMI_BOOT_PMI2_SUCCESS)
        return kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "PMI-2 bootstrap: PMI2_KVS_Put "
                             "of '%s' failed (error %d)", key, rc);
    return KUMI_OK;
}

static int kumi_boot_p2_fence(struct kumi_boot *b)
{
    struct kumi_boot_p2 *p = b->priv;
    int                  rc = p->kvs_fence();

    if (rc != KUMI_BOOT_PMI2_SUCCESS)
        return kumi_rt_error(KUMI_ERR_TRANSPORT, "kumi_init", "PMI-2 bootstrap: PMI2_KVS_Fence "
                             "failed (error %d; did a PE fail?)", rc);
    return KUMI_OK;
}

static int kumi_boot_p2_hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int kumi_boot_p2_get(struct kumi_boot *b, int pe, const char *key, void *val, size_t cap,
                            size_t *len)
{
    struct kumi_boot_p2 *p = b->priv;
    char                 hex[KUMI_BOOT_PMI2_VALLEN + 1], pkey[KUMI_BOOT_PMI2_KEYLEN];
    int                  got = 0, rc;
    size_t               n;

    kumi_boot_p2_key(pkey, key, pe);
    rc = p->kvs_get(NULL, pe, pkey, hex, KUMI_BOOT_PMI2_VALLEN, &got);
    if (rc != KUMI_BOOT_PMI2_SUCCESS || got < 0)
        return KUMI_ERR_INVALID;
    hex[got < KUMI_BOOT_PMI2_VALLEN ? got : KUMI_BOOT_PMI2_VALLEN] = '\0';
    n = strlen(hex);
    if (n % 2 != 0 || n / 2 > cap)
        return kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "PMI-2 bootstrap: PE %d's '%s' is "
                             "not the %zu bytes expected", pe, key, cap);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = kumi_boot_p2_hexval(hex[2 * i]), lo = kumi_boot_p2_hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return kumi_rt_error(KUMI_ERR_INVALID, "kumi_init", "PMI-2 bootstrap: PE %d's "
                                 "'%s' is not hex", pe, key);
        ((uint8_t *)val)[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = n / 2;
    return KUMI_OK;
}

static void kumi_boot_p2_fini(struct kumi_boot *b, enum kumi_boot_end how, int status)
{
    struct kumi_boot_p2 *p = b->priv;

    (void)status;
    if (p == NULL)
        return;
    if (how == KUMI_BOOT_END_EXIT) {
        fflush(NULL);
        p->abort(1, "kumi_global_exit");
        return;
    }
    if (how == KUMI_BOOT_END_FINALIZED)
        p->finalize();
    /* the library stays loaded: it may have threads or handlers left */
    free(p);
    b->priv = NULL;
}

const struct kumi_boot_ops kumi_boot_pmi2_ops = {
    .name     = "pmi2",
    .detect   = kumi_boot_p2_detect,
    .init     = kumi_boot_p2_init,
    .kv_put   = kumi_boot_p2_put,
    .kv_fence = kumi_boot_p2_fence,
    .kv_get   = kumi_boot_p2_get,
    .fini     = kumi_boot_p2_fini,
};
