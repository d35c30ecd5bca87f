/*
 * wait.c -- every wait in kumi: kumi_wait_until_*, and the runtime's and
 * collectives' internal waits.
 *
 * Policy (KUMI_WAIT): spin while the PEs fit the cores (the latency path:
 * one load of local memory per iteration); when oversubscribed, spin
 * briefly, then yield, then sleep on this PE's doorbell with a short
 * timeout. kumirun also calls a job oversubscribed when other work kept the
 * cores busy at start-up (runtime/README.md, "Waiting"). Writers ring the
 * doorbell only when the job's policy may block, so the spinning fast path
 * pays nothing for it. Every wait also serves
 * incoming active messages and returns KUMI_ERR_PEER once the job fails.
 *
 * Threads (KUMI_INIT_THREADS): any number of threads may wait at once.
 * A wait holds no lock while it spins, yields or sleeps: it drives the
 * transport only through progress(), which a transport makes a try-lock
 * (another thread already at it: nothing to do), so a waiting thread never
 * stops another from sending or completing.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "rt.h"

#define KUMI_WAIT_SPINS_BEFORE_YIELD 16    /* oversubscribed: a spinning PE only
                                               delays the one it waits for */
#define KUMI_WAIT_PROBE       32             /* every 32nd yielding wait spins in full */
#define KUMI_WAIT_YIELD_CHECK 64             /* yields between clock reads */
#define KUMI_WAIT_YIELD_NS    2000000L        /* yield this long before sleeping:
                                                a short wait (a collective with
                                                every PE busy) never pays a
                                                futex wake-up, a long one does
                                                not burn the core */
#define KUMI_WAIT_SLEEP_NS           2000000L   /* bounds a missed wake-up */
#define KUMI_WAIT_THREAD_SPINS 128          /* KUMI_INIT_THREADS, policy spin:
                                               spins before the first yield */
#define KUMI_WAIT_NAP_NS      100000L       /* KUMI_INIT_THREADS without doorbells:
                                               a wait that yielded for
                                               KUMI_WAIT_YIELD_NS sleeps this
                                               long at a time (nobody rings) */

/* The bindings' poll hooks (rt.h): slots [0, kumi_rt_npoll_hooks) in
 * the order added. Added and removed under the lock (rare: a binding's
 * first use, MPI's non-blocking collectives when the first schedule
 * starts and the last ends); walked without it: the count is published
 * after its slot (release), and a removal shifts the later slots down and
 * clears the last before it lowers the count. A hook may remove a hook
 * (itself too) while the walk runs it: the walk then looks at its slot
 * again. */
static int (*kumi_rt_poll_hooks[KUMI_RT_POLL_HOOKS_MAX])(void);
int                    kumi_rt_npoll_hooks;
static pthread_mutex_t kumi_rt_poll_hooks_lock = PTHREAD_MUTEX_INITIALIZER;

static int kumi_rt_poll_hook_find(int (*fn)(void), int n)
{
    for (int i = 0; i < n; i++)
        if (__atomic_load_n(&kumi_rt_poll_hooks[i], __ATOMIC_RELAXED) == fn)
            return i;
    return -1;
}

int kumi_rt_poll_hook_add(int (*fn)(void))
{
    int rc = KUMI_OK;

    if (fn == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, "kumi_rt_poll_hook_add", "fn is NULL");
    /* the common case (a binding registering on each use): there already */
    if (kumi_rt_poll_hook_find(fn, __atomic_load_n(&kumi_rt_npoll_hooks, __ATOMIC_ACQUIRE)) >= 0)
        return KUMI_OK;
    pthread_mutex_lock(&kumi_rt_poll_hooks_lock);
    int n = kumi_rt_npoll_hooks;
    if (kumi_rt_poll_hook_find(fn, n) < 0) {
        if (n == KUMI_RT_POLL_HOOKS_MAX) {
            rc = kumi_rt_error(KUMI_ERR_NOMEM, "kumi_rt_poll_hook_add", "%d poll hooks already "
                               "(KUMI_RT_POLL_HOOKS_MAX)", n);
        } else {
            __atomic_store_n(&kumi_rt_poll_hooks[n], fn, __ATOMIC_RELAXED);
            __atomic_store_n(&kumi_rt_npoll_hooks, n + 1, __ATOMIC_RELEASE);
        }
    }
    pthread_mutex_unlock(&kumi_rt_poll_hooks_lock);
    return rc;
}

