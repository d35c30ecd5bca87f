/*
 * loop.c -- worksharing loops: __kmpc_for_static_init_{4,4u,8,8u} (static
 * schedules, sections) and __kmpc_dispatch_{init,next,fini}_* (dynamic,
 * guided, runtime, auto, ordered), __kmpc_ordered/__kmpc_end_ordered.
 *
 * Static schedules are computed by each thread alone. Dispatched loops
 * share a slot on PE 0 (the symmetric area; kumi remote atomics): the next
 * iteration to hand out, how many threads finished, the next iteration
 * allowed into its ordered region, and the loop that owns the slot. A
 * team's k-th dispatched loop of a region uses slot k % KUMI_OMP_LOOP_SLOTS
 * (nowait loops may overlap); the last thread to finish a loop frees its
 * slot. Iterations are counted 0..tc-1 (normalized) inside the runtime;
 * the bounds the program sees are lb + i * st.
 *
 * The bound and flag pointers clang passes point into the thread's frame,
 * which the translator may have moved into the DSM stack: they are read
 * and written with the DSM-aware accessors.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_int.h"

#define KUMI_OMP_LOOP_SLOTS 8

/* schedule kinds of the LLVM OpenMP ABI (kmp_sch_*) */
enum {
    KUMI_SCH_STATIC_CHUNKED = 33, KUMI_SCH_STATIC = 34, KUMI_SCH_DYNAMIC = 35,
    KUMI_SCH_GUIDED = 36, KUMI_SCH_RUNTIME = 37, KUMI_SCH_AUTO = 38,
    KUMI_SCH_TRAPEZOIDAL = 39, KUMI_SCH_STATIC_GREEDY = 40, KUMI_SCH_STATIC_BALANCED = 41,
    KUMI_SCH_GUIDED_ITERATIVE = 42, KUMI_SCH_GUIDED_ANALYTICAL = 43, KUMI_SCH_STATIC_STEAL = 44,
    KUMI_SCH_STATIC_BALANCED_CHUNKED = 45, KUMI_SCH_GUIDED_SIMD = 46, KUMI_SCH_RUNTIME_SIMD = 47,
    KUMI_SCH_ORD_FIRST = 65, KUMI_SCH_ORD_LAST = 70,
    KUMI_SCH_DIST_STATIC_CHUNKED = 91, KUMI_SCH_DIST_STATIC = 92,
    KUMI_SCH_MODIFIERS = (1 << 29) | (1 << 30)
};

enum { KUMI_OMP_T4, KUMI_OMP_T4U, KUMI_OMP_T8, KUMI_OMP_T8U };

typedef __int128 kumi_omp_wide;

struct kumi_omp_loop_slot {   /* PE 0's copy is the one used */
    uint64_t next;    /* next normalized iteration to hand out */
    uint64_t done;    /* threads that saw the end              */
    uint64_t ord;     /* next iteration allowed into ordered   */
    uint64_t owner;   /* (region << 32 | loop number + 1), 0: free */
    uint64_t pad_[4];
};

static struct kumi_omp_loop_slot *kumi_omp_slots;

/* this thread's dispatched loop, one per nesting level (a serialized
 * nested region, or a task run while waiting, may run its own loop inside
 * an iteration of the outer one) */
#define KUMI_OMP_DISP_LEVELS 8
static struct kumi_omp_disp {
    int           kind;      /* KUMI_SCH_STATIC, _STATIC_CHUNKED, _DYNAMIC, _GUIDED */
    int           type;
    int           ordered;
    int           local;     /* team of one: no slot */
    int           simd;      /* guided: chunks are multiples of chunk */
    kumi_omp_wide lb, st;
    uint64_t      tc, chunk;
    uint64_t      static_next;   /* static kinds: next chunk number of this thread */
    uint64_t      local_next;    /* team of one */
    uint64_t      key;
    struct kumi_omp_loop_slot *slot;
    uint64_t      ord_cur;       /* normalized iteration being run (ordered) */
    uint64_t      ord_end;       /* one past the current chunk's last */
    int           ord_done;      /* its ordered region has run */
    int           finished;
} kumi_omp_disps[KUMI_OMP_DISP_LEVELS];

