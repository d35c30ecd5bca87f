/*
 * dsm.c -- the inbox of coherence messages, misses and the explicit API
 * (kumi_dsm_read/write/acquire/poll). The region is set up in
 * dsm_region.c, allocation is dsm_alloc.c, kumi_mutex dsm_mutex.c.
 *
 * The region: KUMI_DSM_SIZE bytes at KUMI_DSM_BASE in every PE, reserved
 * with MAP_FIXED_NOREPLACE (a clear error if anything is mapped there),
 * then mapped privately from a small memfd full of the flag pattern, chunk
 * after chunk: every line of a fresh region reads as the flag (invalid)
 * without committing memory, and a page is copied only when written.
 * PE p allocates in slice p (KUMI_DSM_SIZE / P bytes) and is the home of
 * what it allocates, except block-distributed allocations (large ones,
 * kumi_dsm_malloc_dist): part k of those is homed at PE k, noted in a
 * table every PE holds (see "distributed allocations" in dsm_alloc.c). No
 * collective call, and any PE finds the home of an address without a
 * message: by division, or in the table for a slice that has entries.
 *
 * Threads: active-message handlers (tcp runs them on its progress thread)
 * only append to the inbox; the main thread drains it from every wait
 * (the runtime's poll hook), from misses and from kumi_dsm_poll. So the
 * protocol runs in the thread that makes the DSM accesses, and a request
 * is never served in the middle of an access.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "dsm_int.h"

struct kumi_dsm_g kumi_dsm_g;
struct kumi_dsm   kumi_dsm;

/* The DSM layer of the runtime (kumi_rt_layer_add), registered from this
 * file so that any use of the DSM links the region's set-up with it. */
struct kumi_rt_layer kumi_dsm_layer = { .name = "dsm", .init = kumi_dsm_layer_init };

__attribute__((constructor)) static void dsm_register(void)
{
    kumi_rt_layer_add(&kumi_dsm_layer);
}


/* ----------------------------------------------------------------- inbox */

void kumi_dsm_inbox_lock(void)
{
    while (__atomic_exchange_n(&kumi_dsm.lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&kumi_dsm.lock, __ATOMIC_RELAXED))
            sched_yield();
}
void kumi_dsm_inbox_unlock(void)
{
    __atomic_store_n(&kumi_dsm.lock, 0, __ATOMIC_RELEASE);
}

void kumi_dsm_inbox_push(struct kumi_dsm_node *n)
{
    n->next = NULL;
    kumi_dsm_inbox_lock();
    if (kumi_dsm.in_tail != NULL)
        kumi_dsm.in_tail->next = n;
    else
        __atomic_store_n(&kumi_dsm.in_head, n, __ATOMIC_RELAXED);
    kumi_dsm.in_tail = n;
    kumi_dsm_inbox_unlock();
}

/* A block's data for my pending miss, arriving in parts, goes straight
 * into my copy instead of through the assembly node, saving the fill's
 * copy of the block, when the miss started from I (IS_D or IM_AD): the
 * block's lines are I, so no invalidation can wait in the inbox ahead of
 * the data (I am no sharer), nor a forward (I am not the owner yet), and
 * my CPU waits in the miss; nothing reads or writes the copy before the
 * data is handled. Not from S (SM_AD): an invalidation that overtook my
 * upgrade may wait in the inbox and would flag-fill the copy after the
 * data. The fields read here were written before the request went out, so
 * before its answer arrived (tcp runs this handler on its own thread). */
static int asm_direct(const struct kumi_dsm_msg *m)
{
    const struct kumi_dsm_pending *p = &kumi_dsm.pend;

    if (!m->fill || m->r != kumi_dsm.me || m->bshift < KUMI_DSM_MIN_BSHIFT
        || m->bshift > KUMI_DSM_MAX_BSHIFT || (m->off & (((uint64_t)1 << m->bshift) - 1)) != 0
        || m->off >= kumi_dsm.size || ((uint64_t)1 << m->bshift) > kumi_dsm.size - m->off)
        return 0;
    return p->active && p->from_i && p->line >= m->off
           && p->line - m->off < ((uint64_t)1 << m->bshift);
}

