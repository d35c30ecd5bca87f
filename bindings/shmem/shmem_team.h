/*
 * shmem_team.h -- teams and collectives of the OpenSHMEM binding (internal
 * to teams.c, coll.c, reduce.c and active.c).
 *
 * A SHMEM team is a kumi team (include/kumi.h) plus what SHMEM adds: the
 * configuration it was made with and the contexts made on it, which
 * shmem_team_destroy destroys with it. SHMEM_TEAM_WORLD and
 * SHMEM_TEAM_SHARED are objects defined in teams.c (their addresses are
 * the handles); split teams are allocated. SHMEM_TEAM_INVALID is NULL.
 *
 * The team-based collectives run on kumi's collectives over the kumi team
 * (local buffers, bit-identical reductions). The deprecated active-set
 * collectives (active.c) run kumi's world-team collectives when the active
 * set is the whole job, and otherwise algorithms of their own on the
 * transport's gets and atomics with the caller's pSync as flag space.
 */
#ifndef KUMI_SHMEM_TEAM_H
#define KUMI_SHMEM_TEAM_H

#include "shmem_impl.h"

struct kumi_shmem_team {
    kumi_team_t         kt;          /* the kumi team (world: kumi's world)   */
    int                 my_pe, n_pes;
    int                 predefined;  /* world or shared: never destroyed      */
    shmem_team_config_t config;      /* as made (defaults where not masked)   */
    long                config_mask;
    /* contexts made on this team and not destroyed yet */
    shmem_ctx_t        *ctx;
    int                 nctx, ctx_cap;
    /* every team alive on this PE, in creation order (finalize destroys
     * them newest first: the order every member agrees on) */
    struct kumi_shmem_team *prev, *next;
};

/* The team behind a handle for a collective or query named call: NULL
 * (after one message) for SHMEM_TEAM_INVALID, before init, or when this
 * PE is not a member. */
struct kumi_shmem_team *kumi_shmem_team_get(const char *call, shmem_team_t team);

/* The same without a message (queries that return -1 for a bad team). */
static inline struct kumi_shmem_team *kumi_shmem_team_peek(shmem_team_t team)
{
    return team != SHMEM_TEAM_INVALID && kumi_shmem.state == 1 && kumi_rt.state == 1
                   ? (struct kumi_shmem_team *)team
                   : NULL;
}

/* nelems * size in *bytes, or nonzero after a message naming call. */
int kumi_shmem_bytes_overflow(const char *call, size_t nelems, size_t size);
static inline int kumi_shmem_bytes(const char *call, size_t nelems, size_t size, size_t *bytes)
{
    if (KUMI_SHMEM_UNLIKELY(__builtin_mul_overflow(nelems, size, bytes)))
        return kumi_shmem_bytes_overflow(call, nelems, size);
    return 0;
}

/* A kumi status of a collective as the binding's return value: 0 for
 * KUMI_OK, else nonzero (kumi already reported it). */
static inline int kumi_shmem_coll_rc(int rc)
{
    return rc == KUMI_OK ? 0 : (rc < 0 ? -rc : rc);
}

/* The team-based collectives (coll.c) for a call named call, nelems
 * elements of size bytes: 0, or nonzero after a message. The world's are
 * also the deprecated active-set forms' fast path. */
int kumi_shmem_broadcast(const char *call, shmem_team_t team, void *dest, const void *source,
                         size_t nelems, size_t size, int root);
int kumi_shmem_collect(const char *call, shmem_team_t team, void *dest, const void *source,
                       size_t nelems, size_t size);
int kumi_shmem_fcollect(const char *call, shmem_team_t team, void *dest, const void *source,
                        size_t nelems, size_t size);
int kumi_shmem_alltoall(const char *call, shmem_team_t team, void *dest, const void *source,
                        size_t nelems, size_t size);
int kumi_shmem_alltoalls(const char *call, shmem_team_t team, void *dest, const void *source,
                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size);

/* The deprecated shmem_TYPENAME_OP_to_all (active.c): nreduce elements of
 * size bytes, kumi's type and op for them. */
void kumi_shmem_to_all(const char *call, void *dest, const void *source, int nreduce,
                       size_t size, kumi_type_t type, kumi_op_t op, int PE_start,
                       int logPE_stride, int PE_size, long *pSync);
/* The same with the whole job's set inline (what the benchmarks time). */
static inline void kumi_shmem_to_all_fast(const char *call, void *dest, const void *source,
                                          int nreduce, size_t size, kumi_type_t type,
                                          kumi_op_t op, int PE_start, int logPE_stride,
                                          int PE_size, long *pSync)
{
    if (KUMI_SHMEM_LIKELY(kumi_shmem.state == 1 && kumi_rt.state == 1 && PE_start == 0
                          && logPE_stride == 0 && PE_size == kumi_shmem.n_pes && nreduce > 0
                          && dest != NULL && source != NULL)) {
        kumi_allreduce(&kumi_rt.world, dest, source, (size_t)nreduce, type, op);
        return;
    }
    kumi_shmem_to_all(call, dest, source, nreduce, size, type, op, PE_start, logPE_stride,
                      PE_size, pSync);
}

/* The world team's kumi handle (after init). */
static inline kumi_team_t kumi_shmem_world_kt(void)
{
    return &kumi_rt.world;
}

#endif /* KUMI_SHMEM_TEAM_H */