static struct kumi_omp_disp *kumi_omp_disp_here(void)
{
    int l = kumi_omp_th.level;
    return &kumi_omp_disps[l < KUMI_OMP_DISP_LEVELS ? l : KUMI_OMP_DISP_LEVELS - 1];
}

void kumi_omp_doacross_slots_init(void);

void kumi_omp_loop_init(void)
{
    kumi_omp_slots = kumi_omp_sym_alloc(sizeof(*kumi_omp_slots) * KUMI_OMP_LOOP_SLOTS);
    kumi_omp_doacross_slots_init();
}

/* ------------------------------------------------- typed accessors */
static kumi_omp_wide kumi_omp_ld_typed(const void *p, int type)
{
    switch (type) {
    case KUMI_OMP_T4: return (int32_t)kumi_omp_ld32(p);
    case KUMI_OMP_T4U: return (uint32_t)kumi_omp_ld32(p);
    case KUMI_OMP_T8: return (int64_t)kumi_omp_ld64(p);
    default: return (uint64_t)kumi_omp_ld64(p);
    }
}

static void kumi_omp_st_typed(void *p, int type, kumi_omp_wide v)
{
    if (type == KUMI_OMP_T4 || type == KUMI_OMP_T4U)
        kumi_omp_st32(p, (int32_t)(uint32_t)v);
    else
        kumi_omp_st64(p, (int64_t)(uint64_t)v);
}

/* iterations of lb, lb+st, ... up to ub (inclusive) */
static uint64_t kumi_omp_trip_count(kumi_omp_wide lb, kumi_omp_wide ub, kumi_omp_wide st)
{
    if (st > 0)
        return ub < lb ? 0 : (uint64_t)((ub - lb) / st + 1);
    if (st < 0)
        return ub > lb ? 0 : (uint64_t)((lb - ub) / -st + 1);
    return 0;
}

/* --------------------------------------------------------- static */
static void kumi_omp_static_init(const char *call, int type, int32_t sched, int32_t *plast,
                                 void *plower, void *pupper, void *pstride, kumi_omp_wide incr,
                                 kumi_omp_wide chunk)
{
    const kumi_omp_thread_t *th  = &kumi_omp_th;
    kumi_omp_wide            lb  = kumi_omp_ld_typed(plower, type);
    kumi_omp_wide            ub  = kumi_omp_ld_typed(pupper, type);
    uint64_t                 tc  = kumi_omp_trip_count(lb, ub, incr);
    uint64_t                 tid = (uint64_t)th->tid, nth = (uint64_t)th->nth;
    int32_t                  last = 0;
    kumi_omp_wide            nlb, nub, stride;

    sched &= ~KUMI_SCH_MODIFIERS;
    if (incr == 0)
        kumi_omp_fatal(call, "loop increment is 0");
    if (tc == 0) {
        if (plast)
            kumi_omp_st32(plast, 0);
        kumi_omp_st_typed(pstride, type, incr);
        return;
    }
    if (sched == KUMI_SCH_STATIC_BALANCED_CHUNKED) {
        /* schedule(simd:static): one block each, a multiple of the chunk
         * (the simd width) but the last */
        uint64_t c     = chunk < 1 ? 1 : (uint64_t)chunk;
        uint64_t span  = ((tc + nth - 1) / nth + c - 1) / c * c;
        uint64_t first = tid * span < tc ? tid * span : tc;
        uint64_t mine  = tc - first < span ? tc - first : span;
        nlb            = lb + (kumi_omp_wide)first * incr;
        nub            = nlb + ((kumi_omp_wide)mine - 1) * incr;
        stride         = (kumi_omp_wide)tc * incr;
        last           = mine > 0 && first + mine == tc;
    } else if (sched == KUMI_SCH_STATIC_CHUNKED || sched == KUMI_SCH_DIST_STATIC_CHUNKED) {
        uint64_t c = chunk < 1 ? 1 : (uint64_t)chunk;
        nlb        = lb + (kumi_omp_wide)(tid * c) * incr;
        nub        = nlb + (kumi_omp_wide)(c - 1) * incr;
        stride     = (kumi_omp_wide)(nth * c) * incr;
        last       = tid == ((tc - 1) / c) % nth;
    } else {
        /* balanced blocks: the first tc % nth threads get one more */
        uint64_t small = tc / nth, extras = tc % nth;
        uint64_t mine  = small + (tid < extras);
        uint64_t first = tid * small + (tid < extras ? tid : extras);
        nlb            = lb + (kumi_omp_wide)first * incr;
        nub            = nlb + ((kumi_omp_wide)mine - 1) * incr;
        stride         = (kumi_omp_wide)tc * incr;
        last           = mine > 0 && first + mine == tc;
    }
    /* keep the bounds representable: an empty share starts past ub */
    if (incr > 0) {
        if (nub > ub)
            nub = ub;
        if (nlb > ub) {
            nlb = ub + 1;
            nub = ub;
        }
    } else {
        if (nub < ub)
            nub = ub;
        if (nlb < ub) {
            nlb = ub - 1;
            nub = ub;
        }
    }
    if (plast)
        kumi_omp_st32(plast, last);
    kumi_omp_st_typed(plower, type, nlb);
    kumi_omp_st_typed(pupper, type, nub);
    kumi_omp_st_typed(pstride, type, stride);
}