/* The active-message handler: copy and queue; the main thread drains. */
void kumi_dsm_am(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg)
{
    (void)tp;
    (void)arg;
    const struct kumi_dsm_msg *m = payload;

    if (__atomic_load_n(&kumi_dsm.closing, __ATOMIC_ACQUIRE))
        return;   /* a late completion after kumi_finalize's last agreement */
    if (len < sizeof(*m) || m->len != len - sizeof(*m)) {
        kumi_rt_log(KUMI_LOG_ERROR, "dsm: malformed message of %zu bytes from PE %d dropped",
                    len, src);
        return;
    }
    /* a block larger than one message comes as PART messages and the
     * protocol message with the last part (kumi_dsm_send): assembled here,
     * in the node the drain will handle, so the data is copied once on
     * the way in (a source's messages arrive in order, one block at a time;
     * handlers for one source never run at once) */
    const uint8_t *d = (const uint8_t *)payload + sizeof(*m);
    if (m->type == KUMI_DSM_MSG_PART || (m->len != 0 && m->part_off != 0)) {
        struct kumi_dsm_node *a = kumi_dsm.asm_node[src];
        if (m->part_off + (uint64_t)m->len > KUMI_DSM_BLOCK_MAX
            || (m->type != KUMI_DSM_MSG_PART && a == NULL)) {
            kumi_rt_log(KUMI_LOG_ERROR, "dsm: part of a block from PE %d out of order; dropped",
                        src);
            return;
        }
        if (a == NULL) {
            a = malloc(sizeof(*a) + KUMI_DSM_BLOCK_MAX);
            if (a == NULL)
                kumi_rt_abort("dsm: out of memory queueing a coherence message");
            a->parts = 0;
            a->msg.fill = asm_direct(m) ? 2 : 0;
            kumi_dsm.asm_node[src] = a;
        }
        if (a->msg.fill == 2)
            memcpy(kumi_dsm.base + m->off + m->part_off, d, m->len);
        else
            memcpy(a->data + m->part_off, d, m->len);
        a->parts++;
        if (m->type == KUMI_DSM_MSG_PART)
            return;
        kumi_dsm.asm_node[src] = NULL;
        uint8_t fill = a->msg.fill;
        a->src      = src;
        a->msg      = *m;
        a->msg.len  = m->part_off + m->len;
        a->msg.part_off = 0;
        a->msg.fill = fill;
        kumi_dsm_inbox_push(a);
        return;
    }
    struct kumi_dsm_node *n = malloc(sizeof(*n) + m->len);
    if (n == NULL)
        kumi_rt_abort("dsm: out of memory queueing a coherence message");
    n->src   = src;
    n->parts = 1;
    memcpy(&n->msg, payload, len);
    kumi_dsm_inbox_push(n);
}



int kumi_dsm_drain(void)
{
    int handled = 0;

    if (!kumi_dsm.up || kumi_dsm.draining
        || __atomic_load_n(&kumi_dsm.in_head, __ATOMIC_RELAXED) == NULL)
        return 0;
    kumi_dsm.draining = 1;
    for (;;) {
        kumi_dsm_inbox_lock();
        struct kumi_dsm_node *n = kumi_dsm.in_head;
        __atomic_store_n(&kumi_dsm.in_head, NULL, __ATOMIC_RELAXED);
        kumi_dsm.in_tail = NULL;
        kumi_dsm_inbox_unlock();
        if (n == NULL)
            break;
        while (n != NULL) {
            struct kumi_dsm_node *next = n->next;
            handled++;
            if (n->msg.type == KUMI_DSM_MSG_FREE) {
                kumi_dsm_remote_free_note(n->msg.off);
                kumi_dsm_send(n->src, KUMI_DSM_MSG_FREE_ACK, n->src, 0, 0, n->msg.off, 0, NULL, 0);
                free(n);
            } else if (n->msg.type == KUMI_DSM_MSG_FREE_ACK) {
                __atomic_store_n(&kumi_dsm.free_acked, 1, __ATOMIC_RELEASE);
                free(n);
            } else if (n->msg.type >= KUMI_DSM_MSG_DIST_ADD
                       && n->msg.type <= KUMI_DSM_MSG_SIZE_ACK) {
                switch (n->msg.type) {
                case KUMI_DSM_MSG_DIST_ADD:  kumi_dsm_dist_add_msg(n); break;
                case KUMI_DSM_MSG_DIST_FREE: kumi_dsm_dist_free_msg(n); break;
                case KUMI_DSM_MSG_DIST_ACK:  kumi_dsm.dist_acks++; break;
                case KUMI_DSM_MSG_SIZE:      kumi_dsm_size_msg(n); break;
                default:
                    if (n->msg.len == sizeof kumi_dsm.size_answer)
                        memcpy(&kumi_dsm.size_answer, n->data, sizeof kumi_dsm.size_answer);
                    kumi_dsm.size_bshift = n->msg.bshift;
                    __atomic_store_n(&kumi_dsm.size_acked, 1, __ATOMIC_RELEASE);
                }
                free(n);
            } else if (!kumi_dsm_handle(n)) {
                free(n);
            }
            n = next;
            /* my miss was just satisfied: stop, so my access happens
             * before any later request can take the line away again
             * (forward progress); the rest waits at the inbox's head */
            if (kumi_dsm.pend.done && n != NULL) {
                struct kumi_dsm_node *last = n;
                while (last->next != NULL)
                    last = last->next;
                kumi_dsm_inbox_lock();
                last->next = kumi_dsm.in_head;
                if (kumi_dsm.in_tail == NULL)
                    kumi_dsm.in_tail = last;
                __atomic_store_n(&kumi_dsm.in_head, n, __ATOMIC_RELAXED);
                kumi_dsm_inbox_unlock();
                break;
            }
        }
        if (kumi_dsm.pend.done)
            break;
    }
    kumi_dsm_dist_free_retry();   /* frees that waited for a busy part */
    kumi_dsm.draining = 0;
    return handled;
}

