/*
 * dsm_mutex.c -- kumi_mutex, in DSM memory or in the symmetric heap.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dsm_int.h"

/* ---------------------------------------------------------------- mutex
 * A FIFO ticket lock. In DSM memory: the two words sit in separate lines
 * and move through the protocol; a waiter holds "serving" shared and
 * waits (with the job's wait policy) for the unlock's invalidation to
 * change its state byte. In the symmetric heap: PE 0's copy, remote
 * atomics, and a waiter polls "serving" with backoff. */

static int mutex_where(const char *call, kumi_mutex_t *m)
{
    int rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    if (m == NULL || ((uintptr_t)m & 63) != 0)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "mutex %p is NULL or not 64-byte aligned",
                             (void *)m);
    if (kumi_dsm_owns(m))
        return kumi_dsm_owns((uint8_t *)m + sizeof(*m) - 1) ? 1
               : kumi_rt_error(KUMI_ERR_INVALID, call, "mutex %p crosses the end of the DSM "
                               "region", (void *)m);
    if (kumi_rt_heap_off(m, sizeof(*m)) != (size_t)-1)
        return 2;
    return kumi_rt_error(KUMI_ERR_INVALID, call, "mutex %p is neither in DSM memory nor in the "
                         "symmetric heap", (void *)m);
}

int kumi_mutex_init(kumi_mutex_t *m)
{
    static const char call[] = "kumi_mutex_init";
    int               where = mutex_where(call, m);
    uint64_t          zero = 0, old;

    if (where < 0)
        return where;
    if (where == 1) {
        int rc = kumi_dsm_write(&m->next, &zero, 8);
        return rc != KUMI_OK ? rc : kumi_dsm_write(&m->serving, &zero, 8);
    }
    int rc = kumi_atomic_swap_u64(&m->next, 0, 0, &old);
    if (rc == KUMI_OK)
        rc = kumi_atomic_swap_u64(&m->serving, 0, 0, &old);
    return rc;
}

int kumi_mutex_lock(kumi_mutex_t *m)
{
    static const char call[] = "kumi_mutex_lock";
    int               where = mutex_where(call, m);
    uint64_t          ticket, now;
    int               rc;

    if (where < 0)
        return where;
    if (where == 1) {
        if ((rc = kumi_dsm_usable(call)) != KUMI_OK)
            return rc;
        kumi_dsm_poll();   /* a synchronization point serves waiting requests */
        uint64_t next_off = (uint64_t)((uintptr_t)&m->next - kumi_dsm_g.base);
        uint64_t serv_off = (uint64_t)((uintptr_t)&m->serving - kumi_dsm_g.base);
        if ((rc = kumi_dsm_line(call, next_off, 1)) != KUMI_OK)
            return rc;
        ticket = m->next++;   /* exclusive, and nothing is served in between */
        for (;;) {
            if ((rc = kumi_dsm_line(call, serv_off, 0)) != KUMI_OK)
                return rc;
            if (m->serving == ticket)
                return KUMI_OK;
            /* wait for the holder's unlock to take my copy away */
            uint8_t *st = &kumi_dsm_g.state[serv_off >> KUMI_DSM_LINE_SHIFT];
            if ((rc = kumi_rt_wait(call, st, 1, KUMI_CMP_NE, *st)) != KUMI_OK)
                return rc;
        }
    }
    /* serve others first: the lock's host makes its turns with local
     * atomics and would otherwise answer other PEs' tickets only when its
     * transport gets round to it */
    kumi_dsm_poll();
    if ((rc = kumi_atomic_fetch_add_u64(&m->next, 1, 0, &ticket)) != KUMI_OK)
        return rc;
    for (unsigned backoff = 1;;) {
        if ((rc = kumi_atomic_fetch_add_u64(&m->serving, 0, 0, &now)) != KUMI_OK)
            return rc;
        if (now == ticket)
            return KUMI_OK;
        for (unsigned i = 0; i < backoff; i++) {
            kumi_dsm_poll();
            if (kumi_rt_failed())
                return kumi_rt_peer_error(call);
            if (kumi_rt.wait_policy != KUMI_WAIT_SPIN)
                sched_yield();
        }
        if (backoff < 64)
            backoff *= 2;
    }
}

int kumi_mutex_unlock(kumi_mutex_t *m)
{
    static const char call[] = "kumi_mutex_unlock";
    int               where = mutex_where(call, m);
    int               rc;

    if (where < 0)
        return where;
    if (where == 1) {
        if ((rc = kumi_dsm_usable(call)) != KUMI_OK)
            return rc;
        uint64_t serv_off = (uint64_t)((uintptr_t)&m->serving - kumi_dsm_g.base);
        if ((rc = kumi_dsm_line(call, serv_off, 1)) != KUMI_OK)
            return rc;
        m->serving++;
        kumi_dsm_poll();
        return KUMI_OK;
    }
    /* what the holder put must land before the next holder reads it */
    if ((rc = kumi_quiet()) != KUMI_OK)
        return rc;
    rc = kumi_atomic_add_u64(&m->serving, 1, 0);
    kumi_dsm_poll();
    return rc;
}