#define KUMI_OMP_STATIC_INIT(SUFFIX, T, TYPE)                                                  \
    void __kmpc_for_static_init_##SUFFIX(kumi_omp_ident_t *loc, int32_t gtid, int32_t sched,  \
                                         int32_t *plast, T *plower, T *pupper, T *pstride,     \
                                         T incr, T chunk)                                      \
    {                                                                                          \
        (void)loc;                                                                             \
        (void)gtid;                                                                            \
        kumi_omp_static_init("__kmpc_for_static_init_" #SUFFIX, TYPE, sched, plast, plower,    \
                             pupper, pstride, (kumi_omp_wide)incr, (kumi_omp_wide)chunk);      \
    }
KUMI_OMP_STATIC_INIT(4, int32_t, KUMI_OMP_T4)
KUMI_OMP_STATIC_INIT(8, int64_t, KUMI_OMP_T8)
#undef KUMI_OMP_STATIC_INIT
/* unsigned loops: incr and chunk stay signed */
void __kmpc_for_static_init_4u(kumi_omp_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,
                               uint32_t *plower, uint32_t *pupper, int32_t *pstride, int32_t incr,
                               int32_t chunk)
{
    (void)loc;
    (void)gtid;
    kumi_omp_static_init("__kmpc_for_static_init_4u", KUMI_OMP_T4U, sched, plast, plower, pupper,
                         pstride, incr, chunk);
}

void __kmpc_for_static_init_8u(kumi_omp_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,
                               uint64_t *plower, uint64_t *pupper, int64_t *pstride, int64_t incr,
                               int64_t chunk)
{
    (void)loc;
    (void)gtid;
    kumi_omp_static_init("__kmpc_for_static_init_8u", KUMI_OMP_T8U, sched, plast, plower, pupper,
                         pstride, incr, chunk);
}

