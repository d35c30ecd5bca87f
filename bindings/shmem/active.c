/*
 * active.c -- the deprecated active-set collectives: shmem_barrier,
 * shmem_sync, shmem_broadcast32/64, shmem_collect32/64,
 * shmem_fcollect32/64, shmem_alltoall(s)32/64 and the engine behind every
 * shmem_TYPENAME_OP_to_all.
 *
 * An active set that is the whole job (PE_start 0, logPE_stride 0, PE_size
 * n_pes: what the benchmark suites use) runs kumi's world-team collectives
 * and never touches pSync. Any other set runs the algorithms below, on the
 * transport's puts, gets and atomics, with the caller's pSync as flag
 * space. Each pSync word used is a counter starting at SHMEM_SYNC_VALUE
 * (0): writers add, the owner waits until it reaches what it expects and
 * subtracts that, so a partner's next call may already add to it without
 * anything being lost, and the words are back at SHMEM_SYNC_VALUE once
 * nobody is in a call any more.
 *
 *   barrier  a tree of radix KUMI_SHMEM_ASET_RADIX over the set's
 *            indices: children add 1 to the parent's ARRIVE, the parent
 *            waits for all, reports up, waits for its RELEASE, adds 1 to
 *            each child's RELEASE.
 *   push     (broadcast, fcollect, alltoall, alltoalls) each member puts
 *            what it sends into the receivers' dest, fences, adds 1 to
 *            their DATA and waits until its own DATA counts every sender.
 *            fcollect and alltoall end when every member has sent, so
 *            every member has entered; broadcast (one sender) ends with
 *            a barrier for that.
 *   pull     (collect, to_all) each member publishes its count in its own
 *            COUNT word, a barrier, everyone gets what it needs from the
 *            others' source, a barrier (nobody reads my source or COUNT
 *            after it), COUNT back to SHMEM_SYNC_VALUE.
 * So no member leaves a call before every member has entered it: a pSync
 * is free again for a member once it has finished the next call, which is
 * why programs may alternate two pSync arrays without a barrier.
 */
#include <stdlib.h>
#include <string.h>

#include "shmem_team.h"
#include "reduce_op.h"

/* pSync words (longs) the algorithms use */
enum {
    KUMI_SHMEM_PS_ARRIVE,    /* barrier: children arrived           */
    KUMI_SHMEM_PS_RELEASE,   /* barrier: the parent released me     */
    KUMI_SHMEM_PS_DATA,      /* push: senders whose data is here    */
    KUMI_SHMEM_PS_COUNT,     /* pull: my contribution's bytes       */
    KUMI_SHMEM_PS_WORDS
};
_Static_assert(SHMEM_SYNC_VALUE == 0, "pSync words are counters from SHMEM_SYNC_VALUE = 0");
_Static_assert(sizeof(long) == 8, "pSync words are 8-byte counters");
_Static_assert(SHMEM_BARRIER_SYNC_SIZE >= 2 && SHMEM_BCAST_SYNC_SIZE >= KUMI_SHMEM_PS_WORDS
                   && SHMEM_COLLECT_SYNC_SIZE >= KUMI_SHMEM_PS_WORDS
                   && SHMEM_ALLTOALL_SYNC_SIZE >= KUMI_SHMEM_PS_WORDS
                   && SHMEM_ALLTOALLS_SYNC_SIZE >= KUMI_SHMEM_PS_WORDS
                   && SHMEM_REDUCE_SYNC_SIZE >= KUMI_SHMEM_PS_WORDS,
               "the pSync sizes hold the words the algorithms use");

#define KUMI_SHMEM_ASET_RADIX 4
/* to_all folds the members' sources in pieces of this many bytes */
#define KUMI_SHMEM_FOLD_BYTES ((size_t)64 << 10)

struct kumi_shmem_aset {
    const char        *call;
    int                start, stride, size;
    int                me;          /* my index in the set                 */
    enum kumi_seg      seg;         /* pSync's place on every member       */
    size_t             off;
    volatile uint64_t *ps;          /* my pSync                            */
};

