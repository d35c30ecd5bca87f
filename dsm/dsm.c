/*
 * dsm.c -- the DSM region, allocation, the inbox of coherence messages,
 * the explicit API (kumi_dsm_read/write/acquire/poll), misses, and
 * kumi_mutex.
 *
 * The region: KUMI_DSM_SIZE bytes at KUMI_DSM_BASE in every PE, reserved
 * with MAP_FIXED_NOREPLACE (a clear error if anything is mapped there),
 * then mapped privately from a small memfd full of the flag pattern, chunk
 * after chunk: every line of a fresh region reads as the flag (invalid)
 * without committing memory, and a page is copied only when written.
 * PE p allocates in slice p (KUMI_DSM_SIZE / P bytes) and is the home of
 * what it allocates, except block-distributed allocations (large ones,
 * kumi_dsm_malloc_dist): part k of those is homed at PE k, noted in a
 * table every PE holds (see "distributed allocations" below). No
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
#include <unistd.h>

#include "dsm_int.h"

struct kumi_dsm_g kumi_dsm_g;
struct kumi_dsm   kumi_dsm;

#define KUMI_DSM_FLAG_CHUNK ((size_t)2 << 20)   /* bytes of flag memfd */

/* ------------------------------------------------------------ allocator
 * First fit over a sorted array of free extents of my slice; live
 * allocations in a sorted array (offset -> size, block size) so any PE's
 * kumi_dsm_free can be checked and recalled at the home. */
struct kumi_dsm_ext {
    uint64_t off, len;
    unsigned bshift;
    int      dist;     /* live: block-distributed (kumi_dsm.dist) */
};
static struct {
    struct kumi_dsm_ext *free_ext, *live;
    size_t               nfree, nlive, cap_free, cap_live;
    uint64_t            *remote_frees;          /* offsets freed by other PEs */
    size_t               nremote, cap_remote;
} alloc;

static int ext_reserve(struct kumi_dsm_ext **a, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t               ncap = *cap ? *cap * 2 : 64;
    struct kumi_dsm_ext *n    = realloc(*a, ncap * sizeof(**a));
    if (n == NULL)
        return -1;
    *a   = n;
    *cap = ncap;
    return 0;
}

/* ----------------------------------------------------------------- inbox */

static void inbox_lock(void)
{
    while (__atomic_exchange_n(&kumi_dsm.lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&kumi_dsm.lock, __ATOMIC_RELAXED))
            sched_yield();
}
static void inbox_unlock(void)
{
    __atomic_store_n(&kumi_dsm.lock, 0, __ATOMIC_RELEASE);
}

void kumi_dsm_inbox_push(struct kumi_dsm_node *n)
{
    n->next = NULL;
    inbox_lock();
    if (kumi_dsm.in_tail != NULL)
        kumi_dsm.in_tail->next = n;
    else
        __atomic_store_n(&kumi_dsm.in_head, n, __ATOMIC_RELAXED);
    kumi_dsm.in_tail = n;
    inbox_unlock();
}

/* The active-message handler: copy and queue; the main thread drains. */
static void dsm_am(struct kumi_tp *tp, int src, const void *payload, size_t len, void *arg)
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
            kumi_dsm.asm_node[src] = a;
        }
        memcpy(a->data + m->part_off, d, m->len);
        a->parts++;
        if (m->type == KUMI_DSM_MSG_PART)
            return;
        kumi_dsm.asm_node[src] = NULL;
        a->src      = src;
        a->msg      = *m;
        a->msg.len  = m->part_off + m->len;
        a->msg.part_off = 0;
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

static void dist_add_msg(const struct kumi_dsm_node *n);
static void dist_free_msg(const struct kumi_dsm_node *n);
static void dist_free_retry(void);
static void size_msg(const struct kumi_dsm_node *n);
static struct {
    struct { uint64_t off; int src; } *v;   /* DIST_FREEs whose part is busy */
    size_t n, cap;
} dfree;

static void remote_free_note(uint64_t off)
{
    if (alloc.nremote == alloc.cap_remote) {
        size_t    ncap = alloc.cap_remote ? alloc.cap_remote * 2 : 16;
        uint64_t *n    = realloc(alloc.remote_frees, ncap * sizeof(*n));
        if (n == NULL)
            kumi_rt_abort("dsm: out of memory recording a free");
        alloc.remote_frees = n;
        alloc.cap_remote   = ncap;
    }
    alloc.remote_frees[alloc.nremote++] = off;
}