void __kmpc_for_static_fini(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

/* ------------------------------------------------------- dispatch */
static uint64_t kumi_omp_fetch_add(uint64_t *w, uint64_t v)
{
    uint64_t old;
    if (kumi_atomic_fetch_add_u64(w, v, 0, &old) != KUMI_OK)
        kumi_global_exit(1);
    return old;
}

static uint64_t kumi_omp_swap(uint64_t *w, uint64_t v)
{
    uint64_t old;
    if (kumi_atomic_swap_u64(w, v, 0, &old) != KUMI_OK)
        kumi_global_exit(1);
    return old;
}

static void kumi_omp_dispatch_init(int type, int32_t sched, kumi_omp_wide lb, kumi_omp_wide ub,
                                   kumi_omp_wide st, kumi_omp_wide chunk)
{
    struct kumi_omp_disp *d = kumi_omp_disp_here();
    kumi_omp_thread_t *th = &kumi_omp_th;
    int                kind;

    sched &= ~KUMI_SCH_MODIFIERS;
    d->ordered = sched >= KUMI_SCH_ORD_FIRST && sched <= KUMI_SCH_ORD_LAST;
    if (d->ordered)
        sched -= KUMI_SCH_ORD_FIRST - KUMI_SCH_STATIC_CHUNKED;
    d->simd = 0;
    if (sched == KUMI_SCH_RUNTIME_SIMD) {
        /* schedule(simd:runtime): chunk is the simd width; every chunk but
         * the last is a multiple of it times the run-sched chunk */
        kumi_omp_wide simd = chunk < 1 ? 1 : chunk, rc = th->run_chunk;
        switch (th->run_sched & 0x7fffffff) {
        case 2: sched = KUMI_SCH_DYNAMIC; chunk = (rc < 1 ? 1 : rc) * simd; break;
        case 3: sched = KUMI_SCH_GUIDED_SIMD; chunk = (rc < 1 ? 1 : rc) * simd; break;
        default:
            if ((th->run_sched & 0x7fffffff) == 1 && rc > 0) {
                sched = KUMI_SCH_STATIC_CHUNKED;
                chunk = rc * simd;
            } else {
                sched = KUMI_SCH_STATIC_BALANCED_CHUNKED;
                chunk = simd;
            }
            break;
        }
    } else if (sched == KUMI_SCH_RUNTIME) {
        switch (th->run_sched & 0x7fffffff) {   /* without the monotonic modifier (a hint) */
        case 2: sched = KUMI_SCH_DYNAMIC; break;
        case 3: sched = KUMI_SCH_GUIDED; break;
        case 4: sched = KUMI_SCH_AUTO; break;
        default: sched = th->run_chunk > 0 ? KUMI_SCH_STATIC_CHUNKED : KUMI_SCH_STATIC; break;
        }
        chunk = th->run_chunk;
    }
    switch (sched) {
    case KUMI_SCH_STATIC_CHUNKED: kind = KUMI_SCH_STATIC_CHUNKED; break;
    case KUMI_SCH_STATIC_BALANCED_CHUNKED: kind = KUMI_SCH_STATIC_BALANCED_CHUNKED; break;
    case KUMI_SCH_DYNAMIC:
    case KUMI_SCH_STATIC_STEAL: kind = KUMI_SCH_DYNAMIC; break;
    case KUMI_SCH_GUIDED_SIMD: d->simd = 1; kind = KUMI_SCH_GUIDED; break;
    case KUMI_SCH_GUIDED:
    case KUMI_SCH_GUIDED_ITERATIVE:
    case KUMI_SCH_GUIDED_ANALYTICAL: kind = KUMI_SCH_GUIDED; break;
    default: kind = KUMI_SCH_STATIC; break;   /* static, auto, trapezoidal, greedy, balanced */
    }
    if (kind == KUMI_SCH_STATIC && chunk > 0 && sched != KUMI_SCH_STATIC && sched != KUMI_SCH_AUTO)
        kind = KUMI_SCH_STATIC_CHUNKED;
    d->kind        = kind;
    d->type        = type;
    d->lb          = lb;
    d->st          = st;
    d->tc          = kumi_omp_trip_count(lb, ub, st);
    d->chunk       = chunk < 1 ? 1 : (uint64_t)chunk;
    d->static_next = 0;
    d->local_next  = 0;
    d->ord_cur     = 0;
    d->ord_end     = 0;
    d->ord_done    = 0;
    d->finished    = 0;
    d->local       = th->nth <= 1;
    if (st == 0)
        kumi_omp_fatal("__kmpc_dispatch_init", "loop increment is 0");
    if (d->local)
        return;
    /* claim this loop's slot (wait while an earlier nowait loop still has it) */
    {
        uint32_t                   k   = th->loop_count++;
        uint64_t                   key = (th->region << 32) | (uint64_t)(k + 1);
        struct kumi_omp_loop_slot *s   = &kumi_omp_slots[k % KUMI_OMP_LOOP_SLOTS];

        for (;;) {
            uint64_t old;
            if (kumi_atomic_cswap_u64(&s->owner, 0, key, 0, &old) != KUMI_OK)
                kumi_global_exit(1);
            if (old == 0 || old == key)
                break;
            /* an earlier loop has it: wait until that changes (freed, or
             * already claimed for this loop by a faster thread), retry */
            kumi_omp_wait_remote_u64(&s->owner, 0, KUMI_CMP_NE, old);
        }
        d->key  = key;
        d->slot = s;
    }
}

/* this thread saw the end of the loop: the last one frees the slot */
static void kumi_omp_dispatch_finish(void)
{
    struct kumi_omp_disp *d = kumi_omp_disp_here();
    struct kumi_omp_loop_slot *s = d->slot;

    if (d->finished || d->local)
        return;
    d->finished = 1;
    if (kumi_omp_fetch_add(&s->done, 1) == (uint64_t)kumi_omp_th.nth - 1) {
        kumi_omp_swap(&s->next, 0);
        kumi_omp_swap(&s->done, 0);
        kumi_omp_swap(&s->ord, 0);
        kumi_omp_swap(&s->owner, 0);
    }
}

/* cancel for / cancellation point for: this thread leaves the innermost
 * dispatched loop (if it still runs one) without asking for its end */
void kumi_omp_loop_cancelled(void)
{
    struct kumi_omp_disp *d = kumi_omp_disp_here();
    if (d->slot != NULL || d->local)
        kumi_omp_dispatch_finish();
}

/* the next chunk [*a, *b] (normalized), 0 at the end */
static int kumi_omp_dispatch_chunk(uint64_t *a, uint64_t *b)
{
    struct kumi_omp_disp *d = kumi_omp_disp_here();
    const kumi_omp_thread_t *th = &kumi_omp_th;
    uint64_t                 tc = d->tc, c = d->chunk;
    uint64_t                 nth = (uint64_t)th->nth, tid = (uint64_t)th->tid;

    if (tc == 0)
        return 0;
    if (d->local) {
        if (d->local_next >= tc)
            return 0;
        *a = d->local_next;
        *b = d->kind == KUMI_SCH_STATIC || d->kind == KUMI_SCH_STATIC_BALANCED_CHUNKED
                 ? tc - 1
                 : (*a + c - 1 < tc - 1 ? *a + c - 1 : tc - 1);
        d->local_next = *b + 1;
        return 1;
    }
    switch (d->kind) {
    case KUMI_SCH_STATIC: {
        uint64_t small = tc / nth, extras = tc % nth;
        uint64_t mine  = small + (tid < extras);
        if (d->static_next++ > 0 || mine == 0)
            return 0;
        *a = tid * small + (tid < extras ? tid : extras);
        *b = *a + mine - 1;
        return 1;
    }
    case KUMI_SCH_STATIC_BALANCED_CHUNKED: {
        uint64_t span  = ((tc + nth - 1) / nth + c - 1) / c * c;
        uint64_t first = tid * span;
        if (d->static_next++ > 0 || first >= tc)
            return 0;
        *a = first;
        *b = tc - first < span ? tc - 1 : first + span - 1;
        return 1;
    }
    case KUMI_SCH_STATIC_CHUNKED: {
        uint64_t ci = tid + nth * d->static_next++;
        if (ci > (tc - 1) / c)
            return 0;
        *a = ci * c;
        *b = *a + c - 1 < tc - 1 ? *a + c - 1 : tc - 1;
        return 1;
    }
    case KUMI_SCH_DYNAMIC: {
        uint64_t old = kumi_omp_fetch_add(&d->slot->next, c);
        if (old >= tc)
            return 0;
        *a = old;
        *b = old + c - 1 < tc - 1 ? old + c - 1 : tc - 1;
        return 1;
    }
    default: {   /* guided: a share of what is left, at least the chunk */
        uint64_t old;
        if (kumi_atomic_fetch_u64(&d->slot->next, 0, &old) != KUMI_OK)
            kumi_global_exit(1);
        for (;;) {
            uint64_t left, take, now;
            if (old >= tc)
                return 0;
            left = tc - old;
            take = (left + 2 * nth - 1) / (2 * nth);
            if (d->simd)
                take = (take + c - 1) / c * c;
            if (take < c)
                take = c;
            if (take > left)
                take = left;
            if (kumi_atomic_cswap_u64(&d->slot->next, old, old + take, 0, &now) != KUMI_OK)
                kumi_global_exit(1);
            if (now == old) {
                *a = old;
                *b = old + take - 1;
                return 1;
            }
            old = now;
        }
    }
    }
}

static int kumi_omp_dispatch_next(int32_t *plast, void *plower, void *pupper, void *pstride)
{
    struct kumi_omp_disp *d = kumi_omp_disp_here();
    uint64_t a, b;
    int      type = d->type;

    if (!kumi_omp_dispatch_chunk(&a, &b)) {
        kumi_omp_dispatch_finish();
        return 0;
    }
    d->ord_cur  = a;
    d->ord_end  = b + 1;
    d->ord_done = 0;
    if (plast)
        kumi_omp_st32(plast, b == d->tc - 1);
    kumi_omp_st_typed(plower, type, d->lb + (kumi_omp_wide)a * d->st);
    kumi_omp_st_typed(pupper, type, d->lb + (kumi_omp_wide)b * d->st);
    if (pstride)
        kumi_omp_st_typed(pstride, type, d->st);
    return 1;
}

/* after each iteration of an ordered loop */
static void kumi_omp_dispatch_fini(void)
{
    struct kumi_omp_disp *d = kumi_omp_disp_here();
    if (!d->ordered)
        return;
    if (!d->ord_done && !d->local) {
        /* this iteration had no ordered region: let the next one in */
        kumi_omp_wait_remote_u64(&d->slot->ord, 0, KUMI_CMP_EQ, d->ord_cur);
        kumi_omp_swap(&d->slot->ord, d->ord_cur + 1);
    }
    d->ord_done = 0;
    d->ord_cur++;
}

void __kmpc_ordered(kumi_omp_ident_t *loc, int32_t gtid)
{
    struct kumi_omp_disp *d = kumi_omp_disp_here();
    (void)loc;
    (void)gtid;
    if (kumi_omp_th.nth <= 1 || d->local)
        return;
    if (!d->ordered)
        kumi_omp_fatal("__kmpc_ordered", "ordered region outside a loop with the ordered clause");
    kumi_omp_wait_remote_u64(&d->slot->ord, 0, KUMI_CMP_EQ, d->ord_cur);
}

void __kmpc_end_ordered(kumi_omp_ident_t *loc, int32_t gtid)
{
    struct kumi_omp_disp *d = kumi_omp_disp_here();
    (void)loc;
    (void)gtid;
    if (kumi_omp_th.nth <= 1 || d->local)
        return;
    kumi_omp_swap(&d->slot->ord, d->ord_cur + 1);
    d->ord_done = 1;
}

#define KUMI_OMP_DISPATCH(SUFFIX, T, ST, TYPE)                                                  \
    void __kmpc_dispatch_init_##SUFFIX(kumi_omp_ident_t *loc, int32_t gtid, int32_t sched,     \
                                       T lb, T ub, ST st, ST chunk)                            \
    {                                                                                          \
        (void)loc;                                                                             \
        (void)gtid;                                                                            \
        kumi_omp_dispatch_init(TYPE, sched, lb, ub, st, chunk);                                \
    }                                                                                          \
    int32_t __kmpc_dispatch_next_##SUFFIX(kumi_omp_ident_t *loc, int32_t gtid, int32_t *plast, \
                                          T *plower, T *pupper, ST *pstride)                   \
    {                                                                                          \
        (void)loc;                                                                             \
        (void)gtid;                                                                            \
        return kumi_omp_dispatch_next(plast, plower, pupper, pstride);                         \
    }                                                                                          \
    void __kmpc_dispatch_fini_##SUFFIX(kumi_omp_ident_t *loc, int32_t gtid)                   \
    {                                                                                          \
        (void)loc;                                                                             \
        (void)gtid;                                                                            \
        kumi_omp_dispatch_fini();                                                              \
    }