static inline int kumi_shmem_aset_pe(const struct kumi_shmem_aset *a, int i)
{
    return a->start + i * a->stride;
}

static int kumi_shmem_aset_world(int start, int log_stride, int size)
{
    return start == 0 && size == kumi_shmem.n_pes && (log_stride == 0 || size == 1);
}

/* Checks the set and my place in it, and pSync (words longs, symmetric)
 * when the set has other members: 0, or nonzero after a message. */
static int kumi_shmem_aset_make(const char *call, int start, int log_stride, int size,
                                long *pSync, size_t words, struct kumi_shmem_aset *a)
{
    long long last, rel;

    if (kumi_shmem_check_init(call) != 0)
        return -1;
    /* a set of one PE has no stride to check (programs pass anything) */
    if (size < 1 || start < 0 || (size > 1 && (log_stride < 0 || log_stride > 30)))
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "PE_start %d, logPE_stride %d, "
                                "PE_size %d: not an active set", start, log_stride, size);
    a->call   = call;
    a->start  = start;
    a->stride = size > 1 ? 1 << log_stride : 1;
    a->size   = size;
    last      = (long long)start + (long long)a->stride * (size - 1);
    if (last >= kumi_shmem.n_pes)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "active set PE_start %d, "
                                "logPE_stride %d, PE_size %d reaches PE %lld (%d PEs)", start,
                                log_stride, size, last, kumi_shmem.n_pes);
    rel = kumi_shmem.my_pe - start;
    if (rel < 0 || rel % a->stride != 0 || rel / a->stride >= size)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "PE %d is not in the active set "
                                "PE_start %d, logPE_stride %d, PE_size %d", kumi_shmem.my_pe,
                                start, log_stride, size);
    a->me = (int)(rel / a->stride);
    a->ps = (volatile uint64_t *)pSync;
    if (size == 1)
        return 0;
    if (pSync == NULL || (uintptr_t)pSync % sizeof(long) != 0)
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "pSync %p is NULL or not aligned "
                                "to a long", (void *)pSync);
    return kumi_shmem_sym(call, pSync, words * sizeof(long), &a->seg, &a->off);
}

/* Adds v to pSync word w of member i. */
static inline int kumi_shmem_aset_add(const struct kumi_shmem_aset *a, int i, int w, uint64_t v)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    return kumi_tp_atomic(tp, kumi_shmem_aset_pe(a, i), a->seg, a->off + (size_t)w * 8,
                          KUMI_AMO_ADD, 8, v, 0, NULL);
}

/* Waits until my word w has counted n, then takes the n off. */
static inline int kumi_shmem_aset_take(const struct kumi_shmem_aset *a, int w, uint64_t n)
{
    int rc = kumi_rt_wait_team(a->call, &a->ps[w], 8, KUMI_CMP_GE, n, ~0ull);
    if (rc == KUMI_OK)
        __atomic_fetch_sub(&a->ps[w], n, __ATOMIC_SEQ_CST);
    return rc;
}

static int kumi_shmem_aset_barrier(const struct kumi_shmem_aset *a)
{
    const int R = KUMI_SHMEM_ASET_RADIX;
    int       c0 = a->me * R + 1, nchild = a->size - c0, rc = KUMI_OK;

    if (a->size == 1)
        return KUMI_OK;
    nchild = nchild < 0 ? 0 : nchild > R ? R : nchild;
    if (nchild > 0)
        rc = kumi_shmem_aset_take(a, KUMI_SHMEM_PS_ARRIVE, (uint64_t)nchild);
    if (rc == KUMI_OK && a->me != 0) {
        rc = kumi_shmem_aset_add(a, (a->me - 1) / R, KUMI_SHMEM_PS_ARRIVE, 1);
        if (rc == KUMI_OK)
            rc = kumi_shmem_aset_take(a, KUMI_SHMEM_PS_RELEASE, 1);
    }
    for (int c = c0; c < c0 + nchild && rc == KUMI_OK; c++)
        rc = kumi_shmem_aset_add(a, c, KUMI_SHMEM_PS_RELEASE, 1);
    return rc;
}

