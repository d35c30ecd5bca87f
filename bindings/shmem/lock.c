/*
 * lock.c -- shmem_set_lock, shmem_clear_lock, shmem_test_lock: a fair
 * queue lock between PEs (Mellor-Crummey and Scott's list lock) kept in
 * the user's symmetric long, which is zero on every PE before first use.
 *
 * The long is two 32-bit words on every PE:
 *   tail (word 0), used on PE 0 only: 1 + the last PE in the queue, 0 when
 *       the lock is free;
 *   node (word 1), on each PE: that PE's place in the queue: 1 + its
 *       successor (0: none yet) and KUMI_LOCK_WAIT while its predecessor
 *       still holds the lock.
 * set: reset my node to WAIT, swap myself into the tail; if there was a
 * predecessor, write my number into its node and wait on my own node
 * (local memory: no polling of another PE, and on tcp no traffic) until
 * it clears WAIT. clear: complete my puts (quiet); if I have no successor
 * and the tail is still me, compare-and-swap it to 0; otherwise wait for
 * my successor to link in and clear its WAIT. Waiters are served in the
 * order their swaps reached PE 0: first come, first served.
 *
 * Within a PE the lock is held by the PE: a table of the locks this PE
 * uses (struct kumi_shmem_lock_mine) catches a second set_lock of a lock
 * it holds and a clear_lock of one it does not (each would corrupt the
 * queue or hang), and under SHMEM_THREAD_MULTIPLE gives the threads of the
 * PE that use the same lock first-come-first-served turns before the one
 * whose turn it is joins the queue between PEs.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "shmem_impl.h"

_Static_assert(sizeof(long) == 8, "the lock is two 32-bit words in a long");

enum { KUMI_LOCK_TAIL = 0, KUMI_LOCK_NODE = 1 };   /* 32-bit word of the long  */
#define KUMI_LOCK_HOME 0                           /* the PE whose tail counts */
#define KUMI_LOCK_WAIT 0x80000000u                 /* node: not granted yet    */
#define KUMI_LOCK_NEXT 0x7fffffffu                 /* node: 1 + successor PE   */

/* -------------------------------------------------- the queue between PEs */

/* The lock's segment and offset (the same on every PE), after the checks. */
static int kumi_shmem_lock_find(const char *call, long *lock, struct kumi_shmem_target *t)
{
    if (kumi_shmem_check_init(call) != 0)
        return -1;
    if (KUMI_SHMEM_UNLIKELY(lock == NULL || ((uintptr_t)lock & 7) != 0))
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "lock %p is NULL or not 8-byte "
                                "aligned", (void *)lock);
    t->pe = KUMI_LOCK_HOME;
    return kumi_shmem_sym(call, lock, sizeof(long), &t->seg, &t->off);
}

/* op on word of pe's copy of the lock; *old for the fetching ones */
static int kumi_shmem_lock_amo(const char *call, const struct kumi_shmem_target *t, int pe,
                               int word, enum kumi_amo op, uint32_t operand, uint32_t compare,
                               uint32_t *old)
{
    uint64_t o = 0;
    int      rc = kumi_tp_atomic(&kumi_rt.tp, pe, t->seg, t->off + 4 * (size_t)word,
                                 op, 4, operand, compare,
                                 kumi_tp_amo_fetches(op) ? &o : NULL);

    if (KUMI_SHMEM_UNLIKELY(rc != KUMI_OK))
        return kumi_shmem_status(call, rc);
    if (old != NULL)
        *old = (uint32_t)o;
    return 0;
}

static int kumi_shmem_lock_granted(void *node)
{
    return (__atomic_load_n((uint32_t *)node, __ATOMIC_ACQUIRE) & KUMI_LOCK_WAIT) == 0;
}

static int kumi_shmem_lock_linked(void *node)
{
    return (__atomic_load_n((uint32_t *)node, __ATOMIC_ACQUIRE) & KUMI_LOCK_NEXT) != 0;
}