KUMI_OMP_DISPATCH(4, int32_t, int32_t, KUMI_OMP_T4)
KUMI_OMP_DISPATCH(4u, uint32_t, int32_t, KUMI_OMP_T4U)
KUMI_OMP_DISPATCH(8, int64_t, int64_t, KUMI_OMP_T8)
KUMI_OMP_DISPATCH(8u, uint64_t, int64_t, KUMI_OMP_T8U)
#undef KUMI_OMP_DISPATCH

/* ------------------------------------------------------- doacross
 * ordered(n) with depend(sink)/depend(source): one flag byte per
 * iteration in DSM memory the first thread of the team allocates (its
 * address handed over in a slot on PE 0, like the loop slots); post sets
 * the iteration's byte, wait reads it until set (each read after the
 * poster's write misses and fetches the new value). */
#define KUMI_OMP_DOACROSS_SLOTS 4

struct kumi_omp_doacross_slot {   /* PE 0's copy */
    uint64_t owner;   /* loop key, 0: free */
    uint64_t flags;   /* DSM address of the flags, 0 while being allocated */
    uint64_t done;    /* threads that called fini */
    uint64_t pad_[5];
};

struct kumi_omp_dim {   /* kmp_dim of the ABI */
    int64_t lo, up, st;
};

static struct kumi_omp_doacross_slot *kumi_omp_da_slots;
static struct {
    int                            ndims, local;
    struct kumi_omp_dim           *dims;
    uint64_t                      *count;   /* iterations per dimension */
    uint64_t                       total;
    uint8_t                       *flags;
    struct kumi_omp_doacross_slot *slot;
} kumi_omp_da;