/* After my puts to the members in [first, first + n) (indices mod size,
 * me excluded): fence, tell each, and wait until `expect` senders have
 * told me. */
static int kumi_shmem_aset_signal(const struct kumi_shmem_aset *a, int nsend, int first,
                                  int expect)
{
    struct kumi_tp *tp = &kumi_rt.tp;
    int             rc = nsend > 0 ? kumi_tp_fence(tp) : KUMI_OK;

    for (int k = 0; k < nsend && rc == KUMI_OK; k++) {
        int i = (first + k) % a->size;
        if (i != a->me)
            rc = kumi_shmem_aset_add(a, i, KUMI_SHMEM_PS_DATA, 1);
    }
    if (rc == KUMI_OK && expect > 0)
        rc = kumi_shmem_aset_take(a, KUMI_SHMEM_PS_DATA, (uint64_t)expect);
    return rc;
}

/* dest and source of a call moving n bytes (0, or nonzero after a
 * message): NULL only when there is nothing to move */
static int kumi_shmem_aset_buffers(const char *call, const void *dest, const void *source,
                                   size_t n)
{
    if (n == 0 || (dest != NULL && source != NULL))
        return 0;
    return kumi_shmem_error(KUMI_ERR_INVALID, call, "dest or source is NULL (%zu bytes)", n);
}

/* A transport status of the algorithms as the call's result (reported). */
static void kumi_shmem_aset_done(const struct kumi_shmem_aset *a, int rc)
{
    if (rc != KUMI_OK)
        kumi_shmem_status(a->call, rc);
}

/* ------------------------------------------------------- barrier, sync */

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    static const char      call[] = "shmem_barrier";
    struct kumi_shmem_aset a;
    struct kumi_tp        *tp = &kumi_rt.tp;
    int                    rc;

    if (KUMI_SHMEM_LIKELY(kumi_shmem_aset_world(PE_start, logPE_stride, PE_size)
                          && kumi_shmem.state == 1 && kumi_rt.state == 1)) {
        kumi_barrier(kumi_shmem_world_kt());   /* completes every member's puts */
        return;
    }
    if (kumi_shmem_aset_make(call, PE_start, logPE_stride, PE_size, pSync, 2, &a) != 0)
        return;
    /* my puts complete before anyone leaves */
    rc = kumi_tp_quiet(tp);
    if (rc == KUMI_OK)
        rc = kumi_shmem_aset_barrier(&a);
    kumi_shmem_aset_done(&a, rc);
}

/* The active-set shmem_sync (the C11 shmem_sync(team) is shmem_team_sync;
 * the parentheses keep the generic macro out of this definition). */
void (shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    static const char      call[] = "shmem_sync";
    struct kumi_shmem_aset a;

    if (kumi_shmem_aset_world(PE_start, logPE_stride, PE_size)
        && kumi_shmem_check_init(call) == 0) {
        kumi_barrier(kumi_shmem_world_kt());
        return;
    }
    if (kumi_shmem_aset_make(call, PE_start, logPE_stride, PE_size, pSync, 2, &a) != 0)
        return;
    kumi_shmem_aset_done(&a, kumi_shmem_aset_barrier(&a));
}

/* ---------------------------------------------------------- broadcast */

/* 1.4 semantics: every member but the root gets the root's source in its
 * dest; the root's dest is not written. */