/* Joins the queue and waits for the lock. */
static int kumi_shmem_queue_acquire(const char *call, long *lock,
                                    const struct kumi_shmem_target *t)
{
    uint32_t *node = (uint32_t *)lock + KUMI_LOCK_NODE;
    uint32_t  me = (uint32_t)kumi_rt.rank + 1, prev = 0;
    int       rc;

    /* before the swap: once I am the tail, a successor may link in */
    __atomic_store_n(node, KUMI_LOCK_WAIT, __ATOMIC_SEQ_CST);
    rc = kumi_shmem_lock_amo(call, t, KUMI_LOCK_HOME, KUMI_LOCK_TAIL, KUMI_AMO_SWAP, me, 0,
                             &prev);
    if (rc != 0 || prev == 0)
        return rc;
    if (KUMI_SHMEM_UNLIKELY(prev > (uint32_t)kumi_rt.size))
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "lock %p holds %#x, not a lock made "
                                "by shmem_set_lock (not zero before its first use?)",
                                (void *)lock, prev);
    /* my predecessor's node is written only by it, its predecessor (WAIT)
     * and me: an atomic or, which needs no reply */
    rc = kumi_shmem_lock_amo(call, t, (int)prev - 1, KUMI_LOCK_NODE, KUMI_AMO_OR, me, 0,
                             NULL);
    if (rc != 0)
        return rc;
    return kumi_rt_wait_pred(call, kumi_shmem_lock_granted, node) == KUMI_OK ? 0 : -1;
}

/* Takes the lock only if it is free. 0 taken, 1 set, negative error. */
static int kumi_shmem_queue_try(const char *call, long *lock,
                                const struct kumi_shmem_target *t)
{
    uint32_t *node = (uint32_t *)lock + KUMI_LOCK_NODE;
    uint32_t  me = (uint32_t)kumi_rt.rank + 1, old = 0;

    __atomic_store_n(node, KUMI_LOCK_WAIT, __ATOMIC_SEQ_CST);
    if (kumi_shmem_lock_amo(call, t, KUMI_LOCK_HOME, KUMI_LOCK_TAIL, KUMI_AMO_CSWAP, me, 0,
                            &old) != 0)
        return -1;
    return old == 0 ? 0 : 1;
}

/* Completes my puts, then hands the lock on (or frees it). */
static int kumi_shmem_queue_release(const char *call, long *lock,
                                    const struct kumi_shmem_target *t)
{
    uint32_t *node = (uint32_t *)lock + KUMI_LOCK_NODE;
    uint32_t  me = (uint32_t)kumi_rt.rank + 1, next, old = 0;
    int       rc = kumi_tp_quiet(&kumi_rt.tp);

    if (rc != KUMI_OK)
        return kumi_shmem_status(call, rc);
    next = __atomic_load_n(node, __ATOMIC_ACQUIRE) & KUMI_LOCK_NEXT;
    if (next == 0) {
        rc = kumi_shmem_lock_amo(call, t, KUMI_LOCK_HOME, KUMI_LOCK_TAIL, KUMI_AMO_CSWAP, 0,
                                 me, &old);
        if (rc != 0 || old == me)
            return rc;
        /* someone swapped in behind me and is about to link in */
        if (kumi_rt_wait_pred(call, kumi_shmem_lock_linked, node) != KUMI_OK)
            return -1;
        next = __atomic_load_n(node, __ATOMIC_ACQUIRE) & KUMI_LOCK_NEXT;
    }
    if (KUMI_SHMEM_UNLIKELY(next > (uint32_t)kumi_rt.size))
        return kumi_shmem_error(KUMI_ERR_INVALID, call, "lock %p names PE %u as the next "
                                "holder: not a lock made by shmem_set_lock", (void *)lock,
                                next - 1);
    return kumi_shmem_lock_amo(call, t, (int)next - 1, KUMI_LOCK_NODE, KUMI_AMO_AND,
                               ~KUMI_LOCK_WAIT, 0, NULL);
}

/* ------------------------------------------------------ this PE's locks */

struct kumi_shmem_lock_mine {
    const long *lock;
    uint64_t    next, serving;   /* this PE's threads take turns (FIFO)   */
    unsigned    users;           /* threads holding or waiting for a turn */
    int         held;            /* the turn's thread holds the lock      */
    pthread_t   holder;
    struct kumi_shmem_lock_mine *link;
};

#define KUMI_LOCK_BUCKETS 64
#define KUMI_LOCK_SPARE   16     /* freed entries kept for reuse */

/* Only with SHMEM_THREAD_MULTIPLE (kumi_rt_threads) is mu taken. */
static struct {
    pthread_mutex_t              mu;
    struct kumi_shmem_lock_mine *bucket[KUMI_LOCK_BUCKETS];
    struct kumi_shmem_lock_mine *spare;
    unsigned                     nspare;
} kumi_shmem_locks = { PTHREAD_MUTEX_INITIALIZER, { NULL }, NULL, 0 };