int kumi_dsm_drain(void)
{
    int handled = 0;

    if (!kumi_dsm.up || kumi_dsm.draining
        || __atomic_load_n(&kumi_dsm.in_head, __ATOMIC_RELAXED) == NULL)
        return 0;
    kumi_dsm.draining = 1;
    for (;;) {
        inbox_lock();
        struct kumi_dsm_node *n = kumi_dsm.in_head;
        __atomic_store_n(&kumi_dsm.in_head, NULL, __ATOMIC_RELAXED);
        kumi_dsm.in_tail = NULL;
        inbox_unlock();
        if (n == NULL)
            break;
        while (n != NULL) {
            struct kumi_dsm_node *next = n->next;
            handled++;
            if (n->msg.type == KUMI_DSM_MSG_FREE) {
                remote_free_note(n->msg.off);
                kumi_dsm_send(n->src, KUMI_DSM_MSG_FREE_ACK, n->src, 0, 0, n->msg.off, 0, NULL, 0);
                free(n);
            } else if (n->msg.type == KUMI_DSM_MSG_FREE_ACK) {
                __atomic_store_n(&kumi_dsm.free_acked, 1, __ATOMIC_RELEASE);
                free(n);
            } else if (n->msg.type >= KUMI_DSM_MSG_DIST_ADD
                       && n->msg.type <= KUMI_DSM_MSG_SIZE_ACK) {
                switch (n->msg.type) {
                case KUMI_DSM_MSG_DIST_ADD:  dist_add_msg(n); break;
                case KUMI_DSM_MSG_DIST_FREE: dist_free_msg(n); break;
                case KUMI_DSM_MSG_DIST_ACK:  kumi_dsm.dist_acks++; break;
                case KUMI_DSM_MSG_SIZE:      size_msg(n); break;
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
                inbox_lock();
                last->next = kumi_dsm.in_head;
                if (kumi_dsm.in_tail == NULL)
                    kumi_dsm.in_tail = last;
                __atomic_store_n(&kumi_dsm.in_head, n, __ATOMIC_RELAXED);
                inbox_unlock();
                break;
            }
        }
        if (kumi_dsm.pend.done)
            break;
    }
    if (dfree.n != 0)
        dist_free_retry();
    kumi_dsm.draining = 0;
    return handled;
}

static int dsm_poll_hook(void)
{
    return kumi_dsm_drain();
}

/* ------------------------------------------------------ region set-up */

static int setup_fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int setup_fail(int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(kumi_dsm.setup_err, sizeof kumi_dsm.setup_err, fmt, ap);
    va_end(ap);
    kumi_dsm.setup_rc = rc;
    return rc;
}

static void dsm_unmap(void)
{
    if (kumi_dsm.base != NULL)
        munmap(kumi_dsm.base, kumi_dsm.size);
    if (kumi_dsm_g.state != NULL)
        munmap(kumi_dsm_g.state, kumi_dsm.state_bytes);
    if (kumi_dsm.dir != NULL)
        munmap(kumi_dsm.dir, kumi_dsm.dir_bytes);
    kumi_dsm.base     = NULL;
    kumi_dsm_g.state  = NULL;
    kumi_dsm_g.pstate = NULL;
    kumi_dsm.hint     = NULL;
    kumi_dsm.dir      = NULL;
}

static int dsm_map(void)
{
    uint64_t base = kumi_rt.cfg.dsm_base;
    size_t   size = (size_t)kumi_rt.cfg.dsm_size;
    int      npes = kumi_rt.size;

    if (base % KUMI_DSM_FLAG_CHUNK != 0)
        return setup_fail(KUMI_ERR_INVALID, "KUMI_DSM_BASE=0x%llx is not a multiple of 2 MiB",
                          (unsigned long long)base);
    size = (size + KUMI_DSM_FLAG_CHUNK - 1) / KUMI_DSM_FLAG_CHUNK * KUMI_DSM_FLAG_CHUNK;
    kumi_dsm.slice = size / (size_t)npes / KUMI_DSM_BLOCK_MAX * KUMI_DSM_BLOCK_MAX;
    if (kumi_dsm.slice < KUMI_DSM_BLOCK_MAX)
        return setup_fail(KUMI_ERR_INVALID, "KUMI_DSM_SIZE=%zu leaves less than 4 KiB per PE "
                          "for %d PEs", size, npes);
    void *p = mmap((void *)(uintptr_t)base, size, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED || p != (void *)(uintptr_t)base) {
        int err = p == MAP_FAILED ? errno : EEXIST;
        if (p != MAP_FAILED)
            munmap(p, size);   /* an old kernel ignored the flag: not our address */
        return setup_fail(KUMI_ERR_NOMEM,
                          "cannot reserve the DSM region 0x%llx-0x%llx (KUMI_DSM_BASE, "
                          "KUMI_DSM_SIZE): %s; something else is mapped there, choose "
                          "another KUMI_DSM_BASE", (unsigned long long)base,
                          (unsigned long long)(base + size),
                          err == EEXIST ? "the range is taken" : strerror(err));
    }
    kumi_dsm.base = p;
    kumi_dsm.size = size;

    /* the flag pattern, mapped copy-on-write over the whole region */
    int fd = memfd_create("kumi-dsm-flag", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)KUMI_DSM_FLAG_CHUNK) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        dsm_unmap();
        return setup_fail(KUMI_ERR_NOMEM, "memfd for the DSM flag pattern: %s", strerror(err));
    }
    uint64_t *w = mmap(NULL, KUMI_DSM_FLAG_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (w == MAP_FAILED) {
        int err = errno;
        close(fd);
        dsm_unmap();
        return setup_fail(KUMI_ERR_NOMEM, "mapping the DSM flag pattern: %s", strerror(err));
    }
    for (size_t i = 0; i < KUMI_DSM_FLAG_CHUNK / 8; i++)
        w[i] = KUMI_DSM_FLAG64;
    munmap(w, KUMI_DSM_FLAG_CHUNK);
    for (size_t off = 0; off < size; off += KUMI_DSM_FLAG_CHUNK) {
        void *q = mmap(kumi_dsm.base + off, KUMI_DSM_FLAG_CHUNK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_FIXED | MAP_NORESERVE, fd, 0);
        if (q == MAP_FAILED) {
            int err = errno;
            close(fd);
            dsm_unmap();
            return setup_fail(KUMI_ERR_NOMEM, "mapping the DSM region at %p: %s (more "
                              "than vm.max_map_count mappings? lower KUMI_DSM_SIZE)",
                              (void *)(kumi_dsm.base + off), strerror(err));
        }
    }
    close(fd);

    /* the line states, then the page summary (pstate); +8 after each:
     * the translator's loop test reads the states of up to eight lines or
     * pages as one 8-byte word, which may run past the last */
    size_t lines = size >> KUMI_DSM_LINE_SHIFT;
    kumi_dsm.state_bytes = lines + 8 + (size >> KUMI_DSM_PAGE_SHIFT) + 8 + lines;
    void *st = mmap(NULL, kumi_dsm.state_bytes, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    kumi_dsm.sharer_words = (unsigned)((npes + 63) / 64);
    kumi_dsm.dir_stride   = sizeof(struct kumi_dsm_dir) + 8u * kumi_dsm.sharer_words;
    /* an entry per line of the whole region: a PE homes parts of other
     * PEs' distributed allocations too (reserved, touched where homed) */
    kumi_dsm.dir_bytes    = lines * kumi_dsm.dir_stride;
    void *dir = mmap(NULL, kumi_dsm.dir_bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (st == MAP_FAILED || dir == MAP_FAILED) {
        int err = errno;
        if (st != MAP_FAILED)
            munmap(st, kumi_dsm.state_bytes);
        if (dir != MAP_FAILED)
            munmap(dir, kumi_dsm.dir_bytes);
        dsm_unmap();
        return setup_fail(KUMI_ERR_NOMEM, "DSM state tables: %s", strerror(err));
    }
    kumi_dsm_g.state  = st;
    kumi_dsm_g.pstate = (uint8_t *)st + lines + 8;
    kumi_dsm.hint     = kumi_dsm_g.pstate + (size >> KUMI_DSM_PAGE_SHIFT) + 8;
    kumi_dsm.dir      = dir;
    return KUMI_OK;
}

static void dsm_fini(void);
static void dsm_print_stats(void);
static int  dsm_init(void);
static struct kumi_rt_layer dsm_layer = { .name = "dsm", .init = dsm_init };

static int dsm_init(void)
{
    memset(&kumi_dsm, 0, sizeof kumi_dsm);
    memset(&alloc, 0, sizeof alloc);
    memset(&dfree, 0, sizeof dfree);
    kumi_dsm.me   = kumi_rt.rank;
    kumi_dsm.npes = kumi_rt.size;
    kumi_dsm.dist_min = kumi_rt.cfg.dsm_dist_min;
    kumi_dsm.dist_bshift = (unsigned)__builtin_ctzll(kumi_rt.cfg.dsm_dist_block);
    kumi_dsm.stage = calloc((size_t)kumi_rt.size, sizeof(*kumi_dsm.stage));
    kumi_dsm.asm_node = calloc((size_t)kumi_rt.size, sizeof(*kumi_dsm.asm_node));
    kumi_dsm.dist_in_slice = calloc((size_t)kumi_rt.size, sizeof(*kumi_dsm.dist_in_slice));
    if (kumi_dsm.stage == NULL || kumi_dsm.asm_node == NULL || kumi_dsm.dist_in_slice == NULL)
        return setup_fail(KUMI_ERR_NOMEM, "out of memory");
    /* a region that cannot be reserved is reported by the first DSM call,
     * not by kumi_init: programs without DSM must still run */
    if (dsm_map() != KUMI_OK) {
        kumi_rt_log(KUMI_LOG_INFO, "dsm: %s", kumi_dsm.setup_err);
    } else {
        alloc.free_ext = malloc(64 * sizeof(*alloc.free_ext));
        if (alloc.free_ext == NULL) {
            dsm_unmap();
            return setup_fail(KUMI_ERR_NOMEM, "out of memory");
        }
        alloc.cap_free    = 64;
        alloc.nfree       = 1;
        alloc.free_ext[0] = (struct kumi_dsm_ext){ (uint64_t)kumi_dsm.me * kumi_dsm.slice,
                                                   kumi_dsm.slice, 0, 0 };
        kumi_dsm.up = 1;
        kumi_dsm_g.base = (uintptr_t)kumi_dsm.base;
        kumi_dsm_g.size = kumi_dsm.size;
    }
    /* registered even without a region: requests are then refused, not lost */
    kumi_tp_am_register(&kumi_rt.tp, KUMI_RT_AM_DSM, dsm_am, NULL);
    __atomic_store_n(&dsm_layer.poll, dsm_poll_hook, __ATOMIC_RELAXED);
    dsm_layer.fini   = dsm_fini;
    dsm_layer.report = dsm_print_stats;
    return KUMI_OK;
}

/* KUMI_DSM_STATS=1: one line per PE that used the DSM */
static void dsm_print_stats(void)
{
    const kumi_dsm_stats_t *st = &kumi_dsm.stats;

    if (!kumi_rt.cfg.dsm_stats || !kumi_dsm.up)
        return;
    if (st->read_misses + st->write_misses + st->upgrades + st->msgs_sent + st->msgs_received == 0)
        return;
    fprintf(stderr, "kumi: dsm stats PE %d: read_misses=%llu write_misses=%llu upgrades=%llu "
            "msgs_sent=%llu msgs_received=%llu bytes_sent=%llu invalidations=%llu "
            "forwards=%llu deferred=%llu stale=%llu rfo=%llu rfo_written=%llu\n", kumi_dsm.me,
            (unsigned long long)st->read_misses, (unsigned long long)st->write_misses,
            (unsigned long long)st->upgrades, (unsigned long long)st->msgs_sent,
            (unsigned long long)st->msgs_received, (unsigned long long)st->bytes_sent,
            (unsigned long long)st->invalidations, (unsigned long long)st->forwards,
            (unsigned long long)st->deferred, (unsigned long long)st->stale,
            (unsigned long long)kumi_dsm.rfo, (unsigned long long)kumi_dsm.xclean_wr);
}

static void dsm_fini(void)
{
    /* the handler stays registered and drops what still arrives */
    __atomic_store_n(&kumi_dsm.closing, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&dsm_layer.poll, NULL, __ATOMIC_RELAXED);
    dsm_layer.report = NULL;
    memset(&kumi_dsm_g, 0, sizeof kumi_dsm_g);
    inbox_lock();
    struct kumi_dsm_node *n = kumi_dsm.in_head;
    __atomic_store_n(&kumi_dsm.in_head, NULL, __ATOMIC_RELAXED);
    kumi_dsm.in_tail = NULL;
    inbox_unlock();
    while (n != NULL) {
        struct kumi_dsm_node *next = n->next;
        free(n);
        n = next;
    }
    for (n = kumi_dsm.def_head; n != NULL;) {
        struct kumi_dsm_node *next = n->next;
        free(n);
        n = next;
    }
    kumi_dsm.def_head = kumi_dsm.def_tail = NULL;
    if (kumi_dsm.stage != NULL)
        for (int i = 0; i < kumi_dsm.npes; i++)
            free(kumi_dsm.stage[i]);
    free(kumi_dsm.stage);
    kumi_dsm.stage = NULL;
    if (kumi_dsm.asm_node != NULL)
        for (int i = 0; i < kumi_dsm.npes; i++)
            free(kumi_dsm.asm_node[i]);
    free(kumi_dsm.asm_node);
    kumi_dsm.asm_node = NULL;
    dsm_unmap();
    free(alloc.free_ext);
    free(alloc.live);
    free(alloc.remote_frees);
    memset(&alloc, 0, sizeof alloc);
    free(kumi_dsm.dist);
    free(kumi_dsm.dist_in_slice);
    kumi_dsm.dist          = NULL;
    kumi_dsm.dist_in_slice = NULL;
    kumi_dsm.ndist = kumi_dsm.cap_dist = 0;
    free(dfree.v);
    memset(&dfree, 0, sizeof dfree);
    kumi_dsm.up = 0;
}

__attribute__((constructor)) static void dsm_register(void)
{
    kumi_rt_layer_add(&dsm_layer);
}

/* KUMI_OK if the DSM can be used by call, else the reported error. */
static int dsm_ready(const char *call)
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
            kumi_rt.tp.ops->progress(&kumi_rt.tp);
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
static int dsm_line(const char *call, uint64_t off, int write)
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
    kumi_dsm_cpu_event(line, write ? KUMI_DSM_STORE : KUMI_DSM_LOAD);
    int rc = miss_wait(call);
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

    if (p == NULL || a - kumi_dsm_g.base >= kumi_dsm_g.size
        || n > kumi_dsm_g.size - (a - kumi_dsm_g.base))
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
        rc = dsm_line("kumi_dsm_load", off, 0);
        if (rc == KUMI_OK && kumi_dsm_crosses(p, w))
            rc = dsm_line("kumi_dsm_load", off + w - 1, 0);
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
        int rc = dsm_line("kumi_dsm_store", off, 1);
        if (rc == KUMI_OK && kumi_dsm_crosses(p, w))
            rc = dsm_line("kumi_dsm_store", off + w - 1, 1);
        if (rc != KUMI_OK)
            miss_abort(p, 1, rc);
        if (kumi_dsm_state_of(p) == KUMI_DSM_E)
            return;
    }
}