int kumi_dsm_poll_hook(void)
{
    return kumi_dsm_drain();
}

/* KUMI_OK if the DSM can be used by call, else the reported error. */
int kumi_dsm_usable(const char *call)
{
    int rc = kumi_rt_check_state(call);

    if (rc != KUMI_OK)
        return rc;
    if (!kumi_dsm.up)
        return kumi_rt_error(kumi_dsm.setup_rc ? kumi_dsm.setup_rc : KUMI_ERR_STATE, call, "%s",
                             kumi_dsm.setup_err[0] ? kumi_dsm.setup_err : "no DSM region");
    return KUMI_OK;
}

/* ---------------------------------------------------------------- misses */

/* Waits for my pending miss, serving requests (mine included). */
static int miss_wait(const char *call)
{
    struct kumi_dsm_pending *p = &kumi_dsm.pend;

    if (kumi_rt.wait_policy == KUMI_WAIT_SPIN) {
        /* the latency path: poll the transport and the inbox every time */
        for (unsigned spins = 0;; spins++) {
            kumi_tp_progress(&kumi_rt.tp);
            kumi_dsm_drain();
            if (__atomic_load_n(&p->done, __ATOMIC_ACQUIRE))
                return KUMI_OK;
            if ((spins & 255) == 255 && kumi_rt_failed())
                return kumi_rt_peer_error(call);
        }
    }
    kumi_dsm_drain();
    return kumi_rt_wait(call, &p->done, 4, KUMI_CMP_EQ, 1);
}

static int dsm_miss(const char *call, uint64_t line, int write);

/* Makes the line at region offset off readable (write 0) or writable. */
int kumi_dsm_line(const char *call, uint64_t off, int write)
{
    uint64_t line = off & ~(uint64_t)(KUMI_DSM_LINE - 1);
    uint8_t  st   = kumi_dsm_g.state[line >> KUMI_DSM_LINE_SHIFT];

    if (write ? st == KUMI_DSM_E : (st == KUMI_DSM_S || st == KUMI_DSM_E))
        return KUMI_OK;
    unsigned xb;
    uint64_t xblock = write ? kumi_dsm_xclean_block(line, &xb) : (uint64_t)-1;
    if (xblock != (uint64_t)-1) {
        /* a clean-exclusive copy (a load asked for ownership): I own the
         * block already, the first store makes it E here, no message */
        kumi_dsm_set_block_state(xblock, xb, KUMI_DSM_E);
        kumi_dsm.xclean_wr++;
        kumi_dsm.stats.upgrades++;   /* an upgrade all the same, a local one */
        return KUMI_OK;
    }
    for (;;) {
        int rc = dsm_miss(call, line, write);
        if (rc != KUMI_OK)
            return rc;
        st = kumi_dsm_g.state[line >> KUMI_DSM_LINE_SHIFT];
        if (write ? st == KUMI_DSM_E : (st == KUMI_DSM_S || st == KUMI_DSM_E))
            return KUMI_OK;
    }
}