static void kumi_shmem_locks_enter(void)
{
    if (kumi_rt_threads())
        pthread_mutex_lock(&kumi_shmem_locks.mu);
}

static void kumi_shmem_locks_leave(void)
{
    if (kumi_rt_threads())
        pthread_mutex_unlock(&kumi_shmem_locks.mu);
}

/* lock's entry, made when create (NULL when absent or out of memory) */
static struct kumi_shmem_lock_mine *kumi_shmem_lock_mine(const long *lock, int create)
{
    struct kumi_shmem_lock_mine **b = &kumi_shmem_locks.bucket[((uintptr_t)lock >> 3)
                                                               % KUMI_LOCK_BUCKETS];
    struct kumi_shmem_lock_mine  *e;

    for (e = *b; e != NULL; e = e->link)
        if (e->lock == lock)
            return e;
    if (!create)
        return NULL;
    if (kumi_shmem_locks.spare != NULL) {
        e = kumi_shmem_locks.spare;
        kumi_shmem_locks.spare = e->link;
        kumi_shmem_locks.nspare--;
        *e = (struct kumi_shmem_lock_mine){ 0 };
    } else if ((e = calloc(1, sizeof *e)) == NULL) {
        return NULL;
    }
    e->lock = lock;
    e->link = *b;
    *b = e;
    return e;
}

static void kumi_shmem_lock_forget(struct kumi_shmem_lock_mine *e)
{
    struct kumi_shmem_lock_mine **p = &kumi_shmem_locks.bucket[((uintptr_t)e->lock >> 3)
                                                               % KUMI_LOCK_BUCKETS];
    while (*p != e)
        p = &(*p)->link;
    *p = e->link;
    if (kumi_shmem_locks.nspare < KUMI_LOCK_SPARE) {
        e->link = kumi_shmem_locks.spare;
        kumi_shmem_locks.spare = e;
        kumi_shmem_locks.nspare++;
    } else {
        free(e);
    }
}

struct kumi_shmem_lock_turn {
    struct kumi_shmem_lock_mine *e;
    uint64_t                     ticket;
};

static int kumi_shmem_lock_my_turn(void *arg)
{
    struct kumi_shmem_lock_turn *w = arg;
    return __atomic_load_n(&w->e->serving, __ATOMIC_ACQUIRE) == w->ticket;
}

/* Ends this thread's turn (it held the lock, or failed to get it). */
static void kumi_shmem_lock_turn_end(struct kumi_shmem_lock_mine *e)
{
    int waiters;

    kumi_shmem_locks_enter();
    e->held = 0;
    __atomic_store_n(&e->serving, e->serving + 1, __ATOMIC_RELEASE);
    waiters = --e->users;
    if (waiters == 0)
        kumi_shmem_lock_forget(e);
    kumi_shmem_locks_leave();
    /* a thread of this PE waiting for its turn may sleep on my doorbell
     * (policy block): a store of mine does not ring it */
    if (waiters > 0 && kumi_rt.tp.doorbells)
        kumi_tp_doorbell_ring(kumi_rt.tp.doorbell);
}

/* ------------------------------------------------- a test_lock that fails */

/* shmem_test_lock is meant to be called in a loop (while (shmem_test_lock(l))
 * ;), and a loop that finds the lock taken burns its core: with
 * SHMEM_THREAD_MULTIPLE and more threads than cores, the threads of a PE
 * spinning so starve the one thread that holds the lock (its gets and
 * puts wait for replies), the PE's progress thread and its heartbeats, and
 * kumirun, until the job is taken for lost (SOS's mt_locking over tcp;
 * the figures: bindings/shmem/README.md, third-party suites). So a
 * thread's failed test_locks follow the policy of kumi's
 * waits (runtime/wait.c): under a spinning policy without threads nothing
 * changes; otherwise, after KUMI_TEST_SPINS failures in a row the thread
 * yields its core on each failure, and once it has failed for
 * KUMI_TEST_YIELD_NS it naps KUMI_TEST_NAP_NS on each. Each call still
 * tries the lock and returns at once when it is free. */
#define KUMI_TEST_SPINS    16
#define KUMI_TEST_YIELD_NS 2000000L  /* as KUMI_WAIT_YIELD_NS */
#define KUMI_TEST_NAP_NS   100000L   /* as KUMI_WAIT_NAP_NS   */