static void kumi_shmem_aset_broadcast(const char *call, void *dest, const void *source,
                                      size_t nelems, size_t size, int root, int PE_start,
                                      int logPE_stride, int PE_size, long *pSync)
{
    struct kumi_shmem_aset a;
    struct kumi_tp        *tp = &kumi_rt.tp;
    enum kumi_seg          seg = KUMI_SEG_HEAP;
    size_t                 n, off = 0;
    int                    rc = KUMI_OK;

    if (kumi_shmem_check_init(call) != 0 || kumi_shmem_bytes(call, nelems, size, &n) != 0)
        return;
    if (root < 0 || root >= PE_size) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "PE_root %d out of range (active set of %d "
                         "PEs)", root, PE_size);
        return;
    }
    if (kumi_shmem_aset_world(PE_start, logPE_stride, PE_size)) {
        if (n != 0) {
            int me = kumi_shmem.my_pe;
            if (dest == NULL || (me == root && source == NULL)) {
                kumi_shmem_error(KUMI_ERR_INVALID, call, "dest or source is NULL");
                return;
            }
            /* kumi reads the root's buffer, writes the others' */
            kumi_broadcast(kumi_shmem_world_kt(), me == root ? (void *)source : dest, n, root);
        }
        return;
    }
    if (kumi_shmem_aset_make(call, PE_start, logPE_stride, PE_size, pSync,
                             KUMI_SHMEM_PS_WORDS, &a) != 0 || a.size == 1
        || kumi_shmem_aset_buffers(call, dest, a.me == root ? source : dest, n) != 0)
        return;
    if (n != 0 && kumi_shmem_sym(call, dest, n, &seg, &off) != 0)
        return;
    if (a.me == root) {
        for (int k = 1; k < a.size && rc == KUMI_OK && n != 0; k++)
            rc = kumi_tp_put(tp, kumi_shmem_aset_pe(&a, (root + k) % a.size), seg, off,
                             source, n);
        if (rc == KUMI_OK)
            rc = kumi_shmem_aset_signal(&a, a.size, root + 1, 0);
    } else {
        rc = kumi_shmem_aset_signal(&a, 0, 0, 1);
    }
    /* the others may still wait for the root: no one leaves before all
     * have entered */
    if (rc == KUMI_OK)
        rc = kumi_shmem_aset_barrier(&a);
    kumi_shmem_aset_done(&a, rc);
}

/* ----------------------------------------------------------- fcollect */

static void kumi_shmem_aset_fcollect(const char *call, void *dest, const void *source,
                                     size_t nelems, size_t size, int PE_start, int logPE_stride,
                                     int PE_size, long *pSync)
{
    struct kumi_shmem_aset a;
    struct kumi_tp        *tp = &kumi_rt.tp;
    enum kumi_seg          seg = KUMI_SEG_HEAP;
    size_t                 n, all, off = 0;
    int                    rc = KUMI_OK;

    if (kumi_shmem_check_init(call) != 0 || kumi_shmem_bytes(call, nelems, size, &n) != 0)
        return;
    if (kumi_shmem_aset_world(PE_start, logPE_stride, PE_size)) {
        kumi_shmem_fcollect(call, SHMEM_TEAM_WORLD, dest, source, n, 1);
        return;
    }
    if (kumi_shmem_aset_make(call, PE_start, logPE_stride, PE_size, pSync,
                             KUMI_SHMEM_PS_WORDS, &a) != 0
        || kumi_shmem_bytes(call, n, (size_t)a.size, &all) != 0
        || kumi_shmem_aset_buffers(call, dest, source, n) != 0)
        return;
    if (n != 0) {
        if (kumi_shmem_sym(call, dest, all, &seg, &off) != 0)
            return;
        for (int k = 1; k < a.size && rc == KUMI_OK; k++)
            rc = kumi_tp_put(tp, kumi_shmem_aset_pe(&a, (a.me + k) % a.size), seg,
                             off + (size_t)a.me * n, source, n);
        memmove((char *)dest + (size_t)a.me * n, source, n);
    }
    if (rc == KUMI_OK && a.size > 1)
        rc = kumi_shmem_aset_signal(&a, a.size, a.me + 1, a.size - 1);
    kumi_shmem_aset_done(&a, rc);
}

/* ----------------------------------------------------- alltoall(s) */

/* Element e (block * nelems + i) sits at e * sst in source and lands at
 * e * dst in dest; dst = sst = 1 is the plain all-to-all. */
