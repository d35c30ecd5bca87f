/*
 * coll.c -- team-based collectives: sync, barrier_all, sync_all, and
 * broadcast, collect, fcollect, alltoall, alltoalls in every standard RMA
 * type and the mem forms, on kumi's collectives over the team.
 *
 * kumi's collectives take local buffers, so only collect, whose blocks
 * land at offsets known only once every member's count is, writes into
 * the other members' dest (the symmetric object) directly: the counts go
 * round with an allgather, each member puts its block into every member,
 * and a barrier completes the puts. The strided all-to-all packs into a
 * contiguous buffer, exchanges, and unpacks.
 */
#include <stdlib.h>
#include <string.h>

#include "shmem_team.h"

/* A kumi status as the binding's: 0 or -1 (kumi reported it). */
#define KUMI_SHMEM_RC(rc) ((rc) == KUMI_OK ? 0 : -1)

/* dest and source hold n bytes: not NULL unless n is 0 (0, or -1 after a
 * message) */
static inline int kumi_shmem_buffers(const char *call, const void *dest, const void *source,
                                     size_t n)
{
    if (KUMI_SHMEM_LIKELY(n == 0 || (dest != NULL && source != NULL)))
        return 0;
    kumi_shmem_error(KUMI_ERR_INVALID, call, "dest or source is NULL");
    return -1;
}

/* ------------------------------------------------------- synchronization */

int shmem_team_sync(shmem_team_t team)
{
    struct kumi_shmem_team *t = kumi_shmem_team_get("shmem_team_sync", team);
    return t != NULL ? KUMI_SHMEM_RC(kumi_barrier(t->kt)) : -1;
}

/* kumi's barrier makes every member's earlier puts and atomics visible
 * before anyone leaves: what barrier_all needs (quiet, then barrier) and
 * more than sync_all does. */
void shmem_barrier_all(void)
{
    if (KUMI_SHMEM_LIKELY(kumi_shmem_check_init("shmem_barrier_all") == 0))
        kumi_barrier(kumi_shmem_world_kt());
}

void shmem_sync_all(void)
{
    if (KUMI_SHMEM_LIKELY(kumi_shmem_check_init("shmem_sync_all") == 0))
        kumi_barrier(kumi_shmem_world_kt());
}

/* ------------------------------------------------------------- broadcast */

int kumi_shmem_broadcast(const char *call, shmem_team_t team, void *dest,
                                const void *source, size_t nelems, size_t size, int root)
{
    struct kumi_shmem_team *t = kumi_shmem_team_get(call, team);
    size_t                  n;
    int                     rc;

    if (t == NULL || kumi_shmem_bytes(call, nelems, size, &n) != 0)
        return -1;
    if (root < 0 || root >= t->n_pes) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "PE_root %d out of range (the team has %d "
                         "PEs)", root, t->n_pes);
        return -1;
    }
    if (n == 0)
        return 0;
    if (dest == NULL || (t->my_pe == root && source == NULL)) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "dest or source is NULL");
        return -1;
    }
    /* kumi reads the root's buffer and writes the others': the root's
     * source goes out as it is, and its own dest gets a copy (1.5) */
    if (t->my_pe == root) {
        rc = kumi_broadcast(t->kt, (void *)source, n, root);
        if (dest != source)
            memmove(dest, source, n);
    } else {
        rc = kumi_broadcast(t->kt, dest, n, root);
    }
    return KUMI_SHMEM_RC(rc);
}

/* --------------------------------------------------------------- collect */

int kumi_shmem_collect(const char *call, shmem_team_t team, void *dest,
                              const void *source, size_t nelems, size_t size)
{
    struct kumi_shmem_team *t = kumi_shmem_team_get(call, team);
    struct kumi_tp         *tp = &kumi_rt.tp;
    size_t                  n, *counts, at = 0, total = 0, off = 0;
    enum kumi_seg           seg = KUMI_SEG_HEAP;
    int                     rc;

    if (t == NULL || kumi_shmem_bytes(call, nelems, size, &n) != 0)
        return -1;
    if (n != 0 && source == NULL) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "source is NULL");
        return -1;
    }
    counts = malloc((size_t)t->n_pes * sizeof(*counts));
    if (counts == NULL) {
        kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory");
        return -1;
    }
    /* when this returns every member has entered: their dest is ready */
    rc = kumi_allgather(t->kt, counts, &n, sizeof(n));
    for (int r = 0; rc == KUMI_OK && r < t->n_pes; r++) {
        if (r == t->my_pe)
            at = total;
        total += counts[r];
    }
    free(counts);
    if (rc != KUMI_OK)
        return -1;
    if (total != 0 && kumi_shmem_sym(call, dest, total, &seg, &off) != 0)
        return -1;   /* dest is symmetric or not on every member alike */
    if (n != 0) {
        /* staggered: member r starts with r + 1 */
        for (int k = 1; k < t->n_pes && rc == KUMI_OK; k++) {
            int r = (t->my_pe + k) % t->n_pes;
            rc    = kumi_tp_put(tp, kumi_team_pe(t->kt, r), seg, off + at, source, n);
        }
        memmove((char *)dest + at, source, n);
    }
    if (rc != KUMI_OK)
        kumi_shmem_status(call, rc);
    /* completes every member's puts (entered on error too: the others are
     * in it) */
    return kumi_barrier(t->kt) == KUMI_OK && rc == KUMI_OK ? 0 : -1;
}

/* ----------------------------------------------------- fcollect, alltoall */

int kumi_shmem_fcollect(const char *call, shmem_team_t team, void *dest,
                               const void *source, size_t nelems, size_t size)
{
    struct kumi_shmem_team *t = kumi_shmem_team_get(call, team);
    size_t                  n;

    if (t == NULL || kumi_shmem_bytes(call, nelems, size, &n) != 0
        || kumi_shmem_buffers(call, dest, source, n) != 0)
        return -1;
    return KUMI_SHMEM_RC(kumi_allgather(t->kt, dest, source, n));
}

