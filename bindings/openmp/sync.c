/*
 * sync.c -- single, master, critical, flush, reductions, copyprivate and
 * the omp lock API.
 *
 * Shared words live in the runtime's symmetric area; PE 0's copy is the
 * one used (kumi remote atomics) unless said otherwise:
 *   single      the key (region << 32 | n) of the last single claimed:
 *               a thread claims its n-th single by raising it;
 *   critical    a table of names (the address of clang's
 *               .gomp_critical_user_* word, the same on every PE) with a
 *               ticket lock each; the table index is cached in the word;
 *   omp locks   a pool of ticket locks (+ owner and depth for nest
 *               locks); an omp_lock_t holds its pool index + 1;
 *   reductions  a tree over the team (radix KUMI_OMP_RED_RADIX): each
 *               child puts the address of its reduce list (DSM memory:
 *               the translator keeps it on the DSM stack) into its
 *               parent's slot, the parent calls reduce_func(own, child's)
 *               and acknowledges; thread 0 ends up with everything and
 *               gets 1 (the atomic method, 2, is never chosen);
 *   copyprivate the single thread puts the address of its list into
 *               every member's word; they copy with cpy_func; a barrier.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "omp.h"
#include "omp_int.h"
#include "rt.h"   /* kumi_rt.wait_policy, kumi_rt.cfg.omp_flush_spin */

#define KUMI_OMP_CRIT_SLOTS  256
#define KUMI_OMP_LOCKS       32768   /* per PE: a lock lives on the PE that initialized it */
#define KUMI_OMP_RED_RADIX   4

struct kumi_omp_ticket {
    uint32_t next, serving;   /* the lock               */
    uint32_t owner, depth;    /* nest locks: pe + 1, depth */
};

#define KUMI_OMP_RED_INLINE 256   /* reduce lists up to this size travel by value */

struct kumi_omp_red {   /* per PE (its own copy) */
    uint64_t child_list[KUMI_OMP_RED_RADIX];   /* the address of a child's list, or */
    uint64_t child_copy[KUMI_OMP_RED_RADIX][KUMI_OMP_RED_INLINE / 8];   /* its contents */
    uint64_t child_seq[KUMI_OMP_RED_RADIX];
    uint64_t ack;
    uint64_t cp_list, cp_seq;
};

static uint64_t               *kumi_omp_single_word;
static uint64_t               *kumi_omp_crit_keys;
static struct kumi_omp_ticket *kumi_omp_crit_locks;
static struct kumi_omp_ticket *kumi_omp_locks;
static uint64_t               *kumi_omp_lock_bits;
static struct kumi_omp_red    *kumi_omp_red;

void kumi_omp_sync_init(void)
{
    kumi_omp_single_word = kumi_omp_sym_alloc(sizeof(uint64_t));
    kumi_omp_crit_keys   = kumi_omp_sym_alloc(sizeof(uint64_t) * KUMI_OMP_CRIT_SLOTS);
    kumi_omp_crit_locks  = kumi_omp_sym_alloc(sizeof(struct kumi_omp_ticket) * KUMI_OMP_CRIT_SLOTS);
    kumi_omp_locks       = kumi_omp_sym_alloc(sizeof(struct kumi_omp_ticket) * KUMI_OMP_LOCKS);
    kumi_omp_lock_bits   = kumi_omp_sym_alloc(KUMI_OMP_LOCKS / 8);
    kumi_omp_red         = kumi_omp_sym_alloc(sizeof(struct kumi_omp_red));
}

static void kumi_omp_check(int rc)
{
    if (rc != KUMI_OK)
        kumi_global_exit(1);   /* the job is ending (a peer failed or exited) */
}

/* ---------------------------------------------------- ticket locks */
/* A ticket lock in the symmetric area of PE pe. */
static void kumi_omp_ticket_lock(struct kumi_omp_ticket *t, int pe)
{
    uint32_t mine;

    kumi_omp_check(kumi_atomic_fetch_add_u32(&t->next, 1, pe, &mine));
    kumi_omp_wait_remote_u32(&t->serving, pe, KUMI_CMP_EQ, mine);
}