/* One miss on line: runs the protocol and waits for it. */
static int dsm_miss(const char *call, uint64_t line, int write)
{
    uint8_t st = kumi_dsm_g.state[line >> KUMI_DSM_LINE_SHIFT];

    if (kumi_rt_failed())   /* a miss after a failure could wait for the dead */
        return kumi_rt_peer_error(call);
    if (kumi_dsm.pend.active)
        kumi_dsm_violation("a second miss while one is pending (DSM accesses from two "
                           "threads?)", kumi_dsm.me, line, KUMI_DSM_CACHE, st,
                           write ? KUMI_DSM_STORE : KUMI_DSM_LOAD);
    int32_t seq = kumi_dsm.pend.seq + 1;
    kumi_dsm.pend = (struct kumi_dsm_pending){ .active = 1, .seq = seq, .line = line,
                                               .acks_need = -1 };
    /* KUMI_DSM_STATS: the miss's wall time, request to completion (its
     * own cost and the wait for the holder to serve it) */
    struct timespec t0 = {0, 0}, t1;
    if (kumi_rt.cfg.dsm_stats)
        clock_gettime(CLOCK_MONOTONIC, &t0);
    kumi_dsm_cpu_event(line, write ? KUMI_DSM_STORE : KUMI_DSM_LOAD);
    int rc = miss_wait(call);
    if (kumi_rt.cfg.dsm_stats) {
        clock_gettime(CLOCK_MONOTONIC, &t1);
        kumi_dsm.miss_ns += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL
                                       + (t1.tv_nsec - t0.tv_nsec));
    }
    /* consumed: later drains no longer stop for it */
    __atomic_store_n(&kumi_dsm.pend.done, 0, __ATOMIC_RELAXED);
    if (rc != KUMI_OK) {
        kumi_dsm.pend.active = 0;
        return rc;
    }
    if (kumi_dsm.pend.nack)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "address %p is in the DSM region but "
                             "not allocated (home PE %d)", (void *)(kumi_dsm.base + line),
                             kumi_dsm_home_of(line));
    return KUMI_OK;
}

static int dsm_range(const char *call, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;

    if (p == NULL || !kumi_dsm_owns(p) || n > kumi_dsm.size - (a - kumi_dsm_g.base))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "[%p, +%zu) is not inside the DSM region "
                             "[%p, +%zu)", p, n, (void *)kumi_dsm.base, kumi_dsm.size);
    return KUMI_OK;
}

static _Noreturn void miss_abort(const void *p, int write, int rc)
{
    char why[256];

    snprintf(why, sizeof why, "dsm: a %s of %p (home PE %d) failed: %s",
             write ? "store" : "load", p,
             kumi_dsm_home_of((uint64_t)((uintptr_t)p - kumi_dsm_g.base)), kumi_strerror(rc));
    kumi_rt_abort(why);
}

uint64_t kumi_dsm_load_miss(const void *p, unsigned w)
{
    uint64_t off = (uintptr_t)p - kumi_dsm_g.base;
    uint64_t v   = 0;
    int      rc  = KUMI_OK;

    for (;;) {
        rc = kumi_dsm_line("kumi_dsm_load", off, 0);
        if (rc == KUMI_OK && kumi_dsm_crosses(p, w))
            rc = kumi_dsm_line("kumi_dsm_load", off + w - 1, 0);
        if (rc != KUMI_OK)
            miss_abort(p, 0, rc);
        /* the second line's miss may have served an invalidation of the first */
        uint8_t s0 = kumi_dsm_state_of(p);
        if (s0 == KUMI_DSM_S || s0 == KUMI_DSM_E)
            break;
    }
    memcpy(&v, p, w);
    return v;
}

void kumi_dsm_store_miss(void *p, unsigned w)
{
    uint64_t off = (uintptr_t)p - kumi_dsm_g.base;

    for (;;) {
        int rc = kumi_dsm_line("kumi_dsm_store", off, 1);
        if (rc == KUMI_OK && kumi_dsm_crosses(p, w))
            rc = kumi_dsm_line("kumi_dsm_store", off + w - 1, 1);
        if (rc != KUMI_OK)
            miss_abort(p, 1, rc);
        if (kumi_dsm_state_of(p) == KUMI_DSM_E)
            return;
    }
}

/* ------------------------------------------------------------------ API */