int kumi_shmem_alltoall(const char *call, shmem_team_t team, void *dest,
                               const void *source, size_t nelems, size_t size)
{
    struct kumi_shmem_team *t = kumi_shmem_team_get(call, team);
    size_t                  n;

    if (t == NULL || kumi_shmem_bytes(call, nelems, size, &n) != 0
        || kumi_shmem_buffers(call, dest, source, n) != 0)
        return -1;
    return KUMI_SHMEM_RC(kumi_alltoall(t->kt, dest, source, n));
}

/* Element e of the all-to-all (e = block * nelems + i) sits at e * sst in
 * source and lands at e * dst in dest. */
int kumi_shmem_alltoalls(const char *call, shmem_team_t team, void *dest,
                                const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                size_t nelems, size_t size)
{
    struct kumi_shmem_team *t = kumi_shmem_team_get(call, team);
    size_t                  n, all, elems;
    char                   *in, *out;
    int                     rc;

    if (t == NULL || kumi_shmem_bytes(call, nelems, size, &n) != 0
        || kumi_shmem_buffers(call, dest, source, n) != 0)
        return -1;
    if (dst < 1 || sst < 1) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "strides dst %td and sst %td must be at "
                         "least 1", dst, sst);
        return -1;
    }
    if (dst == 1 && sst == 1)
        return KUMI_SHMEM_RC(kumi_alltoall(t->kt, dest, source, n));
    if (kumi_shmem_bytes(call, nelems, (size_t)t->n_pes, &elems) != 0
        || kumi_shmem_bytes(call, n, (size_t)t->n_pes, &all) != 0
        || (elems != 0 && ((size_t)(dst > sst ? dst : sst) > SIZE_MAX / elems / size))) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "strided extent overflows");
        return -1;
    }
    in  = malloc(all ? 2 * all : 1);
    if (in == NULL) {
        kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory for %zu bytes", 2 * all);
        return -1;
    }
    out = in + all;
    for (size_t e = 0; e < elems; e++)
        memcpy(in + e * size, (const char *)source + e * (size_t)sst * size, size);
    rc = kumi_alltoall(t->kt, out, in, n);
    for (size_t e = 0; rc == KUMI_OK && e < elems; e++)
        memcpy((char *)dest + e * (size_t)dst * size, out + e * size, size);
    free(in);
    return KUMI_SHMEM_RC(rc);
}

/* ------------------------------------------------- the typed families */

/* The common broadcast inline in every typed function (a 2-PE broadcast
 * of 8 bytes is a few tens of ns of kumi's own work on the receiving side, so the
 * binding's checks must cost a few ns, not a call chain): a valid team, a
 * root in range, bytes to move. Everything else takes the checked path. */
static inline int kumi_shmem_broadcast_fast(const char *call, shmem_team_t team, void *dest,
                                            const void *source, size_t nelems, size_t size,
                                            int root)
{
    struct kumi_shmem_team *t = kumi_shmem_team_peek(team);
    size_t                  n;
    int                     rc;

    if (KUMI_SHMEM_UNLIKELY(t == NULL || (unsigned)root >= (unsigned)t->n_pes
                            || __builtin_mul_overflow(nelems, size, &n) || n == 0
                            || dest == NULL || source == NULL))
        return kumi_shmem_broadcast(call, team, dest, source, nelems, size, root);
    if (t->my_pe != root)
        return kumi_broadcast(t->kt, dest, n, root) == KUMI_OK ? 0 : -1;
    rc = kumi_broadcast(t->kt, (void *)source, n, root);
    if (dest != source)
        memmove(dest, source, n);
    return rc == KUMI_OK ? 0 : -1;
}

#define KUMI_SHMEM_DEF_COLL(T, N)                                                            \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,    \
                              int PE_root)                                                   \
    {                                                                                        \
        return kumi_shmem_broadcast_fast("shmem_" #N "_broadcast", team, dest, source,       \
                                         nelems, sizeof(T), PE_root);                        \
    }                                                                                        \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)      \
    {                                                                                        \
        return kumi_shmem_collect("shmem_" #N "_collect", team, dest, source, nelems,        \
                                  sizeof(T));                                                \
    }                                                                                        \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)     \
    {                                                                                        \
        return kumi_shmem_fcollect("shmem_" #N "_fcollect", team, dest, source, nelems,      \
                                   sizeof(T));                                               \
    }                                                                                        \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)     \
    {                                                                                        \
        return kumi_shmem_alltoall("shmem_" #N "_alltoall", team, dest, source, nelems,      \
                                   sizeof(T));                                               \
    }                                                                                        \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,    \
                              ptrdiff_t sst, size_t nelems)                                  \
    {                                                                                        \
        return kumi_shmem_alltoalls("shmem_" #N "_alltoalls", team, dest, source, dst, sst,  \
                                    nelems, sizeof(T));                                      \
    }
KUMI_SHMEM_RMA_TYPES(KUMI_SHMEM_DEF_COLL)
#undef KUMI_SHMEM_DEF_COLL

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return kumi_shmem_broadcast_fast("shmem_broadcastmem", team, dest, source, nelems, 1,
                                     PE_root);
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return kumi_shmem_collect("shmem_collectmem", team, dest, source, nelems, 1);
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return kumi_shmem_fcollect("shmem_fcollectmem", team, dest, source, nelems, 1);
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return kumi_shmem_alltoall("shmem_alltoallmem", team, dest, source, nelems, 1);
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return kumi_shmem_alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, nelems, 1);
}