void kumi_omp_doacross_slots_init(void)
{
    kumi_omp_da_slots = kumi_omp_sym_alloc(sizeof(*kumi_omp_da_slots) * KUMI_OMP_DOACROSS_SLOTS);
}

void __kmpc_doacross_init(kumi_omp_ident_t *loc, int32_t gtid, int32_t num_dims, const void *dims)
{
    kumi_omp_thread_t *th = &kumi_omp_th;
    uint64_t           total = 1;

    (void)loc;
    (void)gtid;
    if (num_dims < 1)
        kumi_omp_fatal("__kmpc_doacross_init", "%d dimensions", num_dims);
    free(kumi_omp_da.dims);
    free(kumi_omp_da.count);
    kumi_omp_da.dims  = malloc(sizeof(*kumi_omp_da.dims) * (size_t)num_dims);
    kumi_omp_da.count = malloc(sizeof(*kumi_omp_da.count) * (size_t)num_dims);
    if (kumi_omp_da.dims == NULL || kumi_omp_da.count == NULL)
        kumi_omp_fatal("__kmpc_doacross_init", "out of memory");
    for (int d = 0; d < num_dims; d++) {
        const char *p = (const char *)dims + (size_t)d * sizeof(struct kumi_omp_dim);
        kumi_omp_da.dims[d].lo = kumi_omp_ld64(p);
        kumi_omp_da.dims[d].up = kumi_omp_ld64(p + 8);
        kumi_omp_da.dims[d].st = kumi_omp_ld64(p + 16);
        if (kumi_omp_da.dims[d].st == 0)
            kumi_omp_da.dims[d].st = 1;
        kumi_omp_da.count[d] = kumi_omp_trip_count(kumi_omp_da.dims[d].lo, kumi_omp_da.dims[d].up,
                                                   kumi_omp_da.dims[d].st);
        total *= kumi_omp_da.count[d];
    }
    kumi_omp_da.ndims = num_dims;
    kumi_omp_da.total = total;
    kumi_omp_da.local = th->nth <= 1;
    if (kumi_omp_da.local)
        return;
    {
        /* the team's loops are counted alike on every member */
        uint32_t                       k   = th->loop_count++;
        uint64_t                       key = (th->region << 32) | (uint64_t)(k + 1);
        struct kumi_omp_doacross_slot *s   = &kumi_omp_da_slots[k % KUMI_OMP_DOACROSS_SLOTS];
        uint64_t                       old, f;

        for (;;) {
            if (kumi_atomic_cswap_u64(&s->owner, 0, key, 0, &old) != KUMI_OK)
                kumi_global_exit(1);
            if (old == 0 || old == key)
                break;
            /* an earlier loop has it: wait until that changes (freed, or
             * already claimed for this loop by a faster thread), retry */
            kumi_omp_wait_remote_u64(&s->owner, 0, KUMI_CMP_NE, old);
        }
        if (old == 0) {   /* first here: allocate the flags */
            void *fl = kumi_dsm_calloc(total ? total : 1, 1);
            if (fl == NULL)
                kumi_omp_fatal("__kmpc_doacross_init", "no DSM memory for %llu iteration flags",
                               (unsigned long long)total);
            if (kumi_atomic_swap_u64(&s->flags, (uint64_t)(uintptr_t)fl, 0, &f) != KUMI_OK)
                kumi_global_exit(1);
        }
        kumi_omp_wait_remote_u64(&s->flags, 0, KUMI_CMP_NE, 0);
        if (kumi_atomic_fetch_u64(&s->flags, 0, &f) != KUMI_OK)
            kumi_global_exit(1);
        kumi_omp_da.flags = (uint8_t *)(uintptr_t)f;
        kumi_omp_da.slot  = s;
    }
}