/* ------------------------------------------------------------------ API */

int kumi_dsm_is_shared(const void *p)
{
    return kumi_dsm_in(p);
}

void kumi_dsm_poll(void)
{
    if (kumi_rt.state != 1 || !kumi_dsm.up)
        return;
    kumi_rt.tp.ops->progress(&kumi_rt.tp);
    kumi_dsm_drain();
    if (kumi_rt_bind_poll_hook != NULL)   /* a binding's requests (OpenMP's stdio) */
        kumi_rt_bind_poll_hook();
}

/* Copies between DSM and private memory line by line, each line made
 * valid right before its bytes move (nothing is served in between). */
static int dsm_copy(const char *call, void *shared, void *priv, size_t n, int write)
{
    int rc = dsm_ready(call);

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

        if ((rc = dsm_line(call, off, write)) != KUMI_OK)
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
    int               rc = dsm_ready(call);

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
            if ((rc = dsm_line(call, off, write)) != KUMI_OK)
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

/* ------------------------------------------------------------ allocation */

static void live_insert(uint64_t off, uint64_t len, unsigned bshift, int dist)
{
    size_t i = alloc.nlive;

    while (i > 0 && alloc.live[i - 1].off > off) {
        alloc.live[i] = alloc.live[i - 1];
        i--;
    }
    alloc.live[i] = (struct kumi_dsm_ext){ off, len, bshift, dist };
    alloc.nlive++;
}

static ssize_t live_find(uint64_t off)
{
    size_t lo = 0, hi = alloc.nlive;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (alloc.live[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < alloc.nlive && alloc.live[lo].off == off ? (ssize_t)lo : -1;
}

static void free_insert(uint64_t off, uint64_t len)
{
    size_t i = 0;

    while (i < alloc.nfree && alloc.free_ext[i].off < off)
        i++;
    /* merge with the neighbours */
    int left  = i > 0 && alloc.free_ext[i - 1].off + alloc.free_ext[i - 1].len == off;
    int right = i < alloc.nfree && off + len == alloc.free_ext[i].off;
    if (left && right) {
        alloc.free_ext[i - 1].len += len + alloc.free_ext[i].len;
        memmove(&alloc.free_ext[i], &alloc.free_ext[i + 1],
                (alloc.nfree - i - 1) * sizeof(alloc.free_ext[0]));
        alloc.nfree--;
    } else if (left) {
        alloc.free_ext[i - 1].len += len;
    } else if (right) {
        alloc.free_ext[i].off = off;
        alloc.free_ext[i].len += len;
    } else {
        /* a new extent: room for it first (T6: frees from other PEs overran it) */
        if (ext_reserve(&alloc.free_ext, &alloc.cap_free, alloc.nfree + 1) != 0)
            kumi_rt_abort("dsm: out of memory recording a free extent");
        memmove(&alloc.free_ext[i + 1], &alloc.free_ext[i],
                (alloc.nfree - i) * sizeof(alloc.free_ext[0]));
        alloc.free_ext[i] = (struct kumi_dsm_ext){ off, len, 0, 0 };
        alloc.nfree++;
    }
}

/* Takes every block of a live allocation back to the home exclusively
 * (invalidating all copies), then frees it. Runs the protocol: blocks.
 * A distributed allocation was settled by its DIST_FREE (every PE dropped
 * its copies and its part's directory): its range is only given back. */
static int recall_and_free(const char *call, size_t idx)
{
    struct kumi_dsm_ext x   = alloc.live[idx];
    uint64_t            bsz = (uint64_t)1 << x.bshift;

    /* until one pass finds every block exclusive here with its directory
     * settled (my own DONE may still wait in the inbox) */
    for (int pass = 0; !x.dist; pass++) {
        int busy = 0;
        for (uint64_t b = x.off; b < x.off + x.len; b += bsz) {
            struct kumi_dsm_dir *e = kumi_dsm_dir_at(b);
            if (e->state == KUMI_DSM_EXCL_HOME && e->deferred == 0
                && kumi_dsm_g.state[b >> KUMI_DSM_LINE_SHIFT] == KUMI_DSM_E)
                continue;
            busy = 1;
            int rc = dsm_line(call, b, 1);
            if (rc != KUMI_OK)
                return rc;
        }
        if (!busy)
            break;
        kumi_dsm_poll();
        if (pass > 1000)
            return kumi_rt_error(KUMI_ERR_STATE, call, "%p is still in use by other PEs",
                                 (void *)(kumi_dsm.base + x.off));
    }
    if (!x.dist)
        for (uint64_t l = x.off; l < x.off + x.len; l += KUMI_DSM_LINE)
            kumi_dsm_dir_at(l)->bshift = 0;
    memmove(&alloc.live[idx], &alloc.live[idx + 1], (alloc.nlive - idx - 1) * sizeof(alloc.live[0]));
    alloc.nlive--;
    free_insert(x.off, x.len);
    return KUMI_OK;
}

static void apply_remote_frees(const char *call)
{
    while (alloc.nremote > 0) {
        uint64_t off = alloc.remote_frees[--alloc.nremote];
        ssize_t  i   = live_find(off);
        if (i < 0) {
            kumi_rt_error(KUMI_ERR_INVALID, "kumi_dsm_free", "%p (freed by another PE) is not "
                          "an allocation of PE %d", (void *)(kumi_dsm.base + off), kumi_dsm.me);
            continue;
        }
        recall_and_free(call, (size_t)i);
    }
}

/* ------------------------------------------------ distributed allocations
 * An allocation of len bytes (block size 1 << bshift) is cut into P parts
 * of part = ceil(len / P) bytes rounded up to the block; part k is homed at
 * PE k (absolute: OpenMP's static schedule gives thread k the k-th part of
 * the iterations). The address range comes from the allocating PE's slice
 * (first fit, 4 KiB aligned). The allocator sends DIST_ADD to every PE
 * (itself included) and returns when all answered, so the table is the same
 * everywhere before anyone can know the address: each PE notes the entry,
 * the home of part k sets up its part's directory (EXCL_HOME, its copy E,
 * zeroed for calloc) and every other PE drops any copy it still had of the
 * range. A free (by any PE) sends DIST_FREE to every PE and waits for all:
 * each home waits until its part's directory is settled (no transaction in
 * flight), clears it, and every PE drops its copies of the range and the
 * entry; then the range goes back to the allocator as any free does. */

static ssize_t dist_index(uint64_t off)
{
    size_t lo = 0, hi = kumi_dsm.ndist;

    while (lo < hi) {   /* the first entry starting after off */
        size_t mid = (lo + hi) / 2;
        if (kumi_dsm.dist[mid].off <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    const struct kumi_dsm_dist *d = &kumi_dsm.dist[lo - 1];
    return off - d->off < d->len ? (ssize_t)(lo - 1) : -1;
}

int kumi_dsm_dist_home(uint64_t off, int s)
{
    ssize_t i = dist_index(off);

    if (i < 0)
        return s;
    const struct kumi_dsm_dist *d = &kumi_dsm.dist[i];
    uint64_t                    k = (off - d->off) / d->part;
    return k < (uint64_t)kumi_dsm.npes ? (int)k : kumi_dsm.npes - 1;
}

int kumi_dsm_home(const void *p)
{
    if (!kumi_dsm.up || !kumi_dsm_in(p))
        return -1;
    return kumi_dsm_home_of((uint64_t)((uintptr_t)p - kumi_dsm_g.base));
}

/* Part k of d: [*lo, *hi), empty when *lo >= *hi. */
static void dist_part(const struct kumi_dsm_dist *d, int k, uint64_t *lo, uint64_t *hi)
{
    uint64_t end = d->off + d->len;

    *lo = d->off + (uint64_t)k * d->part;
    if (*lo > end)
        *lo = end;
    *hi = *lo + d->part < end ? *lo + d->part : end;
}

/* The line at off holds the flag pattern afterwards; a page that holds it
 * already is not written (not committed). */
static void flag_line(uint64_t off)
{
    uint64_t *w = (uint64_t *)(kumi_dsm.base + off);

    for (unsigned i = 0; i < KUMI_DSM_LINE / 8; i++)
        if (w[i] != KUMI_DSM_FLAG64) {
            kumi_dsm_flag_fill(off, KUMI_DSM_LINE_SHIFT);
            return;
        }
}

/* Drops my copies of the lines of [lo, hi): invalid (flag) afterwards.
 * Only for memory nobody uses (a new or freed allocation). */
static void drop_copies(uint64_t lo, uint64_t hi)
{
    uint8_t *st      = kumi_dsm_g.state;
    int      changed = 0;

    for (uint64_t l = lo; l < hi; l += KUMI_DSM_LINE) {
        uint64_t i = l >> KUMI_DSM_LINE_SHIFT, w;
        if ((i & 7) == 0 && hi - l >= 8 * KUMI_DSM_LINE) {
            memcpy(&w, st + i, 8);
            if (w == 0) {   /* eight lines I */
                l += 7 * KUMI_DSM_LINE;
                continue;
            }
        }
        if (st[i] == KUMI_DSM_I || (kumi_dsm.pend.active && kumi_dsm.pend.line == l))
            continue;
        flag_line(l);
        st[i]   = KUMI_DSM_I;
        changed = 1;
    }
    if (changed)
        kumi_dsm_pstate_sync(lo, hi - lo);
}

static void dist_insert(const struct kumi_dsm_dist *d)
{
    if (kumi_dsm.ndist == kumi_dsm.cap_dist) {
        size_t                ncap = kumi_dsm.cap_dist ? kumi_dsm.cap_dist * 2 : 16;
        struct kumi_dsm_dist *n    = realloc(kumi_dsm.dist, ncap * sizeof(*n));
        if (n == NULL)
            kumi_rt_abort("dsm: out of memory noting a distributed allocation");
        kumi_dsm.dist     = n;
        kumi_dsm.cap_dist = ncap;
    }
    size_t i = kumi_dsm.ndist;
    while (i > 0 && kumi_dsm.dist[i - 1].off > d->off) {
        kumi_dsm.dist[i] = kumi_dsm.dist[i - 1];
        i--;
    }
    kumi_dsm.dist[i] = *d;
    kumi_dsm.dist_in_slice[d->off / kumi_dsm.slice]++;
    kumi_dsm.ndist++;
}

static void dist_add_msg(const struct kumi_dsm_node *n)
{
    struct kumi_dsm_dist_msg a;
    int                      me = kumi_dsm.me;

    if (n->msg.len != sizeof a)
        kumi_dsm_violation("DIST_ADD of the wrong length", n->src, n->msg.off, KUMI_DSM_DIR, 0,
                           n->msg.type);
    memcpy(&a, n->data, sizeof a);
    struct kumi_dsm_dist d = { n->msg.off, a.len, a.part, n->msg.bshift };
    if (d.bshift < KUMI_DSM_MIN_BSHIFT || d.bshift > KUMI_DSM_MAX_BSHIFT || d.part == 0
        || d.part * (uint64_t)kumi_dsm.npes < d.len || d.off + d.len > kumi_dsm.size
        || dist_index(d.off) >= 0 || dist_index(d.off + d.len - 1) >= 0)
        kumi_dsm_violation("bad DIST_ADD", n->src, n->msg.off, KUMI_DSM_DIR, 0, n->msg.type);
    dist_insert(&d);
    kumi_dsm_hint_clear(d.off, d.len);
    uint64_t lo, hi;
    dist_part(&d, me, &lo, &hi);
    drop_copies(d.off, lo);
    drop_copies(hi, d.off + d.len);
    if (lo < hi) {
        for (uint64_t l = lo; l < hi; l += KUMI_DSM_LINE) {
            struct kumi_dsm_dir *e = kumi_dsm_dir_at(l);
            memset(e, 0, kumi_dsm.dir_stride);
            e->state   = KUMI_DSM_EXCL_HOME;
            e->bshift  = (uint8_t)d.bshift;
            e->owner   = me;
            e->pending = -1;
        }
        memset(kumi_dsm_g.state + (lo >> KUMI_DSM_LINE_SHIFT), KUMI_DSM_E,
               (hi - lo) >> KUMI_DSM_LINE_SHIFT);
        kumi_dsm_pstate_sync(lo, hi - lo);
        if (a.zero)
            memset(kumi_dsm.base + lo, 0, hi - lo);
    }
    kumi_dsm_send(n->src, KUMI_DSM_MSG_DIST_ACK, n->src, 0, 0, d.off, 0, NULL, 0);
}

/* 1 when no transaction on my part of d is in flight (a requester's DONE
 * may still be on its way when another PE frees). */
static int dist_settled(const struct kumi_dsm_dist *d)
{
    uint64_t lo, hi, bsz = (uint64_t)1 << d->bshift;

    dist_part(d, kumi_dsm.me, &lo, &hi);
    for (uint64_t b = lo; b < hi; b += bsz) {
        const struct kumi_dsm_dir *e = kumi_dsm_dir_at(b);
        if (e->state == KUMI_DSM_BUSY_S || e->state == KUMI_DSM_BUSY_X || e->deferred != 0)
            return 0;
    }
    return 1;
}

static void dist_free_apply(size_t idx, int src)
{
    struct kumi_dsm_dist d = kumi_dsm.dist[idx];
    uint64_t             lo, hi;

    dist_part(&d, kumi_dsm.me, &lo, &hi);
    for (uint64_t l = lo; l < hi; l += KUMI_DSM_LINE)
        kumi_dsm_dir_at(l)->bshift = 0;
    drop_copies(d.off, d.off + d.len);
    memmove(&kumi_dsm.dist[idx], &kumi_dsm.dist[idx + 1],
            (kumi_dsm.ndist - idx - 1) * sizeof(kumi_dsm.dist[0]));
    kumi_dsm.ndist--;
    kumi_dsm.dist_in_slice[d.off / kumi_dsm.slice]--;
    kumi_dsm_send(src, KUMI_DSM_MSG_DIST_ACK, src, 0, 0, d.off, 0, NULL, 0);
}

static void dist_free_msg(const struct kumi_dsm_node *n)
{
    ssize_t i = dist_index(n->msg.off);

    if (i < 0 || kumi_dsm.dist[i].off != n->msg.off)
        kumi_dsm_violation("DIST_FREE of no distributed allocation", n->src, n->msg.off,
                           KUMI_DSM_DIR, 0, n->msg.type);
    if (dist_settled(&kumi_dsm.dist[i])) {
        dist_free_apply((size_t)i, n->src);
        return;
    }
    if (dfree.n == dfree.cap) {
        size_t ncap = dfree.cap ? dfree.cap * 2 : 8;
        void  *v    = realloc(dfree.v, ncap * sizeof(*dfree.v));
        if (v == NULL)
            kumi_rt_abort("dsm: out of memory recording a free");
        dfree.v   = v;
        dfree.cap = ncap;
    }
    dfree.v[dfree.n].off = n->msg.off;
    dfree.v[dfree.n].src = n->src;
    dfree.n++;
}

/* After a drain: the DIST_FREEs whose part has settled since. */
static void dist_free_retry(void)
{
    for (size_t j = 0; j < dfree.n;) {
        ssize_t i = dist_index(dfree.v[j].off);
        if (i >= 0 && !dist_settled(&kumi_dsm.dist[i])) {
            j++;
            continue;
        }
        if (i >= 0)
            dist_free_apply((size_t)i, dfree.v[j].src);
        dfree.v[j] = dfree.v[--dfree.n];
    }
}

/* Sends (type, off) to every PE, itself included, and waits for all acks. */
static int dist_all(const char *call, int type, uint64_t off, unsigned bshift, const void *data,
                    size_t len)
{
    __atomic_store_n(&kumi_dsm.dist_acks, 0, __ATOMIC_RELAXED);
    for (int pe = 0; pe < kumi_dsm.npes; pe++)
        kumi_dsm_send(pe, type, kumi_dsm.me, 0, 0, off, bshift, data, len);
    kumi_dsm_drain();   /* my own at once */
    return kumi_rt_wait(call, &kumi_dsm.dist_acks, 4, KUMI_CMP_GE, (uint64_t)kumi_dsm.npes);
}

/* ------------------------------------------------------- malloc and free */

static void *dsm_alloc(const char *call, size_t size, unsigned bshift, int dist, int zero)
{
    uint64_t bsz   = (uint64_t)1 << bshift;
    uint64_t align = dist && bsz < 4096 ? 4096 : bsz;

    if (dsm_ready(call) != KUMI_OK)
        return NULL;
    if (size == 0)
        return NULL;
    apply_remote_frees(call);
    if (kumi_dsm.npes == 1)
        dist = 0;
    if (size > kumi_dsm.slice)
        goto nomem;
    uint64_t len = (size + bsz - 1) & ~(bsz - 1);
    for (size_t i = 0; i < alloc.nfree; i++) {
        struct kumi_dsm_ext *f     = &alloc.free_ext[i];
        uint64_t             start = (f->off + align - 1) & ~(align - 1);
        if (start + len > f->off + f->len)
            continue;
        if (ext_reserve(&alloc.live, &alloc.cap_live, alloc.nlive + 1) != 0
            || ext_reserve(&alloc.free_ext, &alloc.cap_free, alloc.nfree + 2) != 0)
            goto nomem;
        f = &alloc.free_ext[i];
        /* split [f->off, start) | [start, start+len) | rest */
        uint64_t head = start - f->off, tail_off = start + len;
        uint64_t tail = f->off + f->len - tail_off;
        if (head == 0 && tail == 0) {
            memmove(f, f + 1, (alloc.nfree - i - 1) * sizeof(*f));
            alloc.nfree--;
        } else if (head == 0) {
            f->off = tail_off;
            f->len = tail;
        } else {
            f->len = head;
            if (tail != 0) {
                memmove(f + 2, f + 1, (alloc.nfree - i - 1) * sizeof(*f));
                f[1] = (struct kumi_dsm_ext){ tail_off, tail, 0, 0 };
                alloc.nfree++;
            }
        }
        live_insert(start, len, bshift, dist);
        if (dist) {
            uint64_t                 p    = (uint64_t)kumi_dsm.npes;
            uint64_t                 part = ((len + p - 1) / p + bsz - 1) & ~(bsz - 1);
            struct kumi_dsm_dist_msg a    = { .len = len, .part = part, .zero = zero != 0 };
            if (dist_all(call, KUMI_DSM_MSG_DIST_ADD, start, bshift, &a, sizeof a) != KUMI_OK)
                return NULL;   /* a peer died: the job is failing */
            return kumi_dsm.base + start;
        }
        for (uint64_t l = start; l < start + len; l += KUMI_DSM_LINE) {
            struct kumi_dsm_dir *e = kumi_dsm_dir_at(l);
            memset(e, 0, kumi_dsm.dir_stride);
            e->state   = KUMI_DSM_EXCL_HOME;
            e->bshift  = (uint8_t)bshift;
            e->owner   = kumi_dsm.me;
            e->pending = -1;
        }
        memset(kumi_dsm_g.state + (start >> KUMI_DSM_LINE_SHIFT), KUMI_DSM_E,
               len >> KUMI_DSM_LINE_SHIFT);
        kumi_dsm_hint_clear(start, len);
        kumi_dsm_pstate_sync(start, len);
        if (zero)
            memset(kumi_dsm.base + start, 0, size);   /* exclusive at its home: me */
        return kumi_dsm.base + start;
    }
nomem:
    kumi_rt_error(KUMI_ERR_NOMEM, call, "no room for %zu bytes in this PE's %zu-byte share "
                  "of the DSM region (KUMI_DSM_SIZE=%zu over %d PEs)", size, kumi_dsm.slice,
                  kumi_dsm.size, kumi_dsm.npes);
    return NULL;
}

static int block_shift(const char *call, size_t block_bytes, unsigned *bshift)
{
    if (block_bytes < 64 || block_bytes > KUMI_DSM_BLOCK_MAX || (block_bytes & (block_bytes - 1)))
        return kumi_rt_error(KUMI_ERR_INVALID, call, "block size %zu is not a power of two "
                             "from 64 to 4096", block_bytes);
    *bshift = (unsigned)__builtin_ctzll(block_bytes);
    return KUMI_OK;
}

static int dist_wanted(size_t size)
{
    return kumi_dsm.dist_min != 0 && size >= kumi_dsm.dist_min;
}

/* The coherence block of a new malloc/calloc allocation:
 * KUMI_DSM_DIST_BLOCK when it is distributed, else the line. */
static unsigned default_bshift(int dist)
{
    return dist ? kumi_dsm.dist_bshift : KUMI_DSM_LINE_SHIFT;
}

void *kumi_dsm_malloc_block(size_t size, size_t block_bytes)
{
    static const char call[] = "kumi_dsm_malloc";
    unsigned          bshift = KUMI_DSM_LINE_SHIFT;

    if (dsm_ready(call) != KUMI_OK || block_shift(call, block_bytes, &bshift) != KUMI_OK)
        return NULL;
    return dsm_alloc(call, size, bshift, 0, 0);
}

void *kumi_dsm_malloc(size_t size)
{
    int dist = dist_wanted(size);

    return dsm_alloc("kumi_dsm_malloc", size, default_bshift(dist), dist, 0);
}

void *kumi_dsm_malloc_dist(size_t size)
{
    return dsm_alloc("kumi_dsm_malloc_dist", size, default_bshift(1), 1, 0);
}

void *kumi_dsm_calloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size) {
        kumi_rt_error(KUMI_ERR_INVALID, "kumi_dsm_calloc", "%zu x %zu bytes overflows", n, size);
        return NULL;
    }
    int dist = dist_wanted(n * size);

    return dsm_alloc("kumi_dsm_calloc", n * size, default_bshift(dist), dist, 1);
}

void kumi_dsm_free(void *p)
{
    static const char call[] = "kumi_dsm_free";

    if (p == NULL || dsm_ready(call) != KUMI_OK)
        return;
    if (!kumi_dsm_in(p)) {
        kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not in the DSM region", p);
        return;
    }
    uint64_t off = (uint64_t)((uintptr_t)p - kumi_dsm_g.base);
    ssize_t  di  = dist_index(off);
    if (di >= 0) {
        if (kumi_dsm.dist[di].off != off) {
            kumi_rt_error(KUMI_ERR_INVALID, call, "%p is inside a DSM allocation, not its "
                          "start", p);
            return;
        }
        /* every PE settles and forgets it; then the range goes back to
         * the allocator below (the home of the whole range again) */
        if (dist_all(call, KUMI_DSM_MSG_DIST_FREE, off, 0, NULL, 0) != KUMI_OK)
            return;
    }
    int home = kumi_dsm_home_of(off);
    if (home != kumi_dsm.me) {
        /* a round trip: once it returns the home has noted the free, so
         * its next allocation (after a barrier, say) can reuse the space */
        __atomic_store_n(&kumi_dsm.free_acked, 0, __ATOMIC_RELAXED);
        kumi_dsm_send(home, KUMI_DSM_MSG_FREE, kumi_dsm.me, 0, 0, off, 0, NULL, 0);
        kumi_rt_wait(call, &kumi_dsm.free_acked, 4, KUMI_CMP_EQ, 1);
        return;
    }
    apply_remote_frees(call);
    ssize_t i = live_find(off);
    if (i < 0) {
        kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not a DSM allocation (already freed?)", p);
        return;
    }
    recall_and_free(call, (size_t)i);
}

/* The home's answer to MSG_SIZE (in the drain: no recall, no waiting). */
static void size_msg(const struct kumi_dsm_node *n)
{
    ssize_t  i   = live_find(n->msg.off);
    uint64_t len = i >= 0 ? alloc.live[i].len : 0;

    kumi_dsm_send(n->src, KUMI_DSM_MSG_SIZE_ACK, n->src, 0, 0, n->msg.off,
                  i >= 0 ? alloc.live[i].bshift : 0, &len, sizeof len);
}

void *kumi_dsm_realloc(void *p, size_t size)
{
    static const char call[] = "kumi_dsm_realloc";
    uint64_t          old;
    unsigned          bshift = KUMI_DSM_LINE_SHIFT;
    int               dist = 0;

    if (p == NULL)
        return kumi_dsm_malloc(size);
    if (dsm_ready(call) != KUMI_OK)
        return NULL;
    if (!kumi_dsm_in(p)) {
        kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not in the DSM region", p);
        return NULL;
    }
    if (size == 0) {
        kumi_dsm_free(p);
        return NULL;
    }
    uint64_t off = (uint64_t)((uintptr_t)p - kumi_dsm_g.base);
    ssize_t  di  = dist_index(off);
    if (di >= 0 && kumi_dsm.dist[di].off == off) {
        old    = kumi_dsm.dist[di].len;
        bshift = kumi_dsm.dist[di].bshift;
        dist   = 1;
    } else if (di < 0 && kumi_dsm_home_of(off) == kumi_dsm.me) {
        apply_remote_frees(call);
        ssize_t i = live_find(off);
        old    = i >= 0 ? alloc.live[i].len : 0;
        bshift = i >= 0 ? alloc.live[i].bshift : 0;
    } else if (di < 0) {
        __atomic_store_n(&kumi_dsm.size_acked, 0, __ATOMIC_RELAXED);
        kumi_dsm_send(kumi_dsm_home_of(off), KUMI_DSM_MSG_SIZE, kumi_dsm.me, 0, 0, off, 0,
                      NULL, 0);
        if (kumi_rt_wait(call, &kumi_dsm.size_acked, 4, KUMI_CMP_EQ, 1) != KUMI_OK)
            return NULL;
        old    = kumi_dsm.size_answer;
        bshift = kumi_dsm.size_bshift;
    } else {
        old = 0;
    }
    if (old == 0) {
        kumi_rt_error(KUMI_ERR_INVALID, call, "%p is not a DSM allocation (already freed?)", p);
        return NULL;
    }
    if (size <= old && size > old / 2)
        return p;   /* fits, and not much is wasted */
    if (!dist && dist_wanted(size) && bshift == KUMI_DSM_LINE_SHIFT)
        bshift = default_bshift(1);   /* becomes distributed */
    void *q = dsm_alloc(call, size, bshift, dist || dist_wanted(size), 0);
    if (q == NULL)
        return NULL;   /* p stays as it was */
    kumi_dsm_memmove(q, p, size < old ? size : old);
    kumi_dsm_free(p);
    return q;
}

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
    if (kumi_dsm_in(m))
        return kumi_dsm_in((uint8_t *)m + sizeof(*m) - 1) ? 1
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
        if ((rc = dsm_ready(call)) != KUMI_OK)
            return rc;
        kumi_dsm_poll();   /* a synchronization point serves waiting requests */
        uint64_t next_off = (uint64_t)((uintptr_t)&m->next - kumi_dsm_g.base);
        uint64_t serv_off = (uint64_t)((uintptr_t)&m->serving - kumi_dsm_g.base);
        if ((rc = dsm_line(call, next_off, 1)) != KUMI_OK)
            return rc;
        ticket = m->next++;   /* exclusive, and nothing is served in between */
        for (;;) {
            if ((rc = dsm_line(call, serv_off, 0)) != KUMI_OK)
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
        if ((rc = dsm_ready(call)) != KUMI_OK)
            return rc;
        uint64_t serv_off = (uint64_t)((uintptr_t)&m->serving - kumi_dsm_g.base);
        if ((rc = dsm_line(call, serv_off, 1)) != KUMI_OK)
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