int kumi_dsm_is_shared(const void *p)
{
    return kumi_dsm_owns(p);
}

void kumi_dsm_poll(void)
{
    if (kumi_rt.state != 1 || !kumi_dsm.up)
        return;
    kumi_tp_progress(&kumi_rt.tp);
    int served = kumi_dsm_drain();
    kumi_rt_poll_hooks_run();   /* the bindings' requests (OpenMP's stdio) */
    if (__builtin_expect(kumi_rt.cfg.dsm_stats, 0)) {   /* (for the stats line only) */
        kumi_dsm.polls++;
        kumi_dsm.polls_served += served != 0;
    }
}

/* Copies between DSM and private memory line by line, each line made
 * valid right before its bytes move (nothing is served in between). */
static int dsm_copy(const char *call, void *shared, void *priv, size_t n, int write)
{
    int rc = kumi_dsm_usable(call);

    if (rc != KUMI_OK)
        return rc;
    if (n == 0)
        return KUMI_OK;
    if (priv == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, call, "private buffer is NULL");
    if ((rc = dsm_range(call, shared, n)) != KUMI_OK)
        return rc;
    uint8_t *s = shared, *q = priv;
    while (n > 0) {
        uint64_t off  = (uint64_t)((uintptr_t)s - kumi_dsm_g.base);
        size_t   room = KUMI_DSM_LINE - (off & (KUMI_DSM_LINE - 1));
        size_t   k    = n < room ? n : room;

        if ((rc = kumi_dsm_line(call, off, write)) != KUMI_OK)
            return rc;
        if (write)
            memcpy(s, q, k);
        else
            memcpy(q, s, k);
        s += k;
        q += k;
        n -= k;
    }
    return KUMI_OK;
}

int kumi_dsm_read(void *dst, const void *shared_src, size_t n)
{
    return dsm_copy("kumi_dsm_read", (void *)(uintptr_t)shared_src, dst, n, 0);
}

int kumi_dsm_write(void *shared_dst, const void *src, size_t n)
{
    return dsm_copy("kumi_dsm_write", shared_dst, (void *)(uintptr_t)src, n, 1);
}

/* 1 when the state bytes [s, e) are all E (write) or all S or E (read). */
static int lines_ready(const uint8_t *s, const uint8_t *e, int write)
{
    /* eight lines a step: E everywhere for a write; for a read every byte
     * S (1) or E (2), i.e. byte - 1 in {0, 1} (an I byte borrows and shows
     * as 0xff, a transient state as >= 2) */
    const uint64_t ones = 0x0101010101010101ull;
    for (; e - s >= 8; s += 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        if (write ? w != 2 * ones : ((w - ones) & 0xfefefefefefefefeull) != 0)
            return 0;
    }
    for (; s < e; s++)
        if (write ? *s != KUMI_DSM_E : *s != KUMI_DSM_S && *s != KUMI_DSM_E)
            return 0;
    return 1;
}

int kumi_dsm_ready(uintptr_t lo, uintptr_t hi, int write)
{
    uintptr_t base = kumi_dsm_g.base, end = base + kumi_dsm_g.size;

    if (hi <= lo || hi <= base || lo >= end)
        return 1;   /* empty, or private memory: nothing to check */
    if (lo < base || hi > end)
        return 0;
    /* page by page: a page whose summary says "all E" (or, for a read,
     * "all S or E") skips its 64 state bytes, eight pages a step; the
     * lines of the others are tested */
    const uint64_t o0 = lo - base, o1 = hi - 1 - base, ones = 0x0101010101010101ull;
    const uint64_t p1 = o1 >> KUMI_DSM_PAGE_SHIFT;
    const uint8_t *ps = kumi_dsm_g.pstate;
    for (uint64_t p = o0 >> KUMI_DSM_PAGE_SHIFT; p <= p1;) {
        if (p1 - p >= 8) {
            uint64_t w;
            memcpy(&w, ps + p, 8);
            /* bytes are 0, 1 or 2: nonzero when bit 0 or bit 1 is set */
            if (write ? w == ones * KUMI_DSM_PSTATE_ALL_E : ((w | w >> 1) & ones) == ones) {
                p += 8;
                continue;
            }
        }
        if (write ? ps[p] != KUMI_DSM_PSTATE_ALL_E : ps[p] == 0) {
            uint64_t a = p << KUMI_DSM_PAGE_SHIFT, b = a + (1u << KUMI_DSM_PAGE_SHIFT) - 1;
            if (a < o0)
                a = o0;
            if (b > o1)
                b = o1;
            if (!lines_ready(kumi_dsm_g.state + (a >> KUMI_DSM_LINE_SHIFT),
                             kumi_dsm_g.state + (b >> KUMI_DSM_LINE_SHIFT) + 1, write))
                return 0;
        }
        p++;
    }
    return 1;
}