static int kumi_omp_ticket_try(struct kumi_omp_ticket *t, int pe)
{
    uint32_t s, old;

    kumi_omp_check(kumi_atomic_fetch_u32(&t->serving, pe, &s));
    kumi_omp_check(kumi_atomic_cswap_u32(&t->next, s, s + 1, pe, &old));
    return old == s;
}

/* A failed omp_test_lock: usually in a loop `while (!omp_test_lock(l))`.
 * Serve the DSM (the holder may need this PE's blocks to finish), and
 * where the PEs outnumber the cores (KUMI_WAIT not spin) give the core
 * away: LLVM's omp_test_nest_lock test, 4 PEs on 2 cores over tcp, went
 * over 120 s while the spinners kept the holder off its core. */
static void kumi_omp_lock_busy(void)
{
    kumi_dsm_poll();
    if (kumi_rt.wait_policy != KUMI_WAIT_SPIN && kumi_rt.size > 1)
        sched_yield();
}

static void kumi_omp_ticket_unlock(struct kumi_omp_ticket *t, int pe)
{
    uint32_t old;

    /* fetching: complete (and ordered after the section) on return */
    kumi_omp_check(kumi_atomic_fetch_add_u32(&t->serving, 1, pe, &old));
}

/* ---------------------------------------------------- single/master */
int32_t __kmpc_single(kumi_omp_ident_t *loc, int32_t gtid)
{
    kumi_omp_thread_t *th = &kumi_omp_th;
    uint64_t           key, old;

    (void)loc;
    (void)gtid;
    if (th->nth <= 1)
        return 1;
    key = (th->region << 32) | (uint64_t)++th->single_count;
    kumi_omp_check(kumi_atomic_fetch_u64(kumi_omp_single_word, 0, &old));
    while (old < key) {
        uint64_t seen;
        kumi_omp_check(kumi_atomic_cswap_u64(kumi_omp_single_word, old, key, 0, &seen));
        if (seen == old)
            return 1;
        old = seen;
    }
    return 0;
}