int kumi_rt_poll_hook_remove(int (*fn)(void))
{
    pthread_mutex_lock(&kumi_rt_poll_hooks_lock);
    int n = kumi_rt_npoll_hooks, i = kumi_rt_poll_hook_find(fn, n);
    if (i >= 0) {
        for (; i < n - 1; i++)
            __atomic_store_n(&kumi_rt_poll_hooks[i], kumi_rt_poll_hooks[i + 1], __ATOMIC_RELAXED);
        __atomic_store_n(&kumi_rt_poll_hooks[n - 1], NULL, __ATOMIC_RELAXED);
        __atomic_store_n(&kumi_rt_npoll_hooks, n - 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&kumi_rt_poll_hooks_lock);
    return i >= 0 ? KUMI_OK : KUMI_ERR_INVALID;
}

int kumi_rt_poll_hooks_walk(void)
{
    int served = 0, n = __atomic_load_n(&kumi_rt_npoll_hooks, __ATOMIC_ACQUIRE);

    for (int i = 0; i < n; i++) {
        int (*fn)(void) = __atomic_load_n(&kumi_rt_poll_hooks[i], __ATOMIC_RELAXED);
        if (fn == NULL)
            continue;
        served += fn();
        /* fn (or a walk inside it) removed itself or a hook before it
         * (MPI's non-blocking collectives remove theirs when the last
         * schedule ends): the later hooks moved down a slot, and the one
         * now at i has not run in this walk */
        if (__atomic_load_n(&kumi_rt_poll_hooks[i], __ATOMIC_RELAXED) != fn)
            i--;
    }
    return served;
}

/* KUMI_INIT_THREADS: the DSM stays single-threaded (its calls and
 * translated code on the thread that called kumi_init_ex), so only that
 * thread's waits serve its requests (the layers' polls); every thread's
 * waits serve the transport. Set by kumi_rt_wait_setup, which kumi_init
 * runs on that thread. */
static __thread int kumi_rt_dsm_thread;

int kumi_rt_test(volatile const void *addr, size_t width, int cmp, uint64_t value)
{
    return kumi_rt_cmp(kumi_rt_load(addr, width), cmp, value);
}

static inline int kumi_rt_test_mask(volatile const void *addr, size_t width, int cmp,
                                    uint64_t value, uint64_t mask)
{
    return kumi_rt_cmp(kumi_rt_load(addr, width) & mask, cmp, value);
}

void kumi_rt_wait_setup(void)
{
    int policy = kumi_rt.cfg.wait;

    if (policy == KUMI_WAIT_AUTO) {
        policy = kumi_rt.boot.oversubscribed ? KUMI_WAIT_BLOCK : KUMI_WAIT_SPIN;
    }
    kumi_rt.wait_policy = policy;
    kumi_rt_dsm_thread  = 1;
    /* atomic: a transport's progress thread may already be reading it */
    __atomic_store_n(&kumi_rt.tp.doorbells, policy == KUMI_WAIT_BLOCK, __ATOMIC_RELEASE);
}

/* What a wait waits for: a word (ready NULL: cmp(*addr & mask, value)) or
 * a predicate (kumi_rt_wait_pred). The callers pass ready as a constant,
 * so the word's wait compiles without the indirect call. Scalars, not a
 * struct behind a pointer: a sanitizer build (-O0) then instruments no
 * extra loads in the spin. */
#define KUMI_RT_COND_ARGS volatile void *addr, size_t width, int cmp, uint64_t value, \
                          uint64_t mask, int (*ready)(void *arg), void *arg
#define KUMI_RT_COND      addr, width, cmp, value, mask, ready, arg

static inline __attribute__((always_inline)) int kumi_rt_cond_holds(KUMI_RT_COND_ARGS)
{
    if (ready != NULL)
        return ready(arg) != 0;
    return kumi_rt_test_mask(addr, width, cmp, value, mask);
}

/* Sleeps on my doorbell unless the condition already holds; registering
 * before the last check means a writer that stores after it sees us. With
 * KUMI_INIT_THREADS several threads may sleep at once (waiters counts
 * them, a ring wakes them all); a store by another thread of this PE
 * rings only when it goes through kumi (a put or atomic to myself on shm,
 * tcp), else the timeout bounds the wake-up. Nothing is locked while
 * asleep. */
static void kumi_rt_sleep(KUMI_RT_COND_ARGS, long timeout_ns)
{
    struct kumi_tp_doorbell *db = kumi_rt.tp.doorbell;
    uint32_t                 seq;

    /* a transport with a progress thread must know nobody polls now */
    kumi_tp_idle(&kumi_rt.tp, 1);
    __atomic_add_fetch(&db->waiters, 1, __ATOMIC_SEQ_CST);
    seq = __atomic_load_n(&db->seq, __ATOMIC_SEQ_CST);
    if (!kumi_rt_cond_holds(KUMI_RT_COND) && !kumi_rt_failed())
        kumi_tp_doorbell_sleep(db, seq, timeout_ns);
    __atomic_sub_fetch(&db->waiters, 1, __ATOMIC_SEQ_CST);
    kumi_tp_idle(&kumi_rt.tp, 0);
}

/* How long a yielding wait inside a collective (kumi_rt_wait_team) spins
 * before its first yield, learnt from the collective waits before it. A
 * wait that ended while spinning sets the full
 * KUMI_WAIT_SPINS_BEFORE_YIELD for the next (a partner running on another
 * core answers within a few spins); each wait that had to yield
 * halves it, down to one test, because then the PEs it waits for are
 * queued behind it on its own core and every spin delays them. Every
 * KUMI_WAIT_PROBE-th wait spins in full again, so a partner that has come
 * back is found. A wait whose condition held on entry teaches nothing.
 * Point-to-point waits keep the full spin: their partner may well be
 * running on the other core (learnt from collectives, both sides of an
 * 8-PE pingpong would yield at once). The figures behind these choices:
 * bench/README.md, "Measurements behind choices in the code". Per process, in
 * relaxed atomics (plain loads and stores on x86 and aarch64): with
 * KUMI_INIT_THREADS the collective waits of several teams may run at
 * once, and an update lost between them only delays the learning. */
static unsigned kumi_wait_spins = KUMI_WAIT_SPINS_BEFORE_YIELD, kumi_wait_count;

static inline unsigned kumi_rt_spin_budget(void)
{
    unsigned n = __atomic_load_n(&kumi_wait_count, __ATOMIC_RELAXED) + 1;

    __atomic_store_n(&kumi_wait_count, n, __ATOMIC_RELAXED);
    if (n % KUMI_WAIT_PROBE == 0)
        return KUMI_WAIT_SPINS_BEFORE_YIELD;
    return __atomic_load_n(&kumi_wait_spins, __ATOMIC_RELAXED);
}

static inline void kumi_rt_spin_learn(unsigned spins, unsigned yields)
{
    unsigned s = __atomic_load_n(&kumi_wait_spins, __ATOMIC_RELAXED);

    if (yields > 0)
        __atomic_store_n(&kumi_wait_spins, s > 1 ? s / 2 : 1, __ATOMIC_RELAXED);
    else if (spins > 0)
        __atomic_store_n(&kumi_wait_spins, KUMI_WAIT_SPINS_BEFORE_YIELD, __ATOMIC_RELAXED);
}

/* Transport progress, then (on the DSM's thread) the layers above. */
static inline int kumi_rt_serve(int threads)
{
    int served = kumi_tp_progress(&kumi_rt.tp);

    if (!threads || kumi_rt_dsm_thread) {
        served += kumi_rt_layers_poll();
        served += kumi_rt_poll_hooks_run();
    }
    return served;
}

/* team: learn the spin before yielding (kumi_rt_spin_budget), else the
 * full KUMI_WAIT_SPINS_BEFORE_YIELD. With KUMI_INIT_THREADS the policy
 * spin yields too, after KUMI_WAIT_THREAD_SPINS, and every policy sleeps
 * after KUMI_WAIT_YIELD_NS of yielding (without doorbells, naps of
 * KUMI_WAIT_NAP_NS): the PE's threads may outnumber its cores, and the
 * one this wait needs may be queued behind it on its core (tests/pe/
 * threads.c, 8 threads a PE waiting on each other, 2 PEs on 2 cores,
 * under TSan: 20 s spinning 1024 times and then only yielding, 0.16 s
 * thus). */
static inline __attribute__((always_inline)) int
kumi_rt_wait_loop(const char *call, KUMI_RT_COND_ARGS, int team)
{
    const int      threads = kumi_rt_threads();
    const int      block   = kumi_rt.wait_policy == KUMI_WAIT_BLOCK;
    const int      yield   = block || kumi_rt.wait_policy == KUMI_WAIT_YIELD;
    const int      learn   = yield && team;
    const unsigned budget  = learn ? kumi_rt_spin_budget()
                             : yield ? KUMI_WAIT_SPINS_BEFORE_YIELD
                             : threads ? KUMI_WAIT_THREAD_SPINS : 0;
    unsigned       spins   = 0, yields = 0;
    double         yield_start = 0;
    int            may_sleep = 0;

    for (;;) {
        if (kumi_rt_cond_holds(KUMI_RT_COND)) {
            if (learn)
                kumi_rt_spin_learn(spins, yields);
            return KUMI_OK;
        }
        if ((++spins & kumi_rt.tp.progress_mask) == 0 || yields > 0) {
            if (kumi_rt_serve(threads) > 0)
                continue;
            if (kumi_rt_failed())
                return kumi_rt_peer_error(call);
        }
        if (budget == 0 || spins < budget) {
            kumi_rt_relax();
        } else if (!may_sleep) {
            if ((block || threads) && yields % KUMI_WAIT_YIELD_CHECK == 0) {
                double now = kumi_wtime();
                if (yields == 0)
                    yield_start = now;
                else if (now - yield_start > 1e-9 * KUMI_WAIT_YIELD_NS)
                    may_sleep = 1;
            }
            yields++;
            sched_yield();
        } else {
            /* progress was polled just above: a sender stuck on a full
             * queue is not left waiting for our next poll */
            kumi_rt_sleep(KUMI_RT_COND, block ? KUMI_WAIT_SLEEP_NS : KUMI_WAIT_NAP_NS);
        }
    }
}

int kumi_rt_wait_team(const char *call, volatile void *addr, size_t width, int cmp,
                      uint64_t value, uint64_t mask)
{
    return kumi_rt_wait_loop(call, addr, width, cmp, value, mask, NULL, NULL, 1);
}

int kumi_rt_wait(const char *call, volatile void *addr, size_t width, int cmp, uint64_t value)
{
    return kumi_rt_wait_loop(call, addr, width, cmp, value, ~0ull, NULL, NULL, 0);
}

int kumi_rt_wait_pred(const char *call, int (*ready)(void *arg), void *arg)
{
    return kumi_rt_wait_loop(call, NULL, 0, 0, 0, 0, ready, arg, 0);
}

/* ------------------------------------------------------------ public API */

#define KUMI_WAIT_API(T, SUFFIX)                                                          \
    int kumi_wait_until_##SUFFIX(volatile T *addr, int cmp, T value)                      \
    {                                                                                     \
        static const char call[] = "kumi_wait_until_" #SUFFIX;                            \
        int rc = kumi_rt_check_state(call);                                               \
        if (rc != KUMI_OK)                                                                \
            return rc;                                                                    \
        if (addr == NULL || ((uintptr_t)addr & (sizeof(T) - 1)) != 0)                     \
            return kumi_rt_error(KUMI_ERR_INVALID, call, "address %p is NULL or not "     \
                                 "%zu-byte aligned", (void *)addr, sizeof(T));            \
        if (cmp < KUMI_CMP_EQ || cmp > KUMI_CMP_LE)                                       \
            return kumi_rt_error(KUMI_ERR_INVALID, call, "bad comparison %d", cmp);       \
        return kumi_rt_wait_fast(call, addr, sizeof(T), cmp, value, 0);                   \
    }                                                                                     \
    int kumi_test_##SUFFIX(volatile T *addr, int cmp, T value)                            \
    {                                                                                     \
        if (addr == NULL || ((uintptr_t)addr & (sizeof(T) - 1)) != 0                     \
            || cmp < KUMI_CMP_EQ || cmp > KUMI_CMP_LE)                                    \
            return kumi_rt_error(KUMI_ERR_INVALID, "kumi_test_" #SUFFIX,                  \
                                 "bad address %p or comparison %d", (void *)addr, cmp);   \
        if (kumi_rt.state == 1)                                                           \
            kumi_tp_progress(&kumi_rt.tp);                                        \
        return kumi_rt_test(addr, sizeof(T), cmp, value);                                 \
    }

KUMI_WAIT_API(uint64_t, u64)
KUMI_WAIT_API(uint32_t, u32)
KUMI_WAIT_API(uint8_t, u8)
