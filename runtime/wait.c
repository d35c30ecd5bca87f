/*
 * wait.c -- every wait in kumi: kumi_wait_until_*, and the runtime's and
 * collectives' internal waits.
 *
 * Policy (KUMI_WAIT): spin while the PEs fit the cores (the latency path:
 * one load of local memory per iteration); when oversubscribed, spin
 * briefly, then yield, then sleep on this PE's doorbell with a short
 * timeout. Writers ring the doorbell only when the job's policy may block,
 * so the spinning fast path pays nothing for it. Every wait also serves
 * incoming active messages and returns KUMI_ERR_PEER once the job fails.
 */
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

int (*kumi_rt_poll_hook)(void);

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
        const char *o = getenv(KUMI_ENV_OVERSUB);
        policy = (o != NULL && o[0] == '1') ? KUMI_WAIT_BLOCK : KUMI_WAIT_SPIN;
    }
    kumi_rt.wait_policy = policy;
    /* atomic: a transport's progress thread may already be reading it */
    __atomic_store_n(&kumi_rt.tp.doorbells, policy == KUMI_WAIT_BLOCK, __ATOMIC_RELEASE);
}

/* Sleeps on my doorbell unless the condition already holds; registering
 * before the last check means a writer that stores after it sees us. */
static void kumi_rt_sleep(volatile void *addr, size_t width, int cmp, uint64_t value,
                          uint64_t mask)
{
    struct kumi_tp_doorbell *db = kumi_rt.tp.doorbell;
    uint32_t                 seq;

    /* a transport with a progress thread must know nobody polls now */
    if (kumi_rt.tp.ops->idle != NULL)
        kumi_rt.tp.ops->idle(&kumi_rt.tp, 1);
    __atomic_add_fetch(&db->waiters, 1, __ATOMIC_SEQ_CST);
    seq = __atomic_load_n(&db->seq, __ATOMIC_SEQ_CST);
    if (!kumi_rt_test_mask(addr, width, cmp, value, mask) && !kumi_rt_failed())
        kumi_tp_doorbell_sleep(db, seq, KUMI_WAIT_SLEEP_NS);
    __atomic_sub_fetch(&db->waiters, 1, __ATOMIC_SEQ_CST);
    if (kumi_rt.tp.ops->idle != NULL)
        kumi_rt.tp.ops->idle(&kumi_rt.tp, 0);
}

/* How long a yielding wait inside a collective (kumi_rt_wait_team) spins
 * before its first yield, learnt from the collective waits before it. A
 * wait that ended while spinning sets the full
 * KUMI_WAIT_SPINS_BEFORE_YIELD for the next (a partner running on another
 * core answers within a few spins: an 8-PE pingpong on 2 cores takes 0.29
 * us with them, 4.7 us yielding at once); each wait that had to yield
 * halves it, down to one test, because then the PEs it waits for are
 * queued behind it on its own core and every spin delays them (8-PE
 * barrier on 2 cores: 10.6 us with 16 spins, 9.6 us with one). Every
 * KUMI_WAIT_PROBE-th wait spins in full again, so a partner that has come
 * back is found. A wait whose condition held on entry teaches nothing.
 * Point-to-point waits keep the full spin: their partner may well be
 * running on the other core (and learnt from collectives, both sides of an
 * 8-PE pingpong yielded at once and stayed at 4.7 us). Per process: the
 * PE's waits run on one thread at a time. */
static unsigned kumi_wait_spins = KUMI_WAIT_SPINS_BEFORE_YIELD, kumi_wait_count;

static inline unsigned kumi_rt_spin_budget(void)
{
    if (++kumi_wait_count % KUMI_WAIT_PROBE == 0)
        return KUMI_WAIT_SPINS_BEFORE_YIELD;
    return kumi_wait_spins;
}

static inline void kumi_rt_spin_learn(unsigned spins, unsigned yields)
{
    if (yields > 0)
        kumi_wait_spins = kumi_wait_spins > 1 ? kumi_wait_spins / 2 : 1;
    else if (spins > 0)
        kumi_wait_spins = KUMI_WAIT_SPINS_BEFORE_YIELD;
}

/* team: learn the spin before yielding (kumi_rt_spin_budget), else the
 * full KUMI_WAIT_SPINS_BEFORE_YIELD */
static int kumi_rt_wait_loop(const char *call, volatile void *addr, size_t width, int cmp,
                             uint64_t value, uint64_t mask, int team)
{
    const int      block  = kumi_rt.wait_policy == KUMI_WAIT_BLOCK;
    const int      yield  = block || kumi_rt.wait_policy == KUMI_WAIT_YIELD;
    const int      learn  = yield && team;
    const unsigned budget = learn ? kumi_rt_spin_budget() : KUMI_WAIT_SPINS_BEFORE_YIELD;
    unsigned       spins  = 0, yields = 0;
    double         yield_start = 0;
    int            may_sleep = 0;

    for (;;) {
        if (kumi_rt_test_mask(addr, width, cmp, value, mask)) {
            if (learn)
                kumi_rt_spin_learn(spins, yields);
            return KUMI_OK;
        }
        if ((++spins & kumi_rt.tp.progress_mask) == 0 || yields > 0) {
            int served = kumi_rt.tp.ops->progress(&kumi_rt.tp);
            if (kumi_rt_poll_hook != NULL)
                served += kumi_rt_poll_hook();
            if (served > 0)
                continue;
            if (kumi_rt_failed())
                return kumi_rt_peer_error(call);
        }
        if (!yield || spins < budget) {
            kumi_rt_relax();
        } else if (!may_sleep) {
            if (block && yields % KUMI_WAIT_YIELD_CHECK == 0) {
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
            kumi_rt_sleep(addr, width, cmp, value, mask);
        }
    }
}

int kumi_rt_wait_team(const char *call, volatile void *addr, size_t width, int cmp,
                      uint64_t value, uint64_t mask)
{
    return kumi_rt_wait_loop(call, addr, width, cmp, value, mask, 1);
}

int kumi_rt_wait(const char *call, volatile void *addr, size_t width, int cmp, uint64_t value)
{
    return kumi_rt_wait_loop(call, addr, width, cmp, value, ~0ull, 0);
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
            kumi_rt.tp.ops->progress(&kumi_rt.tp);                                        \
        return kumi_rt_test(addr, sizeof(T), cmp, value);                                 \
    }

KUMI_WAIT_API(uint64_t, u64)
KUMI_WAIT_API(uint32_t, u32)
KUMI_WAIT_API(uint8_t, u8)