void __kmpc_end_single(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

int32_t __kmpc_master(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
    return kumi_omp_th.tid == 0;
}

void __kmpc_end_master(kumi_omp_ident_t *loc, int32_t gtid)
{
    (void)loc;
    (void)gtid;
}

/* A flag loop `while (flag[t - 1] <= j) { flush }` (NPB LU's pipeline)
 * waits for a store of another PE: its copy of the flag stays valid, the
 * loop runs only flushes, until that store's invalidation arrives. Where
 * the PEs outnumber the cores (KUMI_WAIT resolved to block, or yield) such
 * a spin keeps the core from the PE that will set the flag for a whole
 * time slice. So there, after KUMI_OMP_FLUSH_IDLE flushes in a row with no
 * change of any DSM state byte between them (kumi_dsm_g.epoch) and at most
 * KUMI_OMP_FLUSH_TIGHT loop back-edges (kumi_dsm_g.tick: a loop that
 * computes between flushes is not waiting), every further such flush gives
 * the core away: sched_yield (KUMI_WAIT=yield), else a nap growing from 1
 * to 64 us. While the PEs fit the cores (KUMI_WAIT spin) flushes only spin:
 * a yield there hands the core to other processes (measured once on a
 * loaded machine: a 2-PE pipeline took 18 ms instead of 1.2 ms). A job of
 * one PE never gives it away. KUMI_OMP_FLUSH_SPIN=1: never (the former
 * behaviour, for comparisons). */
#define KUMI_OMP_FLUSH_IDLE  64u
#define KUMI_OMP_FLUSH_TIGHT 4u
static struct {
    unsigned epoch, tick, idle;
} kumi_omp_flush_spin;

void __kmpc_flush(kumi_omp_ident_t *loc)
{
    (void)loc;
    /* DSM accesses are sequentially consistent; order the runtime's own */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    /* a flag loop `while (!done) { flush }` must not starve the requests
     * (stdio forwarded to PE 0, DSM) of the thread that will set it */
    kumi_dsm_poll();
    if (kumi_omp_task_idle()) {
        kumi_omp_flush_spin.idle = 0;
        return;
    }
    /* one PE: nothing another PE does can end the loop, and its code runs
     * the unchecked copies, which count no back-edges (every flush would
     * look idle: LU at 1 PE napped after each row) */
    if (kumi_rt.cfg.omp_flush_spin || kumi_rt.wait_policy == KUMI_WAIT_SPIN || kumi_rt.size <= 1)
        return;
    unsigned e = __atomic_load_n(&kumi_dsm_g.epoch, __ATOMIC_RELAXED), t = kumi_dsm_g.tick;
    if (e != kumi_omp_flush_spin.epoch || t - kumi_omp_flush_spin.tick > KUMI_OMP_FLUSH_TIGHT) {
        kumi_omp_flush_spin.idle = 0;
    } else if (++kumi_omp_flush_spin.idle >= KUMI_OMP_FLUSH_IDLE) {
        unsigned over = kumi_omp_flush_spin.idle / KUMI_OMP_FLUSH_IDLE - 1;
        if (kumi_rt.wait_policy == KUMI_WAIT_YIELD) {
            sched_yield();
        } else {
            struct timespec ts = { 0, 1000L << (over < 6 ? over : 6) };
            nanosleep(&ts, NULL);
        }
    }
    kumi_omp_flush_spin.epoch = e;
    kumi_omp_flush_spin.tick  = t;
}

/* --------------------------------------------------------- critical */
static struct kumi_omp_ticket *kumi_omp_crit_lookup(kumi_omp_critical_name *lck)
{
    int32_t  cached = kumi_omp_ld32(lck);
    uint64_t key    = (uint64_t)(uintptr_t)lck;
    unsigned h;

    if (cached > 0 && cached <= KUMI_OMP_CRIT_SLOTS)
        return &kumi_omp_crit_locks[cached - 1];
    h = (unsigned)((key >> 3) * 0x9e3779b97f4a7c15ull >> 56) % KUMI_OMP_CRIT_SLOTS;
    for (unsigned i = 0; i < KUMI_OMP_CRIT_SLOTS; i++, h = (h + 1) % KUMI_OMP_CRIT_SLOTS) {
        uint64_t old;
        kumi_omp_check(kumi_atomic_cswap_u64(&kumi_omp_crit_keys[h], 0, key, 0, &old));
        if (old == 0 || old == key) {
            kumi_omp_st32(lck, (int32_t)h + 1);
            return &kumi_omp_crit_locks[h];
        }
    }
    kumi_omp_fatal("__kmpc_critical", "more than %d critical names", KUMI_OMP_CRIT_SLOTS);
}

void __kmpc_critical(kumi_omp_ident_t *loc, int32_t gtid, kumi_omp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    kumi_omp_ensure_init();
    kumi_omp_ticket_lock(kumi_omp_crit_lookup(lck), 0);
}

void __kmpc_critical_with_hint(kumi_omp_ident_t *loc, int32_t gtid, kumi_omp_critical_name *lck,
                               uint32_t hint)
{
    (void)hint;   /* every critical is a fair ticket lock */
    __kmpc_critical(loc, gtid, lck);
}

void __kmpc_end_critical(kumi_omp_ident_t *loc, int32_t gtid, kumi_omp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    kumi_omp_ticket_unlock(kumi_omp_crit_lookup(lck), 0);
}

/* -------------------------------------------------------- reductions */
typedef void (*kumi_omp_reduce_fn)(void *lhs, void *rhs);

/* Combines the subtree of this thread into reduce_data; 1 on thread 0.
 * reduce_data is the list of pointers to this thread's private copies
 * (size bytes); a list that fits goes to the parent by value (one DSM
 * miss fewer for it: only the private values are then fetched). */
static int kumi_omp_reduce_tree(void *reduce_data, size_t size, kumi_omp_reduce_fn fn, int ack)
{
    kumi_omp_thread_t   *th  = &kumi_omp_th;
    struct kumi_omp_red *r   = kumi_omp_red;
    int                  tid = th->tid, nth = th->nth;
    int                  inline_list = size > 0 && size <= KUMI_OMP_RED_INLINE;
    uint64_t             seq;

    if (nth <= 1)
        return 1;
    seq = (th->region << 32) | (uint64_t)++th->reduce_count;
    for (int i = 0; i < KUMI_OMP_RED_RADIX; i++) {
        int child = tid * KUMI_OMP_RED_RADIX + 1 + i;
        if (child >= nth)
            break;
        kumi_omp_check(kumi_wait_until_u64(&r->child_seq[i], KUMI_CMP_GE, seq));
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        fn(reduce_data, inline_list ? (void *)r->child_copy[i]
                                    : (void *)(uintptr_t)r->child_list[i]);
        if (ack)
            kumi_omp_check(kumi_atomic_set_u64(&r->ack, seq, child));
    }
    if (tid == 0)
        return 1;
    {
        int      parent = (tid - 1) / KUMI_OMP_RED_RADIX, slot = (tid - 1) % KUMI_OMP_RED_RADIX;
        uint64_t list   = (uint64_t)(uintptr_t)reduce_data;
        if (inline_list) {
            uint64_t copy[KUMI_OMP_RED_INLINE / 8];
            if (kumi_dsm_read(copy, reduce_data, size) != KUMI_OK)
                kumi_omp_fatal("__kmpc_reduce", "cannot read the reduce list at %p", reduce_data);
            kumi_omp_check(kumi_put_signal(r->child_copy[slot], copy, size, &r->child_seq[slot],
                                           seq, parent));
        } else {
            kumi_omp_check(kumi_put_signal(&r->child_list[slot], &list, sizeof(list),
                                           &r->child_seq[slot], seq, parent));
        }
    }
    if (ack)   /* the parent reads our values: keep them alive until it is done */
        kumi_omp_check(kumi_wait_until_u64(&r->ack, KUMI_CMP_GE, seq));
    return 0;
}

int32_t __kmpc_reduce_nowait(kumi_omp_ident_t *loc, int32_t gtid, int32_t num_vars,
                             size_t reduce_size, void *reduce_data, kumi_omp_reduce_fn reduce_func,
                             kumi_omp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    (void)num_vars;
    (void)lck;
    return kumi_omp_reduce_tree(reduce_data, reduce_size, reduce_func, 1);
}

void __kmpc_end_reduce_nowait(kumi_omp_ident_t *loc, int32_t gtid, kumi_omp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    (void)lck;
}

/* blocking: the others wait (in the team barrier) until thread 0 has
 * stored the result and calls __kmpc_end_reduce */
int32_t __kmpc_reduce(kumi_omp_ident_t *loc, int32_t gtid, int32_t num_vars, size_t reduce_size,
                      void *reduce_data, kumi_omp_reduce_fn reduce_func,
                      kumi_omp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    (void)num_vars;
    (void)lck;
    if (kumi_omp_reduce_tree(reduce_data, reduce_size, reduce_func, 0))
        return 1;
    kumi_omp_barrier_plain();
    return 0;
}

void __kmpc_end_reduce(kumi_omp_ident_t *loc, int32_t gtid, kumi_omp_critical_name *lck)
{
    (void)loc;
    (void)gtid;
    (void)lck;
    kumi_omp_barrier_plain();
}

/* ------------------------------------------------------ copyprivate */
void __kmpc_copyprivate(kumi_omp_ident_t *loc, int32_t gtid, size_t cpy_size, void *cpy_data,
                        void (*cpy_func)(void *dst, void *src), int32_t didit)
{
    kumi_omp_thread_t   *th = &kumi_omp_th;
    struct kumi_omp_red *r  = kumi_omp_red;
    uint64_t             seq;

    (void)loc;
    (void)gtid;
    (void)cpy_size;
    if (th->nth <= 1)
        return;
    seq = (th->region << 32) | (uint64_t)++th->cp_count;
    if (didit) {
        uint64_t list = (uint64_t)(uintptr_t)cpy_data;
        for (int pe = 0; pe < th->nth; pe++)
            if (pe != th->tid)
                kumi_omp_check(
                    kumi_put_signal(&r->cp_list, &list, sizeof(list), &r->cp_seq, seq, pe));
    } else {
        kumi_omp_check(kumi_wait_until_u64(&r->cp_seq, KUMI_CMP_GE, seq));
        cpy_func(cpy_data, (void *)(uintptr_t)__atomic_load_n(&r->cp_list, __ATOMIC_ACQUIRE));
    }
    kumi_omp_barrier();   /* the single thread's list lives until everyone copied */
}

/* ------------------------------------------------------- omp locks
 * A lock is a ticket in the symmetric area of the PE whose thread
 * initialized it (KUMI_OMP_LOCKS per PE, found in that PE's bitmap); the
 * omp_lock_t holds (pe << 32) | (index + 1). Any thread may use or
 * destroy it. */
struct kumi_omp_lockref {
    struct kumi_omp_ticket *t;
    int                     pe, index;
};

static int kumi_omp_lock_alloc(void)
{
    static int hint;   /* the word where the last search succeeded */
    const int  words = KUMI_OMP_LOCKS / 64, me = kumi_omp_th.pe;

    for (int k = 0; k < words; k++) {
        int      w = (hint + k) % words;
        uint64_t cur;
        kumi_omp_check(kumi_atomic_fetch_u64(&kumi_omp_lock_bits[w], me, &cur));
        while (cur != ~0ull) {
            int      b = __builtin_ctzll(~cur);
            uint64_t seen;
            kumi_omp_check(
                kumi_atomic_cswap_u64(&kumi_omp_lock_bits[w], cur, cur | (1ull << b), me, &seen));
            if (seen == cur) {
                hint = w;
                return w * 64 + b;
            }
            cur = seen;
        }
    }
    kumi_omp_fatal("omp_init_lock", "more than %d omp locks initialized by thread %d at once "
                   "(each thread holds up to %d)", KUMI_OMP_LOCKS, me, KUMI_OMP_LOCKS);
}

static void kumi_omp_lock_init(void *lock, const char *call)
{
    int                     i;
    struct kumi_omp_ticket *t;
    uint32_t                old;

    if (lock == NULL)
        kumi_omp_fatal(call, "NULL lock");
    if (kumi_omp_ensure_init() != KUMI_OK)
        kumi_omp_fatal(call, "kumi could not start");
    i = kumi_omp_lock_alloc();
    t = &kumi_omp_locks[i];
    /* the ticket's next and serving only ever grow: equal, it is free */
    kumi_omp_check(kumi_atomic_swap_u32(&t->owner, 0, kumi_omp_th.pe, &old));
    kumi_omp_check(kumi_atomic_swap_u32(&t->depth, 0, kumi_omp_th.pe, &old));
    kumi_omp_st64(lock, (int64_t)((uint64_t)kumi_omp_th.pe << 32 | (uint64_t)(i + 1)));
}

static struct kumi_omp_lockref kumi_omp_lock_get(void *lock, const char *call)
{
    uint64_t v;
    int64_t  i;
    int      pe;

    if (lock == NULL)
        kumi_omp_fatal(call, "NULL lock");
    v  = (uint64_t)kumi_omp_ld64(lock);
    i  = (int64_t)(v & 0xffffffffu);
    pe = (int)(v >> 32);
    if (i < 1 || i > KUMI_OMP_LOCKS || pe >= kumi_omp_th.npes)
        kumi_omp_fatal(call, "lock %p is not initialized (omp_init_lock)", lock);
    return (struct kumi_omp_lockref){ &kumi_omp_locks[i - 1], pe, (int)i - 1 };
}

static void kumi_omp_lock_destroy(void *lock, const char *call)
{
    struct kumi_omp_lockref r = kumi_omp_lock_get(lock, call);
    uint64_t                old;

    kumi_omp_check(kumi_atomic_fetch_and_u64(&kumi_omp_lock_bits[r.index / 64],
                                             ~(1ull << (r.index % 64)), r.pe, &old));
    kumi_omp_st64(lock, 0);
}

void omp_init_lock(omp_lock_t *lock)
{
    kumi_omp_lock_init(lock, "omp_init_lock");
}

void omp_init_lock_with_hint(omp_lock_t *lock, omp_lock_hint_t hint)
{
    (void)hint;
    kumi_omp_lock_init(lock, "omp_init_lock_with_hint");
}

void omp_destroy_lock(omp_lock_t *lock)
{
    kumi_omp_lock_destroy(lock, "omp_destroy_lock");
}

void omp_set_lock(omp_lock_t *lock)
{
    struct kumi_omp_lockref r = kumi_omp_lock_get(lock, "omp_set_lock");
    kumi_omp_ticket_lock(r.t, r.pe);
}

void omp_unset_lock(omp_lock_t *lock)
{
    struct kumi_omp_lockref r = kumi_omp_lock_get(lock, "omp_unset_lock");
    kumi_omp_ticket_unlock(r.t, r.pe);
}

int omp_test_lock(omp_lock_t *lock)
{
    struct kumi_omp_lockref r = kumi_omp_lock_get(lock, "omp_test_lock");
    if (kumi_omp_ticket_try(r.t, r.pe))
        return 1;
    kumi_omp_lock_busy();
    return 0;
}

void omp_init_nest_lock(omp_nest_lock_t *lock)
{
    kumi_omp_lock_init(lock, "omp_init_nest_lock");
}

void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_lock_hint_t hint)
{
    (void)hint;
    kumi_omp_lock_init(lock, "omp_init_nest_lock_with_hint");
}