/* the linear index of the iteration vec, or -1 when it is outside the loop */
static int64_t kumi_omp_doacross_index(const void *vec)
{
    uint64_t lin = 0;

    for (int d = 0; d < kumi_omp_da.ndims; d++) {
        const struct kumi_omp_dim *dim = &kumi_omp_da.dims[d];
        int64_t                    v   = kumi_omp_ld64((const char *)vec + 8 * (size_t)d);
        kumi_omp_wide              off = (kumi_omp_wide)v - dim->lo;
        kumi_omp_wide              i;

        if (dim->st > 0 ? off < 0 : off > 0)
            return -1;
        if (off % dim->st != 0)
            return -1;
        i = off / dim->st;
        if ((uint64_t)i >= kumi_omp_da.count[d])
            return -1;
        lin = lin * kumi_omp_da.count[d] + (uint64_t)i;
    }
    return (int64_t)lin;
}

void __kmpc_doacross_wait(kumi_omp_ident_t *loc, int32_t gtid, const int64_t *vec)
{
    int64_t i;

    (void)loc;
    (void)gtid;
    if (kumi_omp_da.local || (i = kumi_omp_doacross_index(vec)) < 0)
        return;   /* alone, or a sink outside the iteration space: nothing to wait for */
    for (unsigned spins = 0; kumi_dsm_ld8(kumi_omp_da.flags + i) == 0; spins++) {
        kumi_dsm_poll();
        if (!kumi_omp_task_idle() && spins > 64)
            sched_yield();
    }
}

