/*
 * setup.c -- shmem_init and friends: starting and ending the library, the
 * PE queries, shmem_ptr, the version and vendor calls, and the deprecated
 * start_pes family.
 *
 * shmem_init is kumi_init_ex(KUMI_INIT_SYMMETRIC_DATA) (global and static
 * variables are symmetric in SHMEM) after the SHMEM_* environment has set
 * the runtime's defaults (env.c), then shmem-coll's teams. A program that
 * never calls shmem_finalize (start_pes programs, or any that just return
 * from main) is finalized when it exits with status 0, so it ends cleanly
 * under kumirun.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_impl.h"
#include "shmemx.h"

struct kumi_shmem_state kumi_shmem = { .my_pe = -1 };

_Static_assert(SHMEM_CMP_EQ == KUMI_CMP_EQ && SHMEM_CMP_NE == KUMI_CMP_NE
               && SHMEM_CMP_GT == KUMI_CMP_GT && SHMEM_CMP_GE == KUMI_CMP_GE
               && SHMEM_CMP_LT == KUMI_CMP_LT && SHMEM_CMP_LE == KUMI_CMP_LE,
               "SHMEM_CMP_* pass straight through as KUMI_CMP_*");
_Static_assert(sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN,
               "SHMEM_VENDOR_STRING fits SHMEM_MAX_NAME_LEN");

int kumi_shmem_state_error(const char *call)
{
    return kumi_shmem_error(KUMI_ERR_STATE, call, kumi_shmem.state == 2
                            ? "called after shmem_finalize"
                            : "called before shmem_init (or shmem_init failed)");
}

int kumi_shmem_status(const char *call, int rc)
{
    if (rc == KUMI_OK)
        return rc;
    if (rc == KUMI_ERR_PEER)
        return kumi_rt_peer_error(call);
    return kumi_shmem_error(rc, call, "%s", kumi_strerror(rc));
}

/* Exit with status 0 and no shmem_finalize: finalize here, so kumirun sees
 * a clean end. Any other status is a failure kumirun reports itself (a
 * collective finalize could hang while other PEs are stuck). */
static void kumi_shmem_at_exit(int status, void *arg)
{
    (void)arg;
    if (kumi_shmem.state == 1 && !kumi_shmem.exiting && status == 0) {
        if (kumi_shmem.debug)
            kumi_rt_log(KUMI_LOG_WARN, "PE %d exits without shmem_finalize: finalizing",
                        kumi_shmem.my_pe);
        shmem_finalize();
    }
}

static int kumi_shmem_start(const char *call, int requested, int *provided)
{
    static int hooked;
    unsigned   flags = KUMI_INIT_SYMMETRIC_DATA;
    int        rc;

    if (kumi_shmem.state == 1) {
        if (provided != NULL)
            *provided = kumi_shmem.thread_level;
        return 0;
    }
    if (kumi_shmem.state == 2)
        return kumi_shmem_error(KUMI_ERR_STATE, call, "the library was finalized and cannot "
                                "start again");
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "thread level %d is not one of "
                                "SHMEM_THREAD_SINGLE..SHMEM_THREAD_MULTIPLE (%d..%d)", requested,
                                SHMEM_THREAD_SINGLE, SHMEM_THREAD_MULTIPLE);
    if (kumi_shmem_env_before_init(call) != 0)
        return KUMI_ERR_INVALID;
    if (requested == SHMEM_THREAD_MULTIPLE)
        flags |= KUMI_INIT_THREADS;
    rc = kumi_init_ex(flags);
    if (rc != KUMI_OK)
        return kumi_shmem_error(rc, call, "cannot start kumi (see the message above)");
    kumi_shmem.my_pe = kumi_rank();
    kumi_shmem.n_pes = kumi_size();
    kumi_shmem.thread_level = requested;
    if (requested == SHMEM_THREAD_MULTIPLE && !(kumi_init_flags() & KUMI_INIT_THREADS))
        kumi_shmem.thread_level = SHMEM_THREAD_SERIALIZED;
    kumi_shmem.state = 1;
    kumi_shmem_ctx_default.npes = kumi_shmem.n_pes;
    if ((rc = kumi_shmem_coll_init()) != 0) {
        kumi_shmem.state = 0;
        kumi_finalize();
        kumi_shmem.state = 2;
        return kumi_shmem_error(KUMI_ERR_STATE, call, "cannot set up the teams (see above)");
    }
    if (!hooked) {
        hooked = 1;
        on_exit(kumi_shmem_at_exit, NULL);
    }
    kumi_shmem_env_after_init();
    if (provided != NULL)
        *provided = kumi_shmem.thread_level;
    return 0;
}

void shmem_init(void)
{
    if (kumi_shmem_start("shmem_init", SHMEM_THREAD_SINGLE, NULL) != 0)
        exit(1);   /* no way to report it to the caller: end this PE, kumirun ends the job */
}

int shmem_init_thread(int requested, int *provided)
{
    int rc = kumi_shmem_start("shmem_init_thread", requested, provided);
    return rc == 0 ? 0 : -1;
}