/* memmove for translated code when both pointers may be DSM (either may
 * also be private at run time). Acquiring both ranges and then copying is
 * not enough: the second acquire may serve a request that takes a line of
 * the first range. Instead each chunk moves through a private bounce buffer
 * with dsm_copy (each line made valid right before its bytes move); chunks
 * go forward when dst <= src and backward otherwise, and a chunk is read
 * whole before it is written, so overlapping ranges copy as memmove does. */
void kumi_dsm_memmove(void *dst, const void *src, size_t n)
{
    static const char call[] = "kumi_dsm_memmove";
    unsigned char     buf[4096];
    uint8_t          *d = dst;
    const uint8_t    *s = src;
    int               back = (uintptr_t)d > (uintptr_t)s;

    for (size_t done = 0; done < n;) {
        size_t k   = n - done < sizeof buf ? n - done : sizeof buf;
        size_t at  = back ? n - done - k : done;
        int    rc  = KUMI_OK;

        if (kumi_dsm_in(s + at))
            rc = dsm_copy(call, (void *)(uintptr_t)(s + at), buf, k, 0);
        else
            memcpy(buf, s + at, k);
        if (rc == KUMI_OK && kumi_dsm_in(d + at))
            rc = dsm_copy(call, d + at, buf, k, 1);
        else if (rc == KUMI_OK)
            memcpy(d + at, buf, k);
        if (rc != KUMI_OK)
            miss_abort(kumi_dsm_in(s + at) ? (const void *)(s + at) : (const void *)(d + at),
                       kumi_dsm_in(d + at), rc);
        done += k;
    }
}

int kumi_dsm_acquire(const void *p, size_t n, int mode)
{
    static const char call[] = "kumi_dsm_acquire";
    int               rc = kumi_dsm_usable(call);

    if (rc != KUMI_OK)
        return rc;
    if (mode != KUMI_DSM_READ && mode != KUMI_DSM_WRITE && mode != (KUMI_DSM_READ | KUMI_DSM_WRITE))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "mode %d is not KUMI_DSM_READ or "
                             "KUMI_DSM_WRITE", mode);
    if (n == 0)
        return KUMI_OK;
    if ((rc = dsm_range(call, p, n)) != KUMI_OK)
        return rc;
    int      write = (mode & KUMI_DSM_WRITE) != 0;
    uint64_t first = ((uintptr_t)p - kumi_dsm_g.base) & ~(uint64_t)(KUMI_DSM_LINE - 1);
    uint64_t end   = (uintptr_t)p - kumi_dsm_g.base + n;
    /* a later line's miss may serve an invalidation of an earlier line:
     * repeat until one pass finds every line valid at once */
    for (int pass = 0;; pass++) {
        int missed = 0;
        for (uint64_t off = first; off < end; off += KUMI_DSM_LINE) {
            uint8_t st = kumi_dsm_g.state[off >> KUMI_DSM_LINE_SHIFT];
            if (write ? st == KUMI_DSM_E : (st == KUMI_DSM_S || st == KUMI_DSM_E))
                continue;
            missed = 1;
            if ((rc = kumi_dsm_line(call, off, write)) != KUMI_OK)
                return rc;
        }
        if (!missed)
            return KUMI_OK;
        if (pass > 1000)
            return kumi_rt_error(KUMI_ERR_TIMEOUT, call, "[%p, +%zu) did not stay valid "
                                 "over 1000 passes (other PEs keep taking it)", p, n);
    }
}

int kumi_dsm_stats(kumi_dsm_stats_t *out)
{
    int rc = kumi_rt_check_state("kumi_dsm_stats");

    if (rc != KUMI_OK)
        return rc;
    if (out == NULL)
        return kumi_rt_error(KUMI_ERR_INVALID, "kumi_dsm_stats", "out is NULL");
    *out = kumi_dsm.stats;
    return KUMI_OK;
}