static void kumi_shmem_aset_alltoalls(const char *call, void *dest, const void *source,
                                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size,
                                      int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct kumi_shmem_aset a;
    struct kumi_tp        *tp = &kumi_rt.tp;
    enum kumi_seg          seg = KUMI_SEG_HEAP;
    size_t                 n, elems, off = 0, span;
    char                  *blk = NULL;
    int                    rc = KUMI_OK;

    if (kumi_shmem_check_init(call) != 0 || kumi_shmem_bytes(call, nelems, size, &n) != 0)
        return;
    if (dst < 1 || sst < 1) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "strides dst %td and sst %td must be at "
                         "least 1", dst, sst);
        return;
    }
    if (kumi_shmem_aset_world(PE_start, logPE_stride, PE_size)) {
        kumi_shmem_alltoalls(call, SHMEM_TEAM_WORLD, dest, source, dst, sst, nelems, size);
        return;
    }
    if (kumi_shmem_aset_make(call, PE_start, logPE_stride, PE_size, pSync,
                             KUMI_SHMEM_PS_WORDS, &a) != 0
        || kumi_shmem_bytes(call, nelems, (size_t)a.size, &elems) != 0
        || kumi_shmem_aset_buffers(call, dest, source, n) != 0)
        return;
    if (elems != 0 && (size_t)(dst > sst ? dst : sst) > SIZE_MAX / elems / size) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "strided extent overflows");
        return;
    }
    span = elems == 0 ? 0 : ((elems - 1) * (size_t)dst + 1) * size;
    if (n != 0) {
        if (kumi_shmem_sym(call, dest, span, &seg, &off) != 0)
            return;
        if (sst != 1 && dst == 1 && (blk = malloc(n)) == NULL) {
            kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory");
            return;
        }
    }
    /* staggered: member me sends first to me + 1; my own block last */
    for (int k = 1; k <= a.size && rc == KUMI_OK && n != 0; k++) {
        int         j   = (a.me + k) % a.size;
        int         pe  = kumi_shmem_aset_pe(&a, j);
        size_t      in  = (size_t)j * nelems, out = (size_t)a.me * nelems;
        const char *src = (const char *)source + in * (size_t)sst * size;
        if (j == a.me) {
            for (size_t i = 0; i < nelems; i++)
                memmove((char *)dest + (out + i) * (size_t)dst * size,
                        src + i * (size_t)sst * size, size);
        } else if (dst == 1) {
            if (sst != 1) {
                for (size_t i = 0; i < nelems; i++)
                    memcpy(blk + i * size, src + i * (size_t)sst * size, size);
                src = blk;
            }
            rc = kumi_tp_put(tp, pe, seg, off + out * size, src, n);
        } else {
            for (size_t i = 0; i < nelems && rc == KUMI_OK; i++)
                rc = kumi_tp_put(tp, pe, seg, off + (out + i) * (size_t)dst * size,
                                 src + i * (size_t)sst * size, size);
        }
    }
    free(blk);
    if (rc == KUMI_OK && a.size > 1)
        rc = kumi_shmem_aset_signal(&a, a.size, a.me + 1, a.size - 1);
    kumi_shmem_aset_done(&a, rc);
}

/* The whole-job broadcast inline in shmem_broadcast32/64 (what the
 * benchmark suites time): a few loads and compares before kumi's. */
static inline void kumi_shmem_aset_broadcast_fast(const char *call, void *dest,
                                                  const void *source, size_t nelems,
                                                  size_t size, int root, int PE_start,
                                                  int logPE_stride, int PE_size, long *pSync)
{
    size_t n;

    if (KUMI_SHMEM_LIKELY(kumi_shmem.state == 1 && kumi_rt.state == 1 && PE_start == 0
                          && logPE_stride == 0 && PE_size == kumi_shmem.n_pes
                          && (unsigned)root < (unsigned)PE_size
                          && !__builtin_mul_overflow(nelems, size, &n) && n != 0
                          && dest != NULL && source != NULL)) {
        kumi_broadcast(kumi_shmem_world_kt(), kumi_shmem.my_pe == root ? (void *)source : dest,
                       n, root);
        return;
    }
    kumi_shmem_aset_broadcast(call, dest, source, nelems, size, root, PE_start, logPE_stride,
                              PE_size, pSync);
}