void shmem_query_thread(int *provided)
{
    if (provided == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, "shmem_query_thread", "provided is NULL");
        return;
    }
    if (kumi_shmem_check_init("shmem_query_thread") != 0)
        return;
    *provided = kumi_shmem.thread_level;
}

void shmem_finalize(void)
{
    static const char call[] = "shmem_finalize";

    if (kumi_shmem.state == 0 || kumi_shmem.state == 2) {
        kumi_shmem_state_error(call);
        return;
    }
    kumi_shmem_status(call, kumi_tp_quiet(&kumi_rt.tp));
    kumi_shmem_coll_fini();
    kumi_shmem.state = 2;
    kumi_finalize();   /* an agreement of every PE: the implicit barrier */
}

int shmem_my_pe(void)
{
    if (KUMI_SHMEM_LIKELY(kumi_shmem.state == 1))
        return kumi_shmem.my_pe;
    kumi_shmem_state_error("shmem_my_pe");
    return -1;
}

int shmem_n_pes(void)
{
    if (KUMI_SHMEM_LIKELY(kumi_shmem.state == 1))
        return kumi_shmem.n_pes;
    kumi_shmem_state_error("shmem_n_pes");
    return -1;
}

void shmem_global_exit(int status)
{
    kumi_shmem.exiting = 1;
    kumi_global_exit(status);
}

int shmem_pe_accessible(int pe)
{
    if (kumi_shmem_check_init("shmem_pe_accessible") != 0)
        return 0;
    return (unsigned)pe < (unsigned)kumi_shmem.n_pes;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    enum kumi_seg seg;
    size_t        off;

    if (kumi_shmem_check_init("shmem_addr_accessible") != 0)
        return 0;
    return (unsigned)pe < (unsigned)kumi_shmem.n_pes
           && kumi_rt_sym_lookup(addr, 1, &seg, &off) == KUMI_OK;
}

/* world PE's copy of the symmetric dest by load/store, or NULL */
static void *kumi_shmem_ptr_world(const void *dest, int pe)
{
    enum kumi_seg seg;
    size_t        off;

    if (kumi_rt_sym_lookup(dest, 1, &seg, &off) != KUMI_OK)
        return NULL;
    if (pe == kumi_shmem.my_pe)
        return (void *)dest;
    return kumi_tp_peer_ptr(&kumi_rt.tp, pe, seg, off);
}

void *shmem_ptr(const void *dest, int pe)
{
    static const char call[] = "shmem_ptr";

    if (kumi_shmem_check_init(call) != 0)
        return NULL;
    if ((unsigned)pe >= (unsigned)kumi_shmem.n_pes) {
        kumi_shmem_bad_pe(call, &kumi_shmem_ctx_default, pe);
        return NULL;
    }
    return kumi_shmem_ptr_world(dest, pe);
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    static const char call[] = "shmem_team_ptr";
    kumi_team_t kt;
    int         wpe;

    if (kumi_shmem_check_init(call) != 0)
        return NULL;
    kt = team != SHMEM_TEAM_INVALID ? kumi_shmem_team_kumi(team) : NULL;
    if (kt == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "team %p is not a valid team of this PE",
                         (void *)team);
        return NULL;
    }
    wpe = kumi_team_pe(kt, pe);
    if (wpe < 0) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "pe %d out of range (team size %d)", pe,
                         kumi_team_size(kt));
        return NULL;
    }
    return kumi_shmem_ptr_world(dest, wpe);
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major == NULL || minor == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, "shmem_info_get_version", "%s is NULL",
                         major == NULL ? "major" : "minor");
        return;
    }
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, "shmem_info_get_name", "name is NULL");
        return;
    }
    memcpy(name, SHMEM_VENDOR_STRING, sizeof(SHMEM_VENDOR_STRING));
}

/* Profiling control: kumi has no profiling levels; accepted and ignored. */
void shmem_pcontrol(const int level, ...)
{
    (void)level;
}

/* ------------------------------------------------------------ deprecated */

void start_pes(int npes)
{
    (void)npes;   /* ignored, as in every SHMEM since 1.2: kumirun -n decides */
    if (kumi_shmem.state == 1)
        return;
    if (kumi_shmem_start("start_pes", SHMEM_THREAD_SINGLE, NULL) != 0)
        exit(1);
}

int _my_pe(void)
{
    if (KUMI_SHMEM_LIKELY(kumi_shmem.state == 1))
        return kumi_shmem.my_pe;
    kumi_shmem_state_error("_my_pe");
    return -1;
}

int _num_pes(void)
{
    if (KUMI_SHMEM_LIKELY(kumi_shmem.state == 1))
        return kumi_shmem.n_pes;
    kumi_shmem_state_error("_num_pes");
    return -1;
}

/* ------------------------------------------------------ shmemx (shmemx.h) */

double shmemx_wtime(void)
{
    return kumi_wtime();
}

int shmemx_pe_node(int pe)
{
    return kumi_shmem.state == 1 ? kumi_pe_node(pe) : -1;
}

int shmemx_node_count(void)
{
    return kumi_shmem.state == 1 ? kumi_node_count() : -1;
}

size_t shmemx_heap_size(void)
{
    return kumi_shmem.state == 1 ? (size_t)kumi_rt.cfg.heap_size : 0;
}