static __thread unsigned kumi_shmem_test_fails;  /* this thread's, in a row */
static __thread double   kumi_shmem_test_since;  /* when it started yielding */

static void kumi_shmem_test_failed(void)
{
    unsigned n = ++kumi_shmem_test_fails;
    double   now;

    if (n <= KUMI_TEST_SPINS
        || (kumi_rt.wait_policy == KUMI_WAIT_SPIN && !kumi_rt_threads()))
        return;
    now = kumi_wtime();
    if (n == KUMI_TEST_SPINS + 1)
        kumi_shmem_test_since = now;
    if (now - kumi_shmem_test_since < 1e-9 * KUMI_TEST_YIELD_NS) {
        sched_yield();
    } else {
        struct timespec nap = { 0, KUMI_TEST_NAP_NS };
        nanosleep(&nap, NULL);
    }
}

/* ------------------------------------------------------------- the calls */

void shmem_set_lock(long *lock)
{
    static const char           call[] = "shmem_set_lock";
    struct kumi_shmem_target    t;
    struct kumi_shmem_lock_turn w;
    struct kumi_shmem_lock_mine *e;

    if (kumi_shmem_lock_find(call, lock, &t) != 0)
        return;
    kumi_shmem_locks_enter();
    e = kumi_shmem_lock_mine(lock, 1);
    if (e == NULL) {
        kumi_shmem_locks_leave();
        kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory");
        return;
    }
    if (e->held && (!kumi_rt_threads() || pthread_equal(e->holder, pthread_self()))) {
        kumi_shmem_locks_leave();
        kumi_shmem_error(KUMI_ERR_INVALID, call, "lock %p is already held by this %s",
                         (void *)lock, kumi_rt_threads() ? "thread" : "PE");
        return;
    }
    e->users++;
    w.e = e;
    w.ticket = e->next++;
    kumi_shmem_locks_leave();
    /* another thread of this PE holds it or waits before me */
    if (!kumi_shmem_lock_my_turn(&w) && kumi_rt_wait_pred(call, kumi_shmem_lock_my_turn, &w)
                                            != KUMI_OK) {
        kumi_shmem_lock_turn_end(e);
        return;
    }
    if (kumi_shmem_queue_acquire(call, lock, &t) != 0) {
        kumi_shmem_lock_turn_end(e);
        return;
    }
    kumi_shmem_locks_enter();
    e->held = 1;
    e->holder = pthread_self();
    kumi_shmem_locks_leave();
}

void shmem_clear_lock(long *lock)
{
    static const char            call[] = "shmem_clear_lock";
    struct kumi_shmem_target     t;
    struct kumi_shmem_lock_mine *e;

    if (kumi_shmem_lock_find(call, lock, &t) != 0)
        return;
    kumi_shmem_locks_enter();
    e = kumi_shmem_lock_mine(lock, 0);
    if (e == NULL || !e->held) {
        kumi_shmem_locks_leave();
        kumi_shmem_error(KUMI_ERR_INVALID, call, "lock %p is not held by this PE",
                         (void *)lock);
        return;
    }
    kumi_shmem_locks_leave();
    kumi_shmem_queue_release(call, lock, &t);
    kumi_shmem_lock_turn_end(e);
}

int shmem_test_lock(long *lock)
{
    static const char            call[] = "shmem_test_lock";
    struct kumi_shmem_target     t;
    struct kumi_shmem_lock_mine *e;
    int                          rc;

    if (kumi_shmem_lock_find(call, lock, &t) != 0)
        return 1;
    kumi_shmem_locks_enter();
    e = kumi_shmem_lock_mine(lock, 1);
    if (e == NULL || e->next != e->serving) {
        /* this PE holds it, or one of its threads waits for it */
        kumi_shmem_locks_leave();
        if (e == NULL)
            kumi_shmem_error(KUMI_ERR_NOMEM, call, "out of memory");
        else
            kumi_shmem_test_failed();
        return 1;
    }
    e->users++;
    e->next++;
    kumi_shmem_locks_leave();
    rc = kumi_shmem_queue_try(call, lock, &t);
    if (rc != 0) {
        kumi_shmem_lock_turn_end(e);
        if (rc > 0)
            kumi_shmem_test_failed();
        return 1;
    }
    kumi_shmem_test_fails = 0;
    kumi_shmem_locks_enter();
    e->held = 1;
    e->holder = pthread_self();
    kumi_shmem_locks_leave();
    return 0;
}