/* ------------------------------------------------------------- collect */

/* Pull: my byte count in my COUNT word, a barrier, every member gets the
 * others' counts and blocks, a barrier. */
static void kumi_shmem_aset_collect(const char *call, void *dest, const void *source,
                                    size_t nelems, size_t size, int PE_start, int logPE_stride,
                                    int PE_size, long *pSync)
{
    struct kumi_shmem_aset a;
    struct kumi_tp        *tp = &kumi_rt.tp;
    enum kumi_seg          sseg = KUMI_SEG_HEAP;
    size_t                 n, soff = 0, at = 0;
    int                    rc, bad = 0;

    if (kumi_shmem_check_init(call) != 0 || kumi_shmem_bytes(call, nelems, size, &n) != 0)
        return;
    if (kumi_shmem_aset_world(PE_start, logPE_stride, PE_size)) {
        kumi_shmem_collect(call, SHMEM_TEAM_WORLD, dest, source, n, 1);
        return;
    }
    if (kumi_shmem_aset_make(call, PE_start, logPE_stride, PE_size, pSync,
                             KUMI_SHMEM_PS_WORDS, &a) != 0
        || kumi_shmem_aset_buffers(call, dest, source, n) != 0)
        return;
    if (a.size == 1) {
        if (n != 0)
            memmove(dest, source, n);
        return;
    }
    __atomic_store_n(&a.ps[KUMI_SHMEM_PS_COUNT], (uint64_t)n, __ATOMIC_SEQ_CST);
    rc = kumi_shmem_aset_barrier(&a);
    for (int i = 0; i < a.size && rc == KUMI_OK && !bad; i++) {
        uint64_t c  = 0;
        int      pe = kumi_shmem_aset_pe(&a, i);
        if (i == a.me) {
            if (n != 0)
                memmove((char *)dest + at, source, n);
            at += n;
            continue;
        }
        rc = kumi_tp_get(tp, &c, pe, a.seg, a.off + KUMI_SHMEM_PS_COUNT * 8, 8);
        /* source is symmetric: member i's has its c bytes at my source's
         * place (a bad one is reported, and the others see it alike) */
        if (rc == KUMI_OK && c != 0 && kumi_shmem_sym(call, source, (size_t)c, &sseg, &soff) != 0)
            bad = 1;
        if (rc == KUMI_OK && c != 0 && !bad)
            rc = kumi_tp_get(tp, (char *)dest + at, pe, sseg, soff, (size_t)c);
        at += (size_t)c;
    }
    /* nobody reads my source and COUNT after this (entered after a bad
     * argument too: the others are in it) */
    if (rc == KUMI_OK)
        rc = kumi_shmem_aset_barrier(&a);
    __atomic_store_n(&a.ps[KUMI_SHMEM_PS_COUNT], (uint64_t)SHMEM_SYNC_VALUE, __ATOMIC_SEQ_CST);
    kumi_shmem_aset_done(&a, rc);
}

/* -------------------------------------------------------------- to_all */

/* Pull: a barrier, then each member folds every member's source in set
 * order (the same bits everywhere) with kumi's kernels, a piece at a
 * time, then a barrier. dest == source: the result waits in a buffer
 * until nobody reads my source any more. */
