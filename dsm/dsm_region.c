/*
 * dsm_region.c -- the DSM region (see dsm.c): reserving and mapping it,
 * the layer's init, fini and statistics.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dsm_int.h"

#define KUMI_DSM_FLAG_CHUNK ((size_t)2 << 20)   /* bytes of flag memfd */

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

/* The layer's init (kumi_dsm_layer, dsm.c): sets up the region, then
 * installs the poll hook, fini and report. */
int kumi_dsm_layer_init(void)
{
    memset(&kumi_dsm, 0, sizeof kumi_dsm);
    kumi_dsm_alloc_reset();
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
        if (kumi_dsm_alloc_init() != KUMI_OK) {
            dsm_unmap();
            return setup_fail(KUMI_ERR_NOMEM, "out of memory");
        }
        kumi_dsm.up = 1;
        kumi_dsm_g.base = (uintptr_t)kumi_dsm.base;
        /* one PE: nothing to keep coherent, so the checks' span is empty
         * (every access check finds private memory; kumi_dsm_owns still
         * knows the region) */
        kumi_dsm_g.size = kumi_rt.size == 1 && kumi_rt.cfg.dsm_solo ? 0 : kumi_dsm.size;
    }
    /* registered even without a region: requests are then refused, not lost */
    kumi_tp_am_register(&kumi_rt.tp, KUMI_RT_AM_DSM, kumi_dsm_am, NULL);
    __atomic_store_n(&kumi_dsm_layer.poll, kumi_dsm_poll_hook, __ATOMIC_RELAXED);
    kumi_dsm_layer.fini   = dsm_fini;
    kumi_dsm_layer.report = dsm_print_stats;
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
            "forwards=%llu deferred=%llu stale=%llu rfo=%llu rfo_written=%llu miss_us=%llu "
            "polls=%llu polls_served=%llu\n", kumi_dsm.me,
            (unsigned long long)st->read_misses, (unsigned long long)st->write_misses,
            (unsigned long long)st->upgrades, (unsigned long long)st->msgs_sent,
            (unsigned long long)st->msgs_received, (unsigned long long)st->bytes_sent,
            (unsigned long long)st->invalidations, (unsigned long long)st->forwards,
            (unsigned long long)st->deferred, (unsigned long long)st->stale,
            (unsigned long long)kumi_dsm.rfo, (unsigned long long)kumi_dsm.xclean_wr,
            (unsigned long long)(kumi_dsm.miss_ns / 1000), (unsigned long long)kumi_dsm.polls,
            (unsigned long long)kumi_dsm.polls_served);
}

static void dsm_fini(void)
{
    /* the handler stays registered and drops what still arrives */
    __atomic_store_n(&kumi_dsm.closing, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&kumi_dsm_layer.poll, NULL, __ATOMIC_RELAXED);
    kumi_dsm_layer.report = NULL;
    memset(&kumi_dsm_g, 0, sizeof kumi_dsm_g);
    kumi_dsm_inbox_lock();
    struct kumi_dsm_node *n = kumi_dsm.in_head;
    __atomic_store_n(&kumi_dsm.in_head, NULL, __ATOMIC_RELAXED);
    kumi_dsm.in_tail = NULL;
    kumi_dsm_inbox_unlock();
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
    kumi_dsm_alloc_fini();
    kumi_dsm.up = 0;
}