void omp_destroy_nest_lock(omp_nest_lock_t *lock)
{
    kumi_omp_lock_destroy(lock, "omp_destroy_nest_lock");
}

static uint32_t kumi_omp_fetch32(uint32_t *w, int pe)
{
    uint32_t v;
    kumi_omp_check(kumi_atomic_fetch_u32(w, pe, &v));
    return v;
}

static uint32_t kumi_omp_add32(uint32_t *w, uint32_t v, int pe)
{
    uint32_t old;
    kumi_omp_check(kumi_atomic_fetch_add_u32(w, v, pe, &old));
    return old + v;
}

static void kumi_omp_set32(uint32_t *w, uint32_t v, int pe)
{
    uint32_t old;
    kumi_omp_check(kumi_atomic_swap_u32(w, v, pe, &old));
}

void omp_set_nest_lock(omp_nest_lock_t *lock)
{
    struct kumi_omp_lockref r  = kumi_omp_lock_get(lock, "omp_set_nest_lock");
    uint32_t                me = (uint32_t)kumi_omp_th.pe + 1;

    if (kumi_omp_fetch32(&r.t->owner, r.pe) == me) {
        kumi_omp_add32(&r.t->depth, 1, r.pe);
        return;
    }
    kumi_omp_ticket_lock(r.t, r.pe);
    kumi_omp_set32(&r.t->owner, me, r.pe);
    kumi_omp_set32(&r.t->depth, 1, r.pe);
}