void kumi_shmem_to_all(const char *call, void *dest, const void *source, int nreduce,
                       size_t size, kumi_type_t type, kumi_op_t op, int PE_start,
                       int logPE_stride, int PE_size, long *pSync)
{
    struct kumi_shmem_aset a;
    struct kumi_tp        *tp = &kumi_rt.tp;
    kumi_coll_op_fn        fn;
    enum kumi_seg          sseg = KUMI_SEG_HEAP;
    size_t                 n, soff = 0, piece;
    char                  *res, *tmp;
    int                    rc;

    if (kumi_shmem_check_init(call) != 0)
        return;
    if (nreduce < 0) {
        kumi_shmem_error(KUMI_ERR_INVALID, call, "nreduce %d is negative", nreduce);
        return;
    }
    if (kumi_shmem_bytes(call, (size_t)nreduce, size, &n) != 0
        || kumi_shmem_aset_buffers(call, dest, source, n) != 0)
        return;
    if (kumi_shmem_aset_world(PE_start, logPE_stride, PE_size)) {
        kumi_allreduce(kumi_shmem_world_kt(), dest, source, (size_t)nreduce, type, op);
        return;
    }
    if (kumi_shmem_aset_make(call, PE_start, logPE_stride, PE_size, pSync,
                             KUMI_SHMEM_PS_WORDS, &a) != 0)
        return;
    if (a.size == 1) {
        if (n != 0 && dest != source)
            memmove(dest, source, n);
        kumi_coll_type_canon(type, dest, (size_t)nreduce);
        return;
    }
    if (n != 0 && kumi_shmem_sym(call, source, n, &sseg, &soff) != 0)
        return;
    fn    = kumi_coll_op_lookup(type, op);
    piece = KUMI_SHMEM_FOLD_BYTES / size * size;
    tmp   = malloc(piece + (dest == source ? n : 0));
    if (tmp == NULL) {
        kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory");
        return;   /* the others wait in the barrier: the job ends there */
    }
    res = dest == source ? tmp + piece : dest;
    rc  = kumi_shmem_aset_barrier(&a);
    for (size_t o = 0; o < n && rc == KUMI_OK; o += piece) {
        size_t c = n - o < piece ? n - o : piece;
        for (int i = 0; i < a.size && rc == KUMI_OK; i++) {
            const char *v = (const char *)source + o;
            if (i != a.me) {
                rc = kumi_tp_get(tp, tmp, kumi_shmem_aset_pe(&a, i), sseg, soff + o, c);
                v  = tmp;
            }
            if (i == 0)
                memcpy(res + o, v, c);
            else
                fn(res + o, v, c / size);
        }
    }
    if (rc == KUMI_OK)
        rc = kumi_shmem_aset_barrier(&a);
    if (rc == KUMI_OK && res != dest)
        memcpy(dest, res, n);
    if (rc == KUMI_OK)
        kumi_coll_type_canon(type, dest, (size_t)nreduce);
    free(tmp);
    kumi_shmem_aset_done(&a, rc);
}

/* ------------------------------------------------ the 32/64-bit forms */

#define KUMI_SHMEM_DEF_ACTIVE(BITS)                                                          \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,   \
                               int PE_start, int logPE_stride, int PE_size, long *pSync)     \
    {                                                                                        \
        kumi_shmem_aset_broadcast_fast("shmem_broadcast" #BITS, dest, source, nelems,        \
                                       BITS / 8, PE_root, PE_start, logPE_stride, PE_size,   \
                                       pSync);                                               \
    }                                                                                        \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,    \
                             int logPE_stride, int PE_size, long *pSync)                     \
    {                                                                                        \
        kumi_shmem_aset_collect("shmem_collect" #BITS, dest, source, nelems, BITS / 8,       \
                                PE_start, logPE_stride, PE_size, pSync);                     \
    }                                                                                        \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,   \
                              int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                        \
        kumi_shmem_aset_fcollect("shmem_fcollect" #BITS, dest, source, nelems, BITS / 8,     \
                                 PE_start, logPE_stride, PE_size, pSync);                    \
    }                                                                                        \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,   \
                              int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                        \
        kumi_shmem_aset_alltoalls("shmem_alltoall" #BITS, dest, source, 1, 1, nelems,        \
                                  BITS / 8, PE_start, logPE_stride, PE_size, pSync);         \
    }                                                                                        \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
                               long *pSync)                                                  \
    {                                                                                        \
        kumi_shmem_aset_alltoalls("shmem_alltoalls" #BITS, dest, source, dst, sst, nelems,   \
                                  BITS / 8, PE_start, logPE_stride, PE_size, pSync);         \
    }
KUMI_SHMEM_DEF_ACTIVE(32)
KUMI_SHMEM_DEF_ACTIVE(64)
#undef KUMI_SHMEM_DEF_ACTIVE