void __kmpc_doacross_post(kumi_omp_ident_t *loc, int32_t gtid, const int64_t *vec)
{
    int64_t i;

    (void)loc;
    (void)gtid;
    if (kumi_omp_da.local || (i = kumi_omp_doacross_index(vec)) < 0)
        return;
    kumi_dsm_st8(kumi_omp_da.flags + i, 1);
}

void __kmpc_doacross_fini(kumi_omp_ident_t *loc, int32_t gtid)
{
    struct kumi_omp_doacross_slot *s = kumi_omp_da.slot;
    uint64_t                       old;

    (void)loc;
    (void)gtid;
    if (kumi_omp_da.local || s == NULL)
        return;
    kumi_omp_da.slot = NULL;
    if (kumi_atomic_fetch_add_u64(&s->done, 1, 0, &old) != KUMI_OK)
        kumi_global_exit(1);
    if (old == (uint64_t)kumi_omp_th.nth - 1) {   /* the last: free the flags and the slot */
        kumi_dsm_free(kumi_omp_da.flags);
        if (kumi_atomic_swap_u64(&s->flags, 0, 0, &old) != KUMI_OK
            || kumi_atomic_swap_u64(&s->done, 0, 0, &old) != KUMI_OK
            || kumi_atomic_swap_u64(&s->owner, 0, 0, &old) != KUMI_OK)
            kumi_global_exit(1);
    }
}