void omp_unset_nest_lock(omp_nest_lock_t *lock)
{
    struct kumi_omp_lockref r  = kumi_omp_lock_get(lock, "omp_unset_nest_lock");
    uint32_t                me = (uint32_t)kumi_omp_th.pe + 1;

    if (kumi_omp_fetch32(&r.t->owner, r.pe) != me)
        kumi_omp_fatal("omp_unset_nest_lock", "lock %p is not held by this thread", (void *)lock);
    if (kumi_omp_add32(&r.t->depth, (uint32_t)-1, r.pe) == 0) {
        kumi_omp_set32(&r.t->owner, 0, r.pe);
        kumi_omp_ticket_unlock(r.t, r.pe);
    }
}

int omp_test_nest_lock(omp_nest_lock_t *lock)
{
    struct kumi_omp_lockref r  = kumi_omp_lock_get(lock, "omp_test_nest_lock");
    uint32_t                me = (uint32_t)kumi_omp_th.pe + 1;

    if (kumi_omp_fetch32(&r.t->owner, r.pe) == me)
        return (int)kumi_omp_add32(&r.t->depth, 1, r.pe);
    if (!kumi_omp_ticket_try(r.t, r.pe)) {
        kumi_omp_lock_busy();
        return 0;
    }
    kumi_omp_set32(&r.t->owner, me, r.pe);
    kumi_omp_set32(&r.t->depth, 1, r.pe);
    return 1;
}
